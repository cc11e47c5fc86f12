/**
 * Commands between the chat and the editor (issue 14 item 14): a selection into the composer, the
 * chat out to a Markdown file. Kept apart from `commands.ts`'s model and settings commands.
 */
import * as vscode from 'vscode';
import { writeFileAtomically } from '../../store/layout';
import type { ChatController } from './chat-controller';
import { chatMarkdown } from './chat-export';
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

/** "Zuno: Export Chat": the chat shown, as Markdown, to a file the user picks. */
export async function exportChat(controller: ChatController): Promise<void> {
  const chat = await controller.exportable();
  if (chat === undefined) {
    void vscode.window.showInformationMessage('Zuno: there is no chat to export yet. Send a message first, or open one from the history.');
    return;
  }
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const name = `zuno-chat-${new Date().toISOString().slice(0, 10)}.md`;
  const target = await vscode.window.showSaveDialog({
    title: 'Zuno: export this chat as Markdown',
    saveLabel: 'Export',
    filters: { Markdown: ['md'] },
    ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, name) } : {}),
  });
  if (target === undefined) return;
  const markdown = chatMarkdown({ ...chat, exportedAt: new Date() });
  // A local file is written aside and renamed, so an existing file is never left half-written.
  if (target.scheme === 'file') writeFileAtomically(target.fsPath, markdown);
  else await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(markdown));
  const choice = await vscode.window.showInformationMessage(
    `Zuno: the chat is saved to ${vscode.workspace.asRelativePath(target)}.`,
    'Open',
  );
  if (choice === 'Open') await vscode.window.showTextDocument(target);
}
