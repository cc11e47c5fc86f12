/**
 * Copy on a message (issue 14 item 14): the user's text or the answer's Markdown source, not the
 * rendered HTML. Added beside the author line of each drawn message, so the renderer stays as it is.
 */
import { actionButton } from './dom';
import { copyableText } from './message-copy';
import type { TranscriptItem } from './transcript';

/** Adds the Copy button to a drawn user or assistant message. */
export function withMessageActions(node: HTMLElement, item: TranscriptItem): HTMLElement {
  if (copyableText(item) === undefined) return node;
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
