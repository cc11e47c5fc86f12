/**
 * The extension's entry point, kept thin: everything lives in src/hosts/vscode. VS Code says
 * nothing when `activate` throws, so a failure is caught here and shown.
 */
import * as vscode from 'vscode';
import { ZunoExtension } from './hosts/vscode/activate';

let zuno: ZunoExtension | undefined;

export function activate(context: vscode.ExtensionContext): void {
  try {
    zuno = new ZunoExtension(context);
    context.subscriptions.push(zuno);
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    console.error(`Zuno failed to activate: ${message}`);
    void vscode.window.showErrorMessage(`Zuno failed to start: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** VS Code awaits this: the store is flushed and its lock released before the host exits. */
export async function deactivate(): Promise<void> {
  await zuno?.shutdown();
  zuno = undefined;
}
