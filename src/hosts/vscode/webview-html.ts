/**
 * The chat webview's HTML and Content-Security-Policy. No `vscode` import, so the policy can be
 * tested in plain node. The rules (issue 4, "Security"): `default-src 'none'`, scripts only with
 * a fresh nonce from `crypto` (never `Math.random`, which peers used), no `unsafe-eval`, and no
 * `unsafe-inline` for scripts.
 */
import { randomBytes } from 'node:crypto';

/** 16 random bytes from the OS CSPRNG, base64: 128 bits, so a nonce cannot be guessed. */
export function createNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * `cspSource` is `webview.cspSource`: the origin the webview loads local resources from. Styles
 * may come from it or carry the nonce; nothing else may load at all.
 */
export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
  ].join('; ');
}

export interface WebviewPage {
  readonly cspSource: string;
  readonly nonce: string;
  /** `webview.asWebviewUri(...)` of the webview bundle. */
  readonly scriptUri: string;
  /** `webview.asWebviewUri(...)` of the stylesheet. */
  readonly styleUri: string;
  /** `webview.asWebviewUri(...)` of the codicon stylesheet (its font loads from the same folder). */
  readonly iconStyleUri: string;
}

const escapeAttribute = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The page is an empty shell: everything visible is rendered by the bundle, which asks for a
 * snapshot with `ready` as soon as it runs, so a reloaded view rebuilds itself from the store.
 */
export function renderWebviewHtml(page: WebviewPage): string {
  const nonce = escapeAttribute(page.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(contentSecurityPolicy(page.cspSource, page.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" nonce="${nonce}" href="${escapeAttribute(page.iconStyleUri)}">
<link rel="stylesheet" nonce="${nonce}" href="${escapeAttribute(page.styleUri)}">
<title>Zuno</title>
</head>
<body>
<div id="app"></div>
<script nonce="${nonce}" src="${escapeAttribute(page.scriptUri)}"></script>
</body>
</html>
`;
}
