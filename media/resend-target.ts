/** Which of the user's messages a resend starts from (issue 14), without the DOM so it can be unit tested. */
import type { TranscriptItem, UserItem } from './transcript';

/** The item's place among the user's messages (0-based), which is how the host finds it; undefined if it is not one. */
export function userOrdinal(items: readonly TranscriptItem[], key: string): number | undefined {
  let ordinal = 0;
  for (const item of items) {
    if (item.kind !== 'user') continue;
    if (item.key === key) return ordinal;
    ordinal += 1;
  }
  return undefined;
}

/** The last message the user sent, with its ordinal: what Retry sends again. */
export function lastUserMessage(items: readonly TranscriptItem[]): { readonly item: UserItem; readonly ordinal: number } | undefined {
  let found: { item: UserItem; ordinal: number } | undefined;
  let ordinal = 0;
  for (const item of items) {
    if (item.kind !== 'user') continue;
    found = { item, ordinal };
    ordinal += 1;
  }
  return found;
}

/** What an edit sends: the trimmed text, or nothing when it was emptied. */
export function editedText(text: string): string | undefined {
  const trimmed = text.trim();
  return trimmed === '' ? undefined : trimmed;
}
