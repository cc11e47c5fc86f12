/**
 * What the composer features add to a drawn message (issue 14 item 14), after the renderer, so it
 * stays as it is: Copy beside the author (the user's text or the answer's Markdown source, not the
 * rendered HTML), and on a user message the note about its @-mentions set apart from what was typed.
 */
import { actionButton, element } from './dom';
import { splitMentionNote } from '../src/webview/mentions';
import { copyableText } from './message-copy';
import type { TranscriptItem } from './transcript';

/** Adds the Copy button to a drawn user or assistant message, and sets a mention note apart. */
export function withMessageActions(node: HTMLElement, item: TranscriptItem): HTMLElement {
  if (copyableText(item) === undefined) return node;
  if (item.kind === 'user') {
    const { typed, note } = splitMentionNote(item.text);
    const body = node.querySelector('.message-body');
    if (note !== undefined && body !== null) {
      body.textContent = typed;
      body.append(element('div', { className: 'mention-note', text: note, attributes: { 'data-testid': 'mention-note' } }));
    }
  }
  node
    .querySelector('.message-author')
    ?.append(
      actionButton(
        'Copy',
        'copy-message',
        { 'data-key': item.key, 'data-testid': 'copy-message', title: 'Copy this message (Markdown)', 'aria-label': 'Copy this message' },
        'link-button message-copy',
      ),
    );
  return node;
}

/** Writes to the clipboard and says how it went on the button for a moment. */
export function copyWithFeedback(button: HTMLElement, text: string): void {
  const label = button.textContent ?? 'Copy';
  const say = (words: string): void => {
    button.textContent = words;
    setTimeout(() => {
      button.textContent = label;
    }, 1500);
  };
  navigator.clipboard.writeText(text).then(
    () => say('Copied'),
    () => say('Copy failed: select the text and press Ctrl+C'),
  );
}
