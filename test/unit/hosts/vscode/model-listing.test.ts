// Select Model lists the server's models and tells the other cases apart (issue 14 item 12): a key
// refused (Set API Key offered), a server that is down (said plainly), one that does not list; a
// name can always be typed. Against the scripted servers, which refuse a missing key like the APIs.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { listModelsAt, modelPickerView, typedItem, type ModelListing } from '../../../../src/hosts/vscode/model-listing';
import { startScriptedAnthropic } from '../../../support/scripted-anthropic';
import { startScriptedOpenAI } from '../../../support/scripted-openai';

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

test('issue 14 item 12: an OpenAI-compatible server that wants a key answers 401 without one: needs-key, Set API Key first; with the key its models are listed', async () => {
  const server = await startScriptedOpenAI({ script: [], models: ['gpt-4o', 'b-model', 'a-model'], apiKey: 'sk-right' });
  cleanups.push(() => server.close());
  const withoutKey = await listModelsAt(fetch, 'openai', server.baseUrl, undefined);
  assert.equal(withoutKey.kind, 'needs-key');
  assert.match(withoutKey.kind === 'needs-key' ? withoutKey.said : '', /didn't provide an API key/);
  const view = modelPickerView(withoutKey, server.baseUrl, undefined);
  assert.equal(view.items[0]?.action.kind, 'set-key');
  assert.match(view.placeholder, /refused to list its models without a valid API key \(HTTP 401\)/);
  assert.equal((await listModelsAt(fetch, 'openai', server.baseUrl, 'sk-wrong')).kind, 'needs-key');

  const listed = await listModelsAt(fetch, 'openai', server.baseUrl, 'sk-right');
  assert.deepEqual(listed, { kind: 'listed', ids: ['a-model', 'b-model', 'gpt-4o'] });
  const pickView = modelPickerView(listed, server.baseUrl, 'gpt-4o');
  assert.deepEqual(
    pickView.items.map((item) => [item.label, item.description ?? '']),
    [
      ['a-model', ''],
      ['b-model', ''],
      ['gpt-4o', '(current)'],
      ['Set API Key', `for ${new URL(server.baseUrl).origin}`],
      ['Change server or provider…', server.baseUrl],
    ],
  );
  assert.equal(server.requests.at(-1)?.headers.authorization, 'Bearer sk-right');
});

test("issue 14 item 12: Anthropic's models endpoint: 401 authentication_error without x-api-key, the list with it, anthropic-version always sent", async () => {
  const server = await startScriptedAnthropic({ script: [], models: ['claude-sonnet-4-5', 'claude-haiku-4-5'], apiKey: 'ak-right' });
  cleanups.push(() => server.close());
  const withoutKey = await listModelsAt(fetch, 'anthropic', server.baseUrl, undefined);
  assert.deepEqual(withoutKey, { kind: 'needs-key', status: 401, said: 'x-api-key header is required' });
  assert.deepEqual(await listModelsAt(fetch, 'anthropic', server.baseUrl, 'ak-right'), {
    kind: 'listed',
    ids: ['claude-haiku-4-5', 'claude-sonnet-4-5'],
  });
});

test('issue 14 item 12: a server that is down is named as down (connection refused), and a typed name is still offered', async () => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const listing = await listModelsAt(fetch, 'openai', baseUrl, undefined);
  assert.deepEqual(listing, { kind: 'down', why: 'connection refused' });
  const view = modelPickerView(listing, baseUrl, undefined);
  assert.equal(
    view.placeholder,
    `The server at ${baseUrl} is not reachable (connection refused): start it, change the server, or type a model name`,
  );
  assert.deepEqual(typedItem('  qwen2.5-coder:7b ', listing), {
    label: 'Use “qwen2.5-coder:7b”',
    description: 'the server could not be asked',
    action: { kind: 'model', name: 'qwen2.5-coder:7b' },
  });
  assert.equal(typedItem('   ', listing), undefined);
});

test('issue 14 item 12: a server that accepts the connection and never answers is down after the timeout, not a hang', async () => {
  const sockets: Socket[] = [];
  const silent = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => silent.close(() => resolve()));
  });
  const address = silent.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const listing = await listModelsAt(fetch, 'openai', `http://127.0.0.1:${port}/v1`, undefined, 300);
  assert.deepEqual(listing, { kind: 'down', why: 'no answer within 0.3 s' });
  assert.ok(sockets.length >= 1, 'the request did reach the server');
});

test('issue 14 item 12: a server without the models endpoint is "did not list", and a typed name that is not listed says so', async () => {
  const server = await startScriptedOpenAI({ script: [], models: ['m1'] });
  cleanups.push(() => server.close());
  const listing = await listModelsAt(fetch, 'openai', `${server.baseUrl}/elsewhere`, undefined);
  assert.deepEqual(listing, { kind: 'unlisted', why: 'it answered HTTP 404 to GET /models' });
  assert.match(modelPickerView(listing, 'x', undefined).placeholder, /did not list its models.*type a model name/);
  const listed: ModelListing = { kind: 'listed', ids: ['m1'] };
  assert.equal(typedItem('m1', listed), undefined, 'a listed name is picked from the list, not offered twice');
  assert.equal(typedItem('m2', listed)?.description, 'not in the server’s list');
});
