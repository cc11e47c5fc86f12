/**
 * The Chat webview view. It holds no state of its own (not even `retainContextWhenHidden`):
 * each time the page loads it says `ready` and gets a snapshot rebuilt from the store, so
 * hiding, moving or reloading the view loses nothing.
 */
import * as vscode from 'vscode';
import type { ChatController } from './chat-controller';
import { createNonce, renderWebviewHtml } from './webview-html';

/**
 * Everything the page may load lives under `media/`: the stylesheet, the icons, and the esbuild
 * bundle `media/dist/webview.js`. Nothing else under the extension is reachable from the page.
 */
export const WEBVIEW_SCRIPT = ['media', 'dist', 'webview.js'] as const;
export const WEBVIEW_STYLE = ['media', 'chat.css'] as const;
/** The editor's icon font's stylesheet, copied beside the bundle by esbuild.mjs (issue 14 item 5). */
export const WEBVIEW_ICON_STYLE = ['media', 'dist', 'codicon.css'] as const;

export class ChatViewProvider implements vscode.WebviewViewProvider {
  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly controller: ChatController,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    const { webview } = view;
    webview.options = {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'media')],
    };
    const post = (message: unknown): void => void webview.postMessage(message);
    this.controller.attachView(post);
    const subscriptions = [
      webview.onDidReceiveMessage((message: unknown) => this.controller.receive(message)),
      // A hidden view's page is discarded; it says `ready` again when shown, and gets a snapshot.
      view.onDidChangeVisibility(() => {
        if (!view.visible) this.controller.attachView(post);
      }),
    ];
    view.onDidDispose(() => {
      for (const subscription of subscriptions) subscription.dispose();
      this.controller.detachView();
    });
    webview.html = renderWebviewHtml({
      cspSource: webview.cspSource,
      nonce: createNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, ...WEBVIEW_SCRIPT)).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, ...WEBVIEW_STYLE)).toString(),
      iconStyleUri: webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, ...WEBVIEW_ICON_STYLE)).toString(),
    });
  }
}
