// Provider error wording and retry timing helpers (SPEC §9 "Models"; issue 2 §10: clear errors).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  apiKeyHint,
  endpoint,
  listServerModels,
  retryAfterMs,
  saysContextOverflow,
  serverMessage,
  statusError,
} from '../../../src/agent/provider';

test('§9 models: the key hint fits where the key came from', () => {
  assert.match(
    apiKeyHint({ key: undefined, envVar: 'OPENROUTER_API_KEY' }),
    /OPENROUTER_API_KEY is empty or not set: export OPENROUTER_API_KEY=<your key>/,
  );
  assert.match(apiKeyHint({ key: 'k', envVar: 'OPENROUTER_API_KEY' }), /Check the key in the environment variable OPENROUTER_API_KEY/);
  assert.match(apiKeyHint({ key: 'k', envVar: undefined }), /Check that the API key is right/);
  assert.match(apiKeyHint({ key: undefined, envVar: undefined }), /No API key was sent: .*--api-key-env VAR.*ZUNO_API_KEY/);
});

test('§9 models: the server explanation is found in the common error body shapes', () => {
  assert.equal(serverMessage('{"error":{"message":"Invalid API key","type":"invalid_request_error"}}'), 'Invalid API key');
  assert.equal(serverMessage('{"error":"model \\"x\\" not found, try pulling it first"}'), 'model "x" not found, try pulling it first');
  assert.equal(serverMessage('{"type":"error","error":{"type":"not_found_error","message":"model: x"}}'), 'model: x');
  assert.equal(serverMessage('{"message":"Unauthorized"}'), 'Unauthorized');
  assert.equal(serverMessage('  Bad Gateway \n'), 'Bad Gateway');
  assert.equal(serverMessage('x'.repeat(600)).length, 501);
});

test('§9 models: Retry-After is read as seconds or as a date, and bounded', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(retryAfterMs('2', now), 2000);
  assert.equal(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now), 5000);
  assert.equal(retryAfterMs('86400', now), 30_000);
  assert.equal(retryAfterMs(null, now), undefined);
  assert.equal(retryAfterMs('soon', now), undefined);
});

test('§9 models: endpoints join the base URL with or without a trailing slash', () => {
  assert.equal(endpoint('http://127.0.0.1:11434/v1', 'chat/completions'), 'http://127.0.0.1:11434/v1/chat/completions');
  assert.equal(endpoint('https://openrouter.ai/api/v1/', 'models'), 'https://openrouter.ai/api/v1/models');
});

test('issue 4 Select Model / §10: GET /models answers are parsed defensively, from a real loopback server', async () => {
  const { createServer } = await import('node:http');
  const bodies: Record<string, string> = {
    '/good/models': JSON.stringify({ data: [{ id: 'b' }, { id: 'a' }, { name: 'no id' }, 7] }),
    '/other/models': JSON.stringify({ models: [] }),
    '/null/models': 'null',
  };
  const seen: (string | undefined)[] = [];
  const server = createServer((request, response) => {
    seen.push(request.headers.authorization);
    const body = bodies[request.url ?? ''];
    if (body === undefined) response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  try {
    const signal = new AbortController().signal;
    assert.deepEqual(await listServerModels(fetch, `${base}/good`, { authorization: 'Bearer k' }, signal), ['b', 'a']);
    assert.equal(await listServerModels(fetch, `${base}/other`, {}, signal), undefined);
    assert.equal(await listServerModels(fetch, `${base}/null`, {}, signal), undefined);
    assert.equal(await listServerModels(fetch, `${base}/missing`, {}, signal), undefined);
    assert.equal(seen[0], 'Bearer k');
  } finally {
    server.close();
  }
});

test('issue 10 item 2: a context-length refusal is recognised in the words of OpenAI, Anthropic, vLLM and a 413; other 400s are not', async () => {
  const context = { baseUrl: 'http://127.0.0.1:1/v1', model: 'm', apiKey: { key: undefined, envVar: undefined } };
  const refusal = (status: number, body: unknown) => statusError(new Response(JSON.stringify(body), { status }), context);
  const overflows = [
    await refusal(400, {
      error: {
        message: "This model's maximum context length is 24000 tokens.",
        type: 'invalid_request_error',
        code: 'context_length_exceeded',
      },
    }),
    await refusal(400, {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' },
    }),
    await refusal(400, {
      object: 'error',
      message: "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens.",
    }),
    await refusal(413, { type: 'error', error: { type: 'request_too_large', message: 'Request too large' } }),
  ];
  for (const error of overflows) assert.equal(error.contextOverflow, true, error.message);
  const others = [
    await refusal(400, { error: { message: 'Invalid parameter: messages with role tool must answer a tool call' } }),
    await refusal(400, { error: { message: 'model "x" not found' } }),
    await refusal(500, { error: { message: 'context length exceeded' } }),
  ];
  for (const error of others) assert.equal(error.contextOverflow, false, error.message);
  assert.equal(saysContextOverflow('{"error":{"code":"context_length_exceeded"}}'), true, 'an error inside a stream');
});
