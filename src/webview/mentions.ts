/**
 * The syntax of @-mentions (issue 14 item 14), shared by the composer that writes them and the
 * host that reads them on send: `@path`, or `@"a path"` when the path has a space.
 */

/** Files offered per keystroke; the list is a picker, not a file browser. */
export const MENTION_RESULTS_LIMIT = 50;

/** `@` at the start or after a space or opening bracket, so `me@example.com` is no mention. */
const MENTION_PATTERN = /(?<=^|[\s([{])@(?:"([^"\n]+)"|([^\s"]+))/g;
/** Sentence punctuation that follows a mention without being part of its path. */
const TRAILING_PUNCTUATION = /[.,;:!?)\]}]+$/;

/** The paths the text mentions, in order, once each. */
export function mentionedPaths(text: string): string[] {
  const paths = new Set<string>();
  for (const match of text.matchAll(MENTION_PATTERN)) {
    const quoted = match[1];
    const path = quoted ?? (match[2] ?? '').replace(TRAILING_PUNCTUATION, '');
    if (path !== '') paths.add(path);
  }
  return [...paths];
}

/** How the composer writes a chosen file: quoted when the path would otherwise end at a space. */
export function mentionText(path: string): string {
  return /[\s"]/.test(path) ? `@"${path.replace(/"/g, '')}"` : `@${path}`;
}

/**
 * Orders workspace paths for a query: the file name starting with it first, then the file name
 * containing it, then the path containing it, then the letters in order anywhere (`crtjs` finds
 * `src/cart.js`); shorter paths first within a rank. Case-insensitive.
 */
export function rankPaths(paths: readonly string[], query: string, limit = MENTION_RESULTS_LIMIT): string[] {
  const wanted = query.toLowerCase();
  const ranked: { path: string; rank: number }[] = [];
  for (const path of paths) {
    const lower = path.toLowerCase();
    const name = lower.slice(lower.lastIndexOf('/') + 1);
    let rank: number;
    if (wanted === '' || name.startsWith(wanted)) rank = 0;
    else if (name.includes(wanted)) rank = 1;
    else if (lower.includes(wanted)) rank = 2;
    else if (inOrder(lower, wanted)) rank = 3;
    else continue;
    ranked.push({ path, rank });
  }
  ranked.sort((left, right) => left.rank - right.rank || left.path.length - right.path.length || left.path.localeCompare(right.path));
  return ranked.slice(0, limit).map((entry) => entry.path);
}

function inOrder(text: string, letters: string): boolean {
  let from = 0;
  for (const letter of letters) {
    const found = text.indexOf(letter, from);
    if (found < 0) return false;
    from = found + 1;
  }
  return true;
}

/** The headings of the note `expandMentions` adds to a prompt; the view and a resend recognise it by them. */
export const MENTIONED_FILES_HEADING = 'Files the user mentioned (workspace-relative; read them before answering):';
export const LEFT_AS_TEXT_HEADING = 'Mentions that are not files of this workspace:';

/** A sent message split into what the user typed and the note about its mentions, when it has one. */
export function splitMentionNote(text: string): { readonly typed: string; readonly note?: string } {
  const starts = [MENTIONED_FILES_HEADING, LEFT_AS_TEXT_HEADING]
    .map((heading) => text.lastIndexOf(`\n\n${heading}\n`))
    .filter((index) => index >= 0);
  if (starts.length === 0) return { typed: text };
  const start = Math.min(...starts);
  return { typed: text.slice(0, start), note: text.slice(start + 2) };
}
