/**
 * @-mentions of workspace files in the composer (issue 14 item 14). The view inserts `@path` (or
 * `@"a path"` when it has spaces); on send, each mention that names a file inside the workspace
 * becomes a line the model is told to read, and any other is left as typed with a note saying why,
 * so the model never guesses at a file that is not there. No `vscode` import: the file list comes
 * from `workspace-files.ts`, the syntax from `src/webview/mentions.ts` (shared with the view), and
 * the checks are plain fs against the workspace's real path.
 */
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { LEFT_AS_TEXT_HEADING, MENTIONED_FILES_HEADING, mentionedPaths, mentionText, splitMentionNote } from '../../webview/mentions';

/** Why a mention is not passed on as a file. */
export type MentionProblem = 'outside the workspace' | 'not found' | 'not a file';

export type MentionCheck = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly problem: MentionProblem };

/**
 * Checks one mention against the workspace: the real path (symlinks resolved) must be a file
 * inside the workspace's real root. `path` in the answer is workspace-relative with `/`.
 */
export async function checkMention(workspaceRoot: string, mention: string): Promise<MentionCheck> {
  const root = await realpath(workspaceRoot);
  const target = resolve(root, mention);
  if (!inside(root, target)) return { ok: false, problem: 'outside the workspace' };
  let real: string;
  try {
    real = await realpath(target);
  } catch {
    return { ok: false, problem: 'not found' };
  }
  if (!inside(root, real)) return { ok: false, problem: 'outside the workspace' };
  if (!(await stat(real)).isFile()) return { ok: false, problem: 'not a file' };
  return { ok: true, path: relative(root, target).split(sep).join('/') };
}

function inside(root: string, path: string): boolean {
  const fromRoot = relative(root, path);
  return fromRoot !== '' && !fromRoot.startsWith('..') && !isAbsolute(fromRoot);
}

/**
 * The prompt the model receives for what the user typed: the text unchanged, then the files to
 * read and the mentions that are not files of this workspace. Text without mentions is returned
 * as it is.
 */
export async function expandMentions(sent: string, check: (mention: string) => Promise<MentionCheck>): Promise<string> {
  // A message sent again (Retry, edit and resend) gets a fresh note, not a second one.
  const text = splitMentionNote(sent).typed;
  const mentions = mentionedPaths(text);
  if (mentions.length === 0) return text;
  const files: string[] = [];
  const left: string[] = [];
  for (const mention of mentions) {
    const checked = await check(mention);
    if (checked.ok) {
      if (!files.includes(checked.path)) files.push(checked.path);
    } else left.push(`${mentionText(mention)} (${checked.problem}; left as text)`);
  }
  const lines: string[] = [];
  if (files.length > 0) lines.push(MENTIONED_FILES_HEADING, ...files.map((path) => `- ${path}`));
  if (left.length > 0) lines.push(LEFT_AS_TEXT_HEADING, ...left.map((note) => `- ${note}`));
  return `${text}\n\n${lines.join('\n')}`;
}

/** What the chat needs from the workspace for mentions; `workspace-files.ts` is the editor's. */
export interface MentionSource {
  /** Workspace-relative paths for the picker, best first, at most `MENTION_RESULTS_LIMIT`. */
  search(query: string): Promise<readonly string[]>;
  /** The prompt the model receives for `text` (see expandMentions). */
  expand(text: string): Promise<string>;
}
