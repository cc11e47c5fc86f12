/**
 * Messages typed while Zuno works (issue 14 item 7), shown above the composer as queued, each
 * with Remove, until the run takes them at its next step.
 */
import { actionButton, element } from './dom';
import type { QueuedMessage } from '../src/webview/protocol';

/** The queue's rows; empty when nothing is queued (the panel is then hidden). */
export function renderQueue(items: readonly QueuedMessage[]): HTMLElement[] {
  if (items.length === 0) return [];
  return [
    element('div', { className: 'queue-title', text: `Queued: sent at Zuno's next step (${items.length})` }),
    ...items.map((item) =>
      element(
        'div',
        { className: 'queued-message', attributes: { 'data-testid': 'queued-message', 'data-queue-id': item.id } },
        element('span', { className: 'queued-text', text: item.text }),
        ...(item.images ?? []).map((image, index) =>
          element('img', {
            className: 'queued-image',
            attributes: {
              src: `data:${image.mediaType};base64,${image.data}`,
              alt: `Image ${index + 1} queued with this message`,
              'data-testid': 'queued-image',
            },
          }),
        ),
        actionButton(
          'Remove',
          'unqueue',
          {
            'data-queue-id': item.id,
            'data-testid': 'unqueue',
            title: 'Take this message out of the queue (it goes back into the box below, with its images)',
          },
          'link-button',
        ),
      ),
    ),
  ];
}
