// The OpenAI-compatible provider against real HTTP servers on 127.0.0.1 (SPEC §9 "Models";
// issue 2 §10: streaming, tool results in call order, clear provider errors).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenAIProvider } from '../../../src/agent/openai';
import { ProviderError, type ApiKeySource, type ModelRequest } from '../../../src/agent/provider';
import type { TranscriptMessage } from '../../../src/core/transcript';
import { startScriptedOpenAI } from '../../support/scripted-openai';

const noKey: ApiKeySource = { key: undefined, envVar: undefined };
const fastRetry = { attempts: 3, baseDelayMs: 1 };

function provider(baseUrl: string, options: { model?: string; apiKey?: ApiKeySource; attempts?: number } = {}): OpenAIProvider {
  return new OpenAIProvider({
    baseUrl,
    model: options.model ?? 'scripted-model',
    apiKey: options.apiKey ?? noKey,
    retry: { ...fastRetry, attempts: options.attempts ?? fastRetry.attempts },
  });
}

const tools = [
  {
    name: 'read',
    description: 'Read a file.',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
    },
  },
];

function request(messages: readonly TranscriptMessage[], signal = new AbortController().signal): ModelRequest {
  return { system: 'You are a test.', messages, tools, signal };
}

/** A bare HTTP server for answers the scripted server does not produce. */
async function rawServer(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const servers: { close: () => Promise<void> }[] = [];
after(async () => {
  for (const server of servers) await server.close();
});

test('§9 models: text and tool calls stream in; arguments split across chunks are reassembled in call order', async () => {
  const server = await startScriptedOpenAI({
    script: [
      {
        text: 'Let me look at both files.',
        toolCalls: [
          { id: 'call_a', name: 'read', arguments: { path: 'src/a.ts' } },
          { id: 'call_b', name: 'read', arguments: { path: 'src/b.ts' } },
        ],
      },
    ],
  });
  servers.push(server);
  const deltas: string[] = [];
  const answer = await provider(server.baseUrl, { apiKey: { key: 'sk-test', envVar: 'TEST_KEY' } }).stream(
    request([{ role: 'user', content: 'hi' }]),
    (text) => deltas.push(text),
  );
  assert.equal(answer.text, 'Let me look at both files.');
  assert.ok(deltas.length > 1, 'the text arrives in several deltas');
  assert.equal(deltas.join(''), answer.text);
  assert.deepEqual(answer.toolCalls, [
    { id: 'call_a', name: 'read', arguments: '{"path":"src/a.ts"}' },
    { id: 'call_b', name: 'read', arguments: '{"path":"src/b.ts"}' },
  ]);
  assert.equal(answer.stopReason, 'tool_calls');

  const body = server.chatRequests()[0]?.body;
  assert.equal(body?.stream, true);
  assert.equal(body?.model, 'scripted-model');
  assert.deepEqual(body?.messages[0], { role: 'system', content: 'You are a test.' });
  assert.deepEqual(body?.tools?.[0], {
    type: 'function',
    function: {
      name: 'read',
      description: 'Read a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  });
  assert.equal(server.chatRequests()[0]?.headers.authorization, 'Bearer sk-test');
  assert.deepEqual(server.violations, []);
});

test('§9 models: tool results go back as role "tool" messages with tool_call_id, in call order', async () => {
  const server = await startScriptedOpenAI({ script: [{ text: 'Done.' }] });
  servers.push(server);
  const transcript: TranscriptMessage[] = [
    { role: 'user', content: 'read both' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [
        { id: 'c1', name: 'read', arguments: '{"path":"a"}' },
        { id: 'c2', name: 'read', arguments: '{"path":"b"}' },
      ],
    },
    { role: 'tool', callId: 'c1', toolName: 'read', content: 'A' },
    { role: 'tool', callId: 'c2', toolName: 'read', content: 'B' },
  ];
  const answer = await provider(server.baseUrl).stream(request(transcript), () => undefined);
  assert.equal(answer.stopReason, 'end');
  const messages = server.chatRequests()[0]?.body?.messages ?? [];
  assert.deepEqual(messages.slice(2), [
    {
      role: 'assistant',
      content: '',
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } },
        { id: 'c2', type: 'function', function: { name: 'read', arguments: '{"path":"b"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'A' },
    { role: 'tool', tool_call_id: 'c2', content: 'B' },
  ]);
  assert.equal(server.chatRequests()[0]?.headers.authorization, undefined, 'no key, no Authorization header');
  assert.deepEqual(server.violations, []);
});

test('§9 models: the scripted server itself flags and refuses a transcript whose results are missing or out of order', async () => {
  const server = await startScriptedOpenAI({ script: [{ text: 'x' }] });
  servers.push(server);
  const outOfOrder: TranscriptMessage[] = [
    { role: 'user', content: 'go' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [
        { id: 'c1', name: 'read', arguments: '{}' },
        { id: 'c2', name: 'read', arguments: '{}' },
      ],
    },
    { role: 'tool', callId: 'c2', toolName: 'read', content: 'B' },
    { role: 'user', content: 'next' },
  ];
  await assert.rejects(
    provider(server.baseUrl).stream(request(outOfOrder), () => undefined),
    /HTTP 400: Invalid parameter: messages with role 'tool' must be a response/,
  );
  assert.equal(server.violations.length, 2, server.violations.join('\n'));
  assert.match(server.violations[0] ?? '', /c2 arrived where the result of c1 was due/);
  assert.match(server.violations[1] ?? '', /tool calls c2 have no result/);
});

test('§9 models: HTTP 401 names the API key variable and says how to set it', async () => {
  const server = await startScriptedOpenAI({ script: [{ error: { status: 401, message: 'Incorrect API key provided' } }] });
  servers.push(server);
  const error = await provider(server.baseUrl, { apiKey: { key: undefined, envVar: 'OPENAI_API_KEY' } })
    .stream(request([{ role: 'user', content: 'hi' }]), () => undefined)
    .then(
      () => assert.fail('expected a ProviderError'),
      (failure: unknown) => failure,
    );
  assert.ok(error instanceof ProviderError);
  assert.equal(error.status, 401);
  assert.equal(error.transient, false);
  assert.match(error.message, /HTTP 401: Incorrect API key provided/);
  assert.match(error.message, /OPENAI_API_KEY is empty or not set: export OPENAI_API_KEY=<your key>/);
  assert.match(error.message, new RegExp(server.baseUrl.replace(/[.]/g, '\\.')));
  assert.equal(server.chatRequests().length, 1, 'an authentication failure is not retried');
});

test('§9 models: an unknown model (HTTP 404) is named, with the models the server offers', async () => {
  const server = await startScriptedOpenAI({
    script: [{ error: { status: 404, message: 'The model `gpt-9` does not exist' } }],
    models: ['llama3.2', 'qwen2.5-coder'],
  });
  servers.push(server);
  const error = await provider(server.baseUrl, { model: 'gpt-9' })
    .stream(request([{ role: 'user', content: 'hi' }]), () => undefined)
    .catch((failure: unknown) => failure);
  assert.ok(error instanceof ProviderError);
  assert.match(error.message, /The model "gpt-9" is not available at http:\/\/127\.0\.0\.1:\d+\/v1/);
  assert.match(error.message, /Available models: llama3\.2, qwen2\.5-coder\. Choose one with --model NAME/);
  assert.deepEqual(
    server.requests.map((recorded) => `${recorded.method} ${recorded.path}`),
    ['POST /v1/chat/completions', 'GET /v1/models'],
  );
});

test('§9 models: connection refused names the base URL and asks whether the server is running', async () => {
  const closed = await rawServer(() => undefined);
  await closed.close();
  const error = await provider(closed.baseUrl)
    .stream(request([{ role: 'user', content: 'hi' }]), () => undefined)
    .catch((failure: unknown) => failure);
  assert.ok(error instanceof ProviderError);
  assert.match(
    error.message,
    new RegExp(
      `Cannot connect to the model server at ${closed.baseUrl.replace(/[.]/g, '\\.')}: connection refused\\. Is the server running\\?`,
    ),
  );
  assert.match(error.message, /--base-url/);
});

test('§9 models: HTTP 503 is retried after a backoff and the next answer is used', async () => {
  const server = await startScriptedOpenAI({ script: [{ error: { status: 503, message: 'loading model' } }, { text: 'ready now' }] });
  servers.push(server);
  const answer = await provider(server.baseUrl).stream(request([{ role: 'user', content: 'hi' }]), () => undefined);
  assert.equal(answer.text, 'ready now');
  assert.equal(server.chatRequests().length, 2);
});

test('§9 models: HTTP 429 with Retry-After is retried; persistent 5xx gives up after the bounded attempts', async () => {
  const limited = await startScriptedOpenAI({
    script: [{ error: { status: 429, message: 'slow down', headers: { 'retry-after': '0' } } }, { text: 'ok' }],
  });
  servers.push(limited);
  assert.equal((await provider(limited.baseUrl).stream(request([{ role: 'user', content: 'hi' }]), () => undefined)).text, 'ok');

  const broken = await startScriptedOpenAI({ script: () => ({ error: { status: 500, message: 'internal' } }) });
  servers.push(broken);
  const error = await provider(broken.baseUrl, { attempts: 3 })
    .stream(request([{ role: 'user', content: 'hi' }]), () => undefined)
    .catch((failure: unknown) => failure);
  assert.ok(error instanceof ProviderError);
  assert.match(error.message, /HTTP 500: internal\. Gave up after 3 attempts; try again later\./);
  assert.equal(broken.chatRequests().length, 3);
});

test('§9 models: a stream that breaks off before it is complete is retried while nothing was shown', async () => {
  let requests = 0;
  const server = await rawServer((incoming, response) => {
    incoming.resume();
    requests++;
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    if (requests === 1) {
      // No text, no finish_reason, no [DONE]: the connection just ends.
      response.end('data: {"choices":[{"index":0,"delta":{"role":"assistant"}}]}\n\n');
      return;
    }
    response.end('data: {"choices":[{"index":0,"delta":{"content":"second try"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');
  });
  servers.push(server);
  const answer = await provider(server.baseUrl).stream(request([{ role: 'user', content: 'hi' }]), () => undefined);
  assert.equal(answer.text, 'second try');
  assert.equal(requests, 2);
});

test('§9 models: once text was shown, a broken stream is not retried (it would show the text twice)', async () => {
  let requests = 0;
  const server = await rawServer((incoming, response) => {
    incoming.resume();
    requests++;
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end('data: {"choices":[{"index":0,"delta":{"content":"half an ans"}}]}\n\n');
  });
  servers.push(server);
  const deltas: string[] = [];
  const error = await provider(server.baseUrl)
    .stream(request([{ role: 'user', content: 'hi' }]), (text) => deltas.push(text))
    .catch((failure: unknown) => failure);
  assert.ok(error instanceof ProviderError);
  assert.match(error.message, /closed the stream before the answer was complete/);
  assert.deepEqual(deltas, ['half an ans']);
  assert.equal(requests, 1);
});

test('§9 models: servers that omit tool-call indexes, send object arguments, or ignore stream:true still work', async () => {
  const server = await rawServer((incoming, response) => {
    incoming.resume();
    if (incoming.headers['x-case'] === 'json') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: null,
                tool_calls: [{ id: 'j1', type: 'function', function: { name: 'read', arguments: '{"path":"x"}' } }],
              },
              finish_reason: 'tool_calls',
            },
          ],
        }),
      );
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunks = [
      { choices: [{ index: 0, delta: { tool_calls: [{ id: 'n1', type: 'function', function: { name: 'read', arguments: '{"pa' } }] } }] },
      { choices: [{ index: 0, delta: { tool_calls: [{ function: { arguments: 'th":"a"}' } }] } }] },
      {
        choices: [
          { index: 0, delta: { tool_calls: [{ id: 'n2', type: 'function', function: { name: 'read', arguments: { path: 'b' } } }] } },
        ],
      },
      { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    ];
    response.end(`${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join('')}data: [DONE]\r\n\r\n`);
  });
  servers.push(server);
  const streamed = await provider(server.baseUrl).stream(request([{ role: 'user', content: 'hi' }]), () => undefined);
  assert.deepEqual(streamed.toolCalls, [
    { id: 'n1', name: 'read', arguments: '{"path":"a"}' },
    { id: 'n2', name: 'read', arguments: '{"path":"b"}' },
  ]);
  assert.equal(streamed.stopReason, 'tool_calls', 'tool calls mean tool_calls, whatever finish_reason said');

  const jsonProvider = new OpenAIProvider({
    baseUrl: server.baseUrl,
    model: 'm',
    apiKey: noKey,
    retry: fastRetry,
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-case': 'json' } }),
  });
  const whole = await jsonProvider.stream(request([{ role: 'user', content: 'hi' }]), () => undefined);
  assert.deepEqual(whole.toolCalls, [{ id: 'j1', name: 'read', arguments: '{"path":"x"}' }]);
});

test('§9 models: an error object sent mid-stream becomes a ProviderError with the server text', async () => {
  const server = await rawServer((incoming, response) => {
    incoming.resume();
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end('data: {"error":{"message":"context length exceeded","code":400}}\n\n');
  });
  servers.push(server);
  const error = await provider(server.baseUrl, { attempts: 1 })
    .stream(request([{ role: 'user', content: 'hi' }]), () => undefined)
    .catch((failure: unknown) => failure);
  assert.ok(error instanceof ProviderError);
  assert.match(error.message, /reported an error mid-answer: .*context length exceeded/);
});

test('§9 models: aborting the signal stops a stalled stream at once', async () => {
  const server = await startScriptedOpenAI({ script: [{ text: 'thinking…', stall: true }] });
  servers.push(server);
  const controller = new AbortController();
  const pending = provider(server.baseUrl).stream(request([{ role: 'user', content: 'hi' }], controller.signal), () => controller.abort());
  await assert.rejects(pending, (error: unknown) => error instanceof Error && error.name === 'AbortError');
  assert.equal(server.chatRequests().length, 1, 'a cancelled request is not retried');
});

test('issue 10 item 1: the provider asks for usage with stream_options and reads the final usage chunk, cached tokens included', async () => {
  const server = await startScriptedOpenAI({
    script: [{ text: 'Counted.' }],
    usage: () => ({ prompt_tokens: 1234, completion_tokens: 56, cached_tokens: 1024 }),
  });
  servers.push(server);
  const answer = await provider(server.baseUrl).stream(request([{ role: 'user', content: 'hi' }]), () => undefined);
  assert.equal(answer.text, 'Counted.');
  assert.deepEqual(answer.usage, { inputTokens: 1234, outputTokens: 56, cachedTokens: 1024 });
  assert.deepEqual(server.chatRequests()[0]?.body?.stream_options, { include_usage: true });
  assert.deepEqual(server.violations, []);
});

test('issue 10 item 1: a server that refuses stream_options is asked again without it, and never again with it', async () => {
  const server = await startScriptedOpenAI({ script: [{ text: 'One.' }, { text: 'Two.' }], rejectStreamOptions: true });
  servers.push(server);
  const client = provider(server.baseUrl, { attempts: 1 });
  const first = await client.stream(request([{ role: 'user', content: 'hi' }]), () => undefined);
  const second = await client.stream(request([{ role: 'user', content: 'again' }]), () => undefined);
  assert.deepEqual([first.text, second.text], ['One.', 'Two.']);
  assert.equal(first.usage, undefined, 'no usage from such a server: the loop estimates');
  assert.deepEqual(
    server.requests.filter((recorded) => recorded.method === 'POST').map((recorded) => recorded.body?.stream_options),
    [{ include_usage: true }, undefined, undefined],
  );
  assert.deepEqual(server.violations, []);
});

test('issue 10 item 1: a 400 about something else is not mistaken for a refused stream_options', async () => {
  const server = await startScriptedOpenAI({ script: [{ error: { status: 400, message: 'messages: too many' } }] });
  servers.push(server);
  await assert.rejects(
    provider(server.baseUrl).stream(request([{ role: 'user', content: 'hi' }]), () => undefined),
    /HTTP 400: messages: too many/,
  );
  assert.equal(server.chatRequests().length, 1);
});
