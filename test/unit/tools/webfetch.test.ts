import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { ToolError, TransientError } from '../../../src/core/errors';
import { webfetchTool } from '../../../src/tools/webfetch';
import { makeTempDir, makeToolContext, removeDir, type ToolContextOptions } from '../../support/tool-context';

const workspace = makeTempDir('zuno-webfetch-');
let server: Server;
let base = '';
let flakyHits = 0;
/** Sockets the server still had open; a slow handler must not keep the test alive. */
const sockets = new Set<import('node:net').Socket>();

const PAGE = `<!doctype html><html><head><title>Docs</title><style>body{color:red}</style><script>window.secret = "do not show";</script></head>
<body><h1>Getting started</h1><p>Read the <a href="../guide/install.html">install guide</a> first.</p><ul><li>fast</li><li>safe</li></ul></body></html>`;

before(async () => {
  server = createServer((request, response) => {
    const path = request.url ?? '/';
    if (path === '/docs/page.html') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    } else if (path === '/data.json') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"zuno","tools":[1,2]}');
    } else if (path === '/latin1.txt') {
      response.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    } else if (path === '/flaky') {
      flakyHits++;
      if (flakyHits === 1) response.writeHead(503).end('busy');
      else response.writeHead(200, { 'content-type': 'text/plain' }).end('recovered');
    } else if (path === '/endless') {
      // Never ends: only a client that stops reading at its cap can finish.
      response.writeHead(200, { 'content-type': 'text/plain' });
      const line = Buffer.from('all work and no play\n'.repeat(500));
      const pump = (): void => {
        while (!response.destroyed && response.write(line));
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
    } else if (path === '/slow-headers') {
      setTimeout(() => response.writeHead(200).end('late'), 60_000).unref();
    } else if (path === '/slow-body') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('partial');
    } else if (path.startsWith('/compressed.txt?')) {
      // Encoded as asked if the client offers it; the text must come back decoded.
      const wanted = path.endsWith('br') ? 'br' : 'gzip';
      const offered = String(request.headers['accept-encoding'] ?? '').includes(wanted);
      const text = Buffer.from('compressed text '.repeat(200));
      const [encoding, body] = !offered
        ? ['identity', text]
        : wanted === 'br'
          ? ['br', brotliCompressSync(text)]
          : ['gzip', gzipSync(text)];
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': encoding }).end(body);
    } else if (path === '/odd-status') {
      response.writeHead(600, 'Beyond').end('?');
    } else if (path === '/missing') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('nope');
    } else if (path === '/image.png') {
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': '2048' }).end(Buffer.alloc(2048));
    } else if (path === '/reset') {
      request.socket.destroy();
    } else if (path === '/redirect') {
      response.writeHead(302, { location: '/docs/page.html' }).end();
    } else {
      response.writeHead(500).end();
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  removeDir(workspace);
});

async function fetchUrl(url: string, options: Partial<ToolContextOptions> = {}) {
  const parsed = webfetchTool.parse({ url });
  assert.ok(parsed.success, JSON.stringify(parsed));
  return webfetchTool.run(parsed.args, makeToolContext({ workspaceRoot: workspace, ...options }));
}

test('R1: webfetch declares ReadOnly, Safe, ParallelSafe; its subject is the URL (§9)', async () => {
  assert.deepEqual(webfetchTool.declarationsFor({ url: 'https://x.dev' }), {
    effect: 'ReadOnly',
    replay: 'Safe',
    concurrency: 'ParallelSafe',
  });
  assert.deepEqual(await webfetchTool.subjectsFor({ url: 'https://Example.com/a b' }, makeToolContext({ workspaceRoot: workspace })), [
    { kind: 'url', value: 'https://example.com/a%20b' },
  ]);
});

test('issue 2 §9 HTML becomes readable text: scripts and styles dropped, links resolved', async () => {
  const result = await fetchUrl(`${base}/docs/page.html`);
  assert.match(result.output, new RegExp(`^URL: ${base}/docs/page\\.html\\nStatus: 200\\nContent-Type: text/html; charset=utf-8\\n`));
  assert.match(result.output, /GETTING STARTED/);
  assert.match(result.output, new RegExp(`Read the install guide \\[${base}/guide/install\\.html\\] first\\.`));
  assert.match(result.output, /\* fast\n \* safe/);
  assert.doesNotMatch(result.output, /secret|color:red/);
});

test('issue 2 §9: JSON comes back as it is; a declared charset is honoured; redirects are followed', async () => {
  assert.match((await fetchUrl(`${base}/data.json`)).output, /\n\n\{"name":"zuno","tools":\[1,2\]\}$/);
  assert.match((await fetchUrl(`${base}/latin1.txt`)).output, /\n\ncafé$/);
  assert.match((await fetchUrl(`${base}/redirect`)).output, new RegExp(`^URL: ${base}/docs/page\\.html\\n`));
});

test('issue 8: item 6 §9 the node host fetch decodes a compressed response, as the global fetch did', async () => {
  for (const encoding of ['gzip', 'br']) {
    const result = await fetchUrl(`${base}/compressed.txt?${encoding}`);
    assert.match(result.output, /Status: 200\n/);
    assert.ok(result.output.includes('compressed text '.repeat(200).trimEnd()), `${encoding}: ${result.output.slice(0, 300)}`);
  }
});

test('issue 2 §9: other content types are described by type and size', async () => {
  const result = await fetchUrl(`${base}/image.png`);
  assert.match(result.output, /The response is image\/png \(2048 bytes\), which webfetch does not turn into text\./);
});

test('R2: a 5xx is a TransientError, so the Safe retry can succeed the next time', async () => {
  await assert.rejects(fetchUrl(`${base}/flaky`), (error: unknown) => error instanceof TransientError && /HTTP 503/.test(error.message));
  assert.match((await fetchUrl(`${base}/flaky`)).output, /recovered$/);
});

test('issue 2 §9: a body beyond webfetch.max_bytes is cut, and reading stops there', async () => {
  const result = await fetchUrl(`${base}/endless`, { config: { webfetch: { max_bytes: 100_000 } } });
  assert.match(
    result.output,
    /\[The response was cut at the size limit of 100000 bytes \(webfetch\.max_bytes\); the rest was not downloaded\.\]$/,
  );
  assert.equal(result.metadata?.bytes, 100_000);
  assert.equal(result.truncated, true);
});

test('R2: timeouts and connection resets are TransientErrors', async () => {
  const config = { webfetch: { timeout_ms: 1000 } };
  await assert.rejects(
    fetchUrl(`${base}/slow-headers`, { config }),
    (error: unknown) => error instanceof TransientError && /took longer than 1000 ms/.test(error.message),
  );
  await assert.rejects(
    fetchUrl(`${base}/slow-body`, { config }),
    (error: unknown) => error instanceof TransientError && /took longer than 1000 ms/.test(error.message),
  );
  await assert.rejects(
    fetchUrl(`${base}/reset`),
    (error: unknown) => error instanceof TransientError && /connection to 127\.0\.0\.1:\d+ failed/.test(error.message),
  );
});

test('issue 2 §9: a 4xx is a ToolError with the status and what to do', async () => {
  await assert.rejects(
    fetchUrl(`${base}/missing`),
    (error: unknown) =>
      error instanceof ToolError && /answered HTTP 404 Not Found\. The page does not exist: check the URL/.test(error.message),
  );
});

test('issue 8: item 6 §9 a status the Fetch API cannot hold is a ToolError, not a crash of the host', async () => {
  await assert.rejects(
    fetchUrl(`${base}/odd-status`),
    (error: unknown) => error instanceof ToolError && /Could not fetch .*odd-status: .*HTTP status 600/.test(error.message),
  );
});

test('issue 2 §9: only http and https are fetched', async () => {
  await assert.rejects(
    fetchUrl('file:///etc/passwd'),
    (error: unknown) => error instanceof ToolError && /only http and https URLs, not file:/.test(error.message),
  );
  await assert.rejects(fetchUrl('ftp://example.com/x'), /not ftp:/);
  await assert.rejects(fetchUrl('not a url'), (error: unknown) => error instanceof ToolError && /not an absolute URL/.test(error.message));
});

test('issue 2 §6: cancelling a fetch propagates the abort, not a retryable error', async () => {
  const controller = new AbortController();
  const running = fetchUrl(`${base}/slow-headers`, { signal: controller.signal });
  setImmediate(() => controller.abort());
  await assert.rejects(
    running,
    (error: unknown) => error instanceof Error && error.name === 'AbortError' && !(error instanceof TransientError),
  );
});
