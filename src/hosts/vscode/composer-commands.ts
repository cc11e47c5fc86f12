/**
 * Commands that feed the chat from the editor (issue 14 item 14), kept apart from `commands.ts`'s
 * model and settings commands.
 */
import * as vscode from 'vscode';
import type { ChatController } from './chat-controller';
import { CHAT_VIEW_ID } from './manifest';
import { selectionReference } from './selection-reference';

/** "Zuno: Add Selection to Chat": the selection's reference and text go into the composer, unsent. */
export async function addSelectionToChat(controller: ChatController): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || editor.selection.isEmpty) {
    void vscode.window.showInformationMessage('Zuno: select some text in an editor first, then run Add Selection to Chat.');
    return;
  }
  const { document, selection } = editor;
  // A selection ending at column 0 of a line does not include that line.
  const endLine = selection.end.character === 0 && selection.end.line > selection.start.line ? selection.end.line - 1 : selection.end.line;
  const inWorkspace = vscode.workspace.getWorkspaceFolder(document.uri) !== undefined;
  controller.compose(
    selectionReference({
      path: inWorkspace
        ? vscode.workspace.asRelativePath(document.uri, false)
        : document.uri.scheme === 'file'
          ? document.uri.fsPath
          : document.fileName,
      startLine: selection.start.line + 1,
      endLine: endLine + 1,
      text: document.getText(selection),
      languageId: document.languageId,
    }),
  );
  await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
}
