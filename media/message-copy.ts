// What Copy on a message copies (issue 14 item 14); DOM-free for the unit tests.
import { splitMentionNote } from '../src/webview/mentions';
import type { TranscriptItem } from './transcript';

/** The text Copy puts on the clipboard for an item; undefined for items without one (tool cards, a streaming answer). */
export function copyableText(item: TranscriptItem): string | undefined {
  // What the user typed, without the note about its @-mentions that the model was given.
  if (item.kind === 'user') return splitMentionNote(item.text).typed;
  if (item.kind === 'assistant' && !item.streaming && item.text !== '') return item.text;
  return undefined;
}
