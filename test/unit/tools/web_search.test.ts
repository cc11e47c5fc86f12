import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webSearchTool, WEB_SEARCH_SETUP_HINT } from '../../../src/tools/web_search';
import { TransientError } from '../../../src/core/errors';
import { makeTempDir, makeToolContext, removeDir } from '../../support/tool-context';

// A real HTTP server on 127.0.0.1 speaking SearXNG's JSON API.
let server: Server;
let baseUrl = '';
const seen: string[] = [];
let failNext = 0;

before(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const query = url.searchParams.get('q') ?? '';
    seen.push(`${url.pathname}?format=${url.searchParams.get('format')}&q=${query}`);
    if (failNext > 0) {
      failNext--;
      response.writeHead(502).end('bad gateway');
      return;
    }
    if (query === 'forbidden') {
      response.writeHead(403).end();
      return;
    }
    const results =
      query === 'empty'
        ? []
        : [1, 2, 3].map((rank) => ({
            title: `${query} ${rank}`,
            url: `https://example.test/${query}/${rank}`,
            content: `about  ${query}\n${rank}`,
          }));
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ query, results }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

const workspace = makeTempDir();
after(() => removeDir(workspace));
const configured = () =>
  makeToolContext({ workspaceRoot: workspace, config: { web_search: { provider: 'searxng', url: baseUrl, max_results: 2 } } });

test('S1: web_search runs the batch and groups results per query', async () => {
  seen.length = 0;
  const result = await webSearchTool.run({ queries: ['alpha', 'beta', 'empty'] }, configured());
  assert.deepEqual([...seen].sort(), ['/search?format=json&q=alpha', '/search?format=json&q=beta', '/search?format=json&q=empty']);
  const sections = result.output.split('\n\n');
  assert.equal(sections.length, 3);
  assert.match(sections[0] ?? '', /^## alpha\n1\. alpha 1\n {3}https:\/\/example\.test\/alpha\/1\n {3}about alpha 1\n2\. alpha 2/);
  assert.doesNotMatch(sections[0] ?? '', /alpha 3/, 'max_results caps each query');
  assert.match(sections[1] ?? '', /^## beta\n1\. beta 1/);
  assert.equal(sections[2], '## empty\n(no results)');
});

test('E3/R1: web_search is ReadOnly, Safe and ParallelSafe', () => {
  assert.deepEqual(webSearchTool.declarationsFor({ queries: ['x'] }), { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' });
});

test('A1: without a provider the tool is unavailable and says how to configure one', () => {
  const context = makeToolContext({ workspaceRoot: workspace });
  assert.equal(webSearchTool.unavailableReason(context), WEB_SEARCH_SETUP_HINT);
  assert.equal(webSearchTool.unavailableReason(configured()), undefined);
});

test('R2: a 5xx from the provider is transient (the scheduler may retry a Safe tool); a 4xx is not', async () => {
  failNext = 1;
  await assert.rejects(webSearchTool.run({ queries: ['one'] }, configured()), TransientError);
  await assert.rejects(webSearchTool.run({ queries: ['forbidden'] }, configured()), /HTTP 403.*search\.formats/);
});

test('issue 3: web_search rejects an empty batch or blank queries', () => {
  assert.equal(webSearchTool.parse({ queries: [] }).success, false);
  assert.equal(webSearchTool.parse({ queries: ['  '] }).success, false);
});
