// Model text is untrusted (issue 4 "Streaming ... raw HTML disabled"; notes: Webview security).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderMarkdown } from '../../../media/markdown';

test('issue 4 security: raw HTML in model text is escaped, not rendered', () => {
  const html = renderMarkdown('Hi <script>alert(1)</script> <img src=x onerror="alert(2)"> <b>bold</b>');
  assert.doesNotMatch(html, /<script|<img|<b>/);
  assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(html, /&lt;img src=x onerror=&quot;alert\(2\)&quot;&gt;/);
});

test('issue 4 security: an HTML block is escaped too', () => {
  const html = renderMarkdown('<div onclick="steal()">\n\nhello\n\n</div>');
  assert.doesNotMatch(html, /<div/);
  assert.match(html, /&lt;div onclick=&quot;steal\(\)&quot;&gt;/);
});

test('issue 4 security: only http, https and mailto links become links', () => {
  const safe = renderMarkdown('[docs](https://example.com/a?b=1) [mail](mailto:a@b.c) [plain](http://x.org)');
  assert.match(safe, /<a href="https:\/\/example\.com\/a\?b=1">docs<\/a>/);
  assert.match(safe, /<a href="mailto:a@b\.c">mail<\/a>/);
  assert.match(safe, /<a href="http:\/\/x\.org">plain<\/a>/);
  for (const url of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,<b>x</b>', 'vbscript:x', 'command:workbench.action.quit', 'file:///etc/passwd', './relative.ts']) {
    const html = renderMarkdown(`[click](${url}) <${url}>`);
    assert.doesNotMatch(html, /<a /, `${url} must not become a link`);
  }
});

test('issue 4 security: images are not rendered (no remote loads, and the CSP would block them)', () => {
  const html = renderMarkdown('![tracker](https://evil.example/pixel.png)');
  assert.doesNotMatch(html, /<img/);
});

test('issue 4 streaming: markdown renders code, emphasis and lists; code content stays escaped', () => {
  const html = renderMarkdown('**bold** and `a<b`\n\n```ts\nconst x = "<tag>";\n```\n\n- one\n- two');
  assert.match(html, /<strong>bold<\/strong>/);
  assert.match(html, /<code>a&lt;b<\/code>/);
  assert.match(html, /<pre><code class="language-ts">const x = &quot;&lt;tag&gt;&quot;;\n<\/code><\/pre>/);
  assert.match(html, /<ul>\n<li>one<\/li>\n<li>two<\/li>\n<\/ul>/);
});

test('issue 4 streaming: a half-streamed fence or emphasis renders without throwing and stays escaped', () => {
  const html = renderMarkdown('Here:\n\n```html\n<script>x');
  assert.match(html, /&lt;script&gt;x/);
  assert.doesNotMatch(html, /<script/);
});
