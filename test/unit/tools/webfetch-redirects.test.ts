// webfetch follows redirects itself, so the permission rules see every hop, and it refuses
// link-local and cloud-metadata addresses unless a rule names the URL (issue 8 item 6).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { ZunoConfigInput } from '../../../src/core/config';
import { BlockedError, ToolError } from '../../../src/core/errors';
import type { Host } from '../../../src/core/host';
import type { ToolResult } from '../../../src/core/tool';
import { createNodeHost } from '../../../src/hosts/node/host';
import { webfetchTool } from '../../../src/tools/webfetch';
import { listenOnLoopback, type LoopbackServer } from '../../support/loopback-server';
import { approveEverything, makeTempDir, makeToolContext, removeDir } from '../../support/tool-context';

const workspace = makeTempDir('zuno-webfetch-hops-');
const violations: string[] = [];
/** Every path the server was asked for, in order. */
const served: string[] = [];
/** Every URL webfetch asked the host to fetch, in order. */
const requested: string[] = [];
let server: LoopbackServer;
let base = '';

before(async () => {
  server = await listenOnLoopback(async (incoming, response) => {
    const path = incoming.url ?? '/';
    served.push(path);
    const chain = /^\/chain\/(\d+)$/.exec(path);
    if (path === '/to-secret') response.writeHead(302, { location: 'secret/data' }).end();
    else if (path.startsWith('/secret/')) response.writeHead(200, { 'content-type': 'text/plain' }).end('THE SECRET');
    else if (path === '/to-review') response.writeHead(307, { location: `${base}/review/page` }).end();
    else if (path.startsWith('/review/')) response.writeHead(200, { 'content-type': 'text/plain' }).end('reviewed page');
    else if (chain) {
      const step = Number(chain[1]);
      if (step < 3) response.writeHead(step % 2 === 0 ? 301 : 308, { location: `/chain/${step + 1}` }).end();
      else response.writeHead(200, { 'content-type': 'text/plain' }).end('end of the chain');
    } else if (path === '/loop') response.writeHead(302, { location: '/loop' }).end();
    else if (path === '/to-file') response.writeHead(302, { location: 'file:///etc/passwd' }).end();
    else if (path === '/to-metadata') response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/iam/' }).end();
    else if (path === '/plain') response.writeHead(200, { 'content-type': 'text/plain' }).end('plain text');
    else response.writeHead(404).end();
  }, violations);
  base = server.baseUrl.replace(/\/v1$/, '');
});

after(async () => {
  await server.close();
  removeDir(workspace);
  assert.deepEqual(violations, []);
});

function hostWith(resolveAddresses?: Host['resolveAddresses']): Host {
  const host = createNodeHost({
    stateDir: join(workspace, '.zuno', 'state'),
    approvals: approveEverything,
    fetch: (input, init) => {
      requested.push(String(input));
      return globalThis.fetch(input, init);
    },
  });
  return resolveAddresses ? { ...host, resolveAddresses } : host;
}

async function webfetch(url: string, config: ZunoConfigInput = {}, host: Host = hostWith()): Promise<ToolResult> {
  served.length = 0;
  requested.length = 0;
  const parsed = webfetchTool.parse({ url });
  assert.ok(parsed.success);
  return webfetchTool.run(parsed.args, makeToolContext({ workspaceRoot: workspace, config, host, tool: 'webfetch' }));
}

const rules = (...list: { match: string; action: 'allow' | 'ask' | 'deny' }[]): ZunoConfigInput => ({
  permission: { rules: list.map((rule) => ({ tool: 'webfetch', ...rule })) },
});

test('issue 8 §9 webfetch: a redirect to a denied URL is blocked naming the hop, and the denied URL is never requested', async () => {
  await assert.rejects(webfetch(`${base}/to-secret`, rules({ match: `${base}/secret/*`, action: 'deny' })), (error: unknown) => {
    assert.ok(error instanceof BlockedError, String(error));
    assert.match(
      error.message,
      new RegExp(
        `^redirect 1 \\(from ${base}/to-secret\\) to ${base}/secret/data is refused: refused by the permission rule .*Nothing was fetched from ${base}/secret/data\\.$`,
      ),
    );
    return true;
  });
  assert.deepEqual(served, ['/to-secret']);
  assert.deepEqual(requested, [`${base}/to-secret`]);
});

test('issue 8 §9 webfetch: a redirect to a URL an ask rule covers is blocked, telling the model to fetch it directly so the user is asked', async () => {
  await assert.rejects(webfetch(`${base}/to-review`, rules({ match: `${base}/review/*`, action: 'ask' })), (error: unknown) => {
    assert.ok(error instanceof BlockedError);
    assert.match(
      error.message,
      new RegExp(`needs the user's approval .*To have the user asked, call webfetch with ${base}/review/page directly\\.$`),
    );
    return true;
  });
  assert.deepEqual(served, ['/to-review']);
});

test('issue 8 §9 E3 webfetch: allowed hops are followed (relative Locations resolved, every redirect status) without any prompt', async () => {
  const result = await webfetch(`${base}/chain/0`, rules({ match: `${base}/secret/*`, action: 'deny' }));
  assert.match(result.output, new RegExp(`^URL: ${base}/chain/3\\nStatus: 200`));
  assert.match(result.output, /end of the chain/);
  assert.deepEqual(
    result.metadata?.redirects,
    [1, 2, 3].map((step) => `${base}/chain/${step}`),
  );
  assert.deepEqual(served, ['/chain/0', '/chain/1', '/chain/2', '/chain/3']);
});

test('issue 8 §9 webfetch: more than 10 redirects, or a redirect away from http(s), ends the call with what to do', async () => {
  await assert.rejects(
    webfetch(`${base}/loop`),
    (error: unknown) => error instanceof ToolError && /redirected more than 10 times .*may loop/.test(error.message),
  );
  assert.equal(served.length, 11, 'the first request and ten redirects');
  await assert.rejects(
    webfetch(`${base}/to-file`),
    (error: unknown) =>
      error instanceof ToolError &&
      /redirected to file:\/\/\/etc\/passwd; webfetch follows redirects only to http and https/.test(error.message),
  );
});

test('issue 8 §9 webfetch: metadata and link-local addresses are refused before any request, as the URL or as a redirect hop', async () => {
  for (const url of [
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/latest/',
    'http://[fe80::1]/',
    'http://100.100.100.200/latest/meta-data/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://2852039166/',
  ]) {
    await assert.rejects(
      webfetch(url),
      (error: unknown) =>
        error instanceof BlockedError && /was not fetched: .* is a link-local or cloud-metadata address/.test(error.message),
      url,
    );
    assert.deepEqual(requested, [], `${url} was never requested`);
  }
  await assert.rejects(
    webfetch(`${base}/to-metadata`),
    (error: unknown) =>
      error instanceof BlockedError &&
      /^Redirect 1 to http:\/\/169\.254\.169\.254\/latest\/meta-data\/iam\/ was not fetched/.test(error.message),
  );
  assert.deepEqual(requested, [`${base}/to-metadata`]);
});

test('issue 8 §9 webfetch: a name that resolves to a metadata address is refused, unless an allow rule names the URL', async () => {
  const pointsAtMetadata = hostWith(async () => ['127.0.0.1', '169.254.169.254']);
  const url = `${base.replace('127.0.0.1', 'localhost')}/plain`;
  await assert.rejects(
    webfetch(url, {}, pointsAtMetadata),
    (error: unknown) => error instanceof BlockedError && /localhost resolves to 169\.254\.169\.254/.test(error.message),
  );
  assert.deepEqual(requested, []);
  await assert.rejects(
    webfetch(url, { permission: { rules: [{ tool: 'webfetch', action: 'allow' }] } }, pointsAtMetadata),
    BlockedError,
    'a bare allow rule does not name the URL',
  );
  const allowed = await webfetch(url, rules({ match: `${base.replace('127.0.0.1', 'localhost')}/*`, action: 'allow' }), pointsAtMetadata);
  assert.match(allowed.output, /plain text/);
  assert.equal((await webfetch(url)).metadata?.status, 200, 'the real resolver: localhost is no metadata address');
});

/** A node host whose resolver answers `answers[i]` on the i-th lookup (the last one from then on), counting lookups. */
function rebindingHost(...answers: (readonly string[])[]): { host: Host; lookups: () => number } {
  let count = 0;
  const host = createNodeHost({
    stateDir: join(workspace, '.zuno', 'state'),
    approvals: approveEverything,
    resolveAddresses: async () => answers[Math.min(count++, answers.length - 1)] ?? [],
  });
  return { host, lookups: () => count };
}

test('issue 8 item 6 §9 webfetch: a name that answers a public address when checked and a metadata address when connected (DNS rebinding) is refused at connection time, and nothing is requested', async () => {
  const url = `${base.replace('127.0.0.1', 'rebind.zuno.test')}/plain`;
  // Control: the host connects to what its resolver answers (the name exists nowhere else), so the loopback server serves it.
  const honest = rebindingHost(['127.0.0.1']);
  assert.match((await webfetch(url, {}, honest.host)).output, /plain text/);
  assert.deepEqual(served, ['/plain']);
  assert.equal(honest.lookups(), 2, 'resolved once for the check, once for the connection');

  const rebinding = rebindingHost(['127.0.0.1'], ['169.254.169.254']);
  await assert.rejects(
    webfetch(url, {}, rebinding.host),
    (error: unknown) =>
      error instanceof BlockedError &&
      /connection to rebind\.zuno\.test was refused: it now resolves to 169\.254\.169\.254.*DNS rebinding.*Nothing was requested/.test(
        error.message,
      ),
  );
  assert.equal(rebinding.lookups(), 2);
  assert.deepEqual(served, [], 'nothing reached any server');
});

test('issue 8 item 6 §9 webfetch: a rule naming the URL lets its connection reach a metadata address; a bare allow rule does not', async () => {
  const url = `${base.replace('127.0.0.1', 'rebind.zuno.test')}/plain`;
  const config = (match?: string): ZunoConfigInput => ({
    webfetch: { timeout_ms: 1000 },
    permission: { rules: [{ tool: 'webfetch', action: 'allow', ...(match ? { match } : {}) }] },
  });
  await assert.rejects(
    webfetch(url, config(), rebindingHost(['127.0.0.1'], ['169.254.169.254']).host),
    (error: unknown) => error instanceof BlockedError && /DNS rebinding/.test(error.message),
  );
  // Named: the host tries the address (unreachable from a test machine, or refusing this port), so the failure is the network's, not a refusal.
  const named = rebindingHost(['127.0.0.1'], ['169.254.169.254']);
  await assert.rejects(
    webfetch(url, config(`${base.replace('127.0.0.1', 'rebind.zuno.test')}/*`), named.host),
    (error: unknown) => !(error instanceof BlockedError),
  );
  assert.equal(named.lookups(), 2);
});
