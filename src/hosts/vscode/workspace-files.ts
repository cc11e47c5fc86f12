/**
 * The editor's side of @-mentions (issue 14 item 14): the workspace's files as VS Code lists them
 * (`findFiles`, without what `files.exclude` and `search.exclude` leave out), ranked by
 * `mentions.ts`. The listing is kept for a few seconds, since a mention sends one query per keystroke.
 */
import * as vscode from 'vscode';
import { rankPaths } from '../../webview/mentions';
import { checkMention, expandMentions, type MentionSource } from './mentions';

/** Files listed per refresh; a larger workspace is found by typing more of the path. */
const LISTED_FILES_LIMIT = 20_000;
/** How long one listing answers keystrokes before it is read again. */
const LISTING_TTL_MS = 5_000;

export class WorkspaceFiles implements MentionSource {
  private listing: { readonly at: number; readonly paths: Promise<readonly string[]> } | undefined;

  constructor(private readonly workspaceRoot: string | undefined) {}

  async search(query: string): Promise<readonly string[]> {
    if (this.workspaceRoot === undefined) return [];
    return rankPaths(await this.paths(), query.trim());
  }

  async expand(text: string): Promise<string> {
    const root = this.workspaceRoot;
    if (root === undefined) return text;
    return expandMentions(text, async (mention) => {
      try {
        return await checkMention(root, mention);
      } catch {
        // An unreadable path is as good as missing: the mention stays text, the message still goes.
        return { ok: false, problem: 'not found' };
      }
    });
  }

  private paths(): Promise<readonly string[]> {
    const now = Date.now();
    if (this.listing === undefined || now - this.listing.at > LISTING_TTL_MS) this.listing = { at: now, paths: this.list() };
    return this.listing.paths;
  }

  private async list(): Promise<readonly string[]> {
    // A given exclude replaces VS Code's default (files.exclude), so both settings are read here.
    const patterns = ['files', 'search'].flatMap((section) =>
      Object.entries(vscode.workspace.getConfiguration(section).get<Record<string, unknown>>('exclude') ?? {})
        .filter(([, value]) => value === true)
        .map(([pattern]) => pattern),
    );
    const exclude = patterns.length === 0 ? null : `{${patterns.join(',')}}`;
    const uris = await vscode.workspace.findFiles('**/*', exclude, LISTED_FILES_LIMIT);
    return uris.map((uri) => vscode.workspace.asRelativePath(uri, false));
  }
}
