/**
 * "Zuno: Add Selection to Chat" (issue 14 item 14): the text put into the composer for a selection,
 * a reference `path:L10-L20` and the selected text as a fenced block. No `vscode` import, so the
 * format is unit-tested.
 */

export interface SelectionInfo {
  /** Workspace-relative with `/` when the file is in the workspace, else its full path or name. */
  readonly path: string;
  /** 1-based, inclusive. */
  readonly startLine: number;
  readonly endLine: number;
  readonly text: string;
  /** VS Code's language id, used as the fence's language when it names one. */
  readonly languageId?: string;
}

/** Ids that are not a language a highlighter knows (the fence then carries none). */
const PLAIN_LANGUAGES: ReadonlySet<string> = new Set(['plaintext', 'ignore', 'log']);

export function selectionReference(selection: SelectionInfo): string {
  const { path, startLine, endLine, text, languageId } = selection;
  const lines = startLine === endLine ? `L${startLine}` : `L${startLine}-L${endLine}`;
  // A fence longer than any run of backticks inside, so selected Markdown cannot close it early.
  const longestRun = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  const language = languageId !== undefined && !PLAIN_LANGUAGES.has(languageId) && /^[\w+#.-]+$/.test(languageId) ? languageId : '';
  const body = text.replace(/\r\n/g, '\n').replace(/\n$/, '');
  return `${path}:${lines}\n${fence}${language}\n${body}\n${fence}`;
}
