// The @-mention token at the composer's caret (issue 14 item 14); DOM-free for the unit tests.
import { mentionText } from '../src/webview/mentions';

/** The `@…` token being typed: where its `@` is and what follows it up to the caret. */
export interface ActiveMention {
  readonly start: number;
  readonly query: string;
}

/** The mention the caret is in, if any: an `@` at the start or after a space, then no space up to the caret. */
export function activeMention(text: string, caret: number): ActiveMention | undefined {
  const before = text.slice(0, caret);
  const match = /(?:^|[\s([{])@([^\s"@]*)$/.exec(before);
  if (match === null) return undefined;
  const query = match[1] ?? '';
  return { start: caret - query.length - 1, query };
}

/** The composer's text and caret after choosing `path` for the mention at `mention.start`. */
export function insertMention(text: string, mention: ActiveMention, path: string): { text: string; caret: number } {
  const end = mention.start + 1 + mention.query.length;
  const inserted = mentionText(path);
  const after = text.slice(end);
  // One space after the path, so the user types on; none added before a space already there.
  const spacer = after.startsWith(' ') ? '' : ' ';
  const next = `${text.slice(0, mention.start)}${inserted}${spacer}${after}`;
  return { text: next, caret: mention.start + inserted.length + 1 };
}
