// What Copy on a message copies (issue 14 item 14); DOM-free for the unit tests.
import type { TranscriptItem } from './transcript';

/** The text Copy puts on the clipboard for an item; undefined for items without one (tool cards, a streaming answer). */
export function copyableText(item: TranscriptItem): string | undefined {
  if (item.kind === 'user') return item.text;
  if (item.kind === 'assistant' && !item.streaming && item.text !== '') return item.text;
  return undefined;
}
