import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentSecurityPolicy, createNonce, renderWebviewHtml } from '../../../../src/hosts/vscode/webview-html';

const cspSource = 'https://file+.vscode-resource.vscode-cdn.net';

function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy.split(';').map((part) => {
      const [name = '', ...values] = part.trim().split(/\s+/);
      return [name, values];
    }),
  );
}

test('issue 4 Security: the nonce is base64 of 16 crypto bytes and differs on every call', () => {
  const nonces = new Set(Array.from({ length: 50 }, () => createNonce()));
  assert.equal(nonces.size, 50);
  for (const nonce of nonces) {
    assert.match(nonce, /^[A-Za-z0-9+/]+=*$/);
    assert.equal(Buffer.from(nonce, 'base64').length, 16);
  }
});

test('issue 4 Security: the CSP is default-src none, scripts by nonce only, no unsafe-eval or unsafe-inline', () => {
  const nonce = createNonce();
  const policy = directives(contentSecurityPolicy(cspSource, nonce));
  assert.deepEqual(policy.get('default-src'), ["'none'"]);
  assert.deepEqual(policy.get('script-src'), [`'nonce-${nonce}'`]);
  assert.deepEqual(policy.get('style-src'), [cspSource, `'nonce-${nonce}'`]);
  assert.deepEqual(policy.get('img-src'), [cspSource, 'data:']);
  assert.deepEqual(policy.get('font-src'), [cspSource]);
  assert.doesNotMatch(contentSecurityPolicy(cspSource, nonce), /unsafe-(eval|inline)/);
  assert.equal(policy.has('connect-src'), false, 'the view reaches nothing on the network; it only talks to the extension');
});

test('issue 4 Security: the page carries the policy, and its only script and stylesheet carry the nonce', () => {
  const nonce = createNonce();
  const html = renderWebviewHtml({
    cspSource,
    nonce,
    scriptUri: `${cspSource}/ext/media/dist/webview.js`,
    styleUri: `${cspSource}/ext/media/chat.css`,
    iconStyleUri: `${cspSource}/ext/media/dist/codicon.css`,
  });
  const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html);
  assert.ok(meta, 'a CSP meta tag');
  assert.equal(meta[1]?.replace(/&#39;|&quot;/g, "'"), contentSecurityPolicy(cspSource, nonce));
  const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((match) => match[1] ?? '');
  assert.deepEqual(scripts, [` nonce="${nonce}" src="${cspSource}/ext/media/dist/webview.js"`]);
  assert.ok(html.includes(`<link rel="stylesheet" nonce="${nonce}" href="${cspSource}/ext/media/chat.css">`));
  // Issue 14 item 5: the codicon stylesheet comes from the extension's own media folder (its font is allowed by font-src, above).
  assert.ok(html.includes(`<link rel="stylesheet" nonce="${nonce}" href="${cspSource}/ext/media/dist/codicon.css">`));
  assert.doesNotMatch(html, /\son[a-z]+=/i, 'no inline event handlers');
});

test('issue 4 Security: resource URIs cannot break out of their attribute', () => {
  const html = renderWebviewHtml({ cspSource, nonce: 'abc', scriptUri: 'x"><script>alert(1)</script>', styleUri: 'y', iconStyleUri: 'z' });
  assert.equal([...html.matchAll(/<script\b/g)].length, 1);
  assert.match(html, /src="x&quot;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;"/);
});
