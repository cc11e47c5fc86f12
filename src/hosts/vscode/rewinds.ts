/**
 * The editor's rewinds (issue 13): the shared plan and restore of `src/agent/rewind.ts` over the
 * editor's runtime, and a read-only `zuno-checkpoint:` document per file so VS Code's diff
 * editor can show a file as it is now beside the file as the restore would leave it.
 */
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { findCheckpoint } from '../../agent/rewind';
import { RuntimeRewinds, workspaceFile, type RewindBackend } from './chat-rewind';

export const CHECKPOINT_SCHEME = 'zuno-checkpoint';

/** `zuno-checkpoint:/<session>/<checkpoint>/<path>`; the checkpoint `-` is an empty document (the file is absent there). */
const checkpointUri = (sessionId: string, checkpointId: string, path: string): vscode.Uri =>
  vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${encodeURIComponent(sessionId)}/${encodeURIComponent(checkpointId)}/${path}` });

export class EditorRewinds extends RuntimeRewinds implements RewindBackend, vscode.TextDocumentContentProvider {
  async showDiff(sessionId: string, checkpointId: string, path: string): Promise<void> {
    const { workspace } = await this.shadow();
    const current = workspaceFile(workspace, path);
    if (current === undefined) throw new Error(`"${path}" is not a file in the workspace; a restore shows diffs of workspace files only.`);
    const left = existsSync(current) ? vscode.Uri.file(current) : checkpointUri(sessionId, '-', path);
    const right = checkpointUri(sessionId, checkpointId, path);
    await vscode.commands.executeCommand('vscode.diff', left, right, `${basename(path)}: now ↔ restored (${checkpointId})`, {
      preview: true,
    });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const [, session = '', checkpoint = '', ...rest] = uri.path.split('/');
    if (checkpoint === '-') return '';
    const { shadow } = await this.shadow();
    const record = await findCheckpoint(shadow, decodeURIComponent(session), decodeURIComponent(checkpoint));
    return (await shadow.fileAt(record.tree, rest.join('/')))?.toString('utf8') ?? '';
  }
}
