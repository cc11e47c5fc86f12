// Model text is untrusted (issue 4 "Streaming ... raw HTML disabled"; notes: Webview security).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
// Loaded by a computed path so the root program never reads highlight.js's typings: they pull in
// lib "dom" (without its iterables), which breaks Node's fetch types in src/. media/tsconfig.json
// type-checks media/markdown.ts itself; this is its signature there.
const markdownModule = '../../../media/markdown';
let renderMarkdown: (text: string) => string = () => {
  throw new Error('media/markdown.ts is not loaded yet');
};
before(async () => {
  ({ renderMarkdown } = (await import(markdownModule)) as { renderMarkdown: typeof renderMarkdown });
});

/** The code of the first block with highlight.js's spans removed: what the reader sees, still escaped. */
function codeText(html: string): string {
  const code = /<pre><code[^>]*>([\s\S]*?)<\/code><\/pre>/.exec(html)?.[1] ?? '';
  return code.replace(/<\/?span[^>]*>/g, '');
}

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
  for (const url of [
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    'data:text/html,<b>x</b>',
    'vbscript:x',
    'command:workbench.action.quit',
    'file:///etc/passwd',
    './relative.ts',
  ]) {
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
  assert.match(html, /<pre><code class="hljs language-ts">/);
  assert.equal(codeText(html), 'const x = &quot;&lt;tag&gt;&quot;;\n', 'highlighting adds spans, never unescaped text');
  assert.match(html, /<ul>\n<li>one<\/li>\n<li>two<\/li>\n<\/ul>/);
});

test('issue 4 streaming: a half-streamed fence or emphasis renders without throwing and stays escaped', () => {
  const html = renderMarkdown('Here:\n\n```html\n<script>x');
  assert.equal(codeText(html), '&lt;script&gt;x');
  assert.doesNotMatch(html, /<script/);
});

test('issue 14 item 6: a code block is highlighted, names its language and has a Copy button', () => {
  const html = renderMarkdown('```ts\nconst total = items.length;\n```');
  assert.match(html, /<span class="code-language" data-testid="code-language">ts<\/span>/);
  assert.match(html, /<button type="button" class="code-copy link-button" data-action="copy-code"/);
  assert.match(html, /<span class="hljs-keyword">const<\/span>/);
  const plain = renderMarkdown('```\nno language <b>\n```');
  assert.match(plain, /data-testid="code-language">text</);
  assert.equal(codeText(plain), 'no language &lt;b&gt;\n');
  const unknown = renderMarkdown('```brainfuck\n+++<>\n```');
  assert.equal(codeText(unknown), '+++&lt;&gt;\n', 'an unknown language is escaped text, not an error');
});

test('issue 14 item 6 security: a hostile fence info string never becomes markup or an attribute', () => {
  for (const info of ['"><img src=x onerror=alert(1)>', 'ts" onclick="x', '<script>', 'a'.repeat(200)]) {
    const html = renderMarkdown(`\`\`\`${info}\ncode\n\`\`\``);
    assert.doesNotMatch(html, /<img|onclick=|<script/, info);
    assert.match(html, /data-testid="code-language">text</, `${info.slice(0, 20)} is not shown as a language`);
  }
  // Highlighting must not unescape: every language, hostile code.
  for (const language of ['ts', 'html', 'xml', 'markdown', 'bash', 'json', 'python']) {
    const html = renderMarkdown(`\`\`\`${language}\n</code></pre><img src=x onerror=alert(1)><script>alert(2)</script>\n\`\`\``);
    assert.doesNotMatch(html, /<img|<script/, language);
  }
});
