// Where the context window comes from (issue 10 item 1): the config, then the server (real
// loopback servers answering like OpenRouter, LM Studio, vLLM and Ollama), then a table, then a
// 32k guess that says it is one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DEFAULT_CONTEXT_WINDOW,
  isLocalBaseUrl,
  knownContextWindow,
  modelsListWindow,
  ollamaWindow,
  resolveContextWindow,
} from '../../../src/agent/context-window';
import { OpenAIProvider } from '../../../src/agent/openai';

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly body: string;
}

async function server(routes: Readonly<Record<string, unknown>>): Promise<{ baseUrl: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const http = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const key = `${request.method} ${request.url}`;
      seen.push({ method: request.method ?? '', path: request.url ?? '', body });
      const answer = routes[key];
      if (answer === undefined) response.writeHead(404).end('not found');
      else response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    seen,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

const signal = (): AbortSignal => new AbortController().signal;

test('issue 10 item 1: /v1/models context_length (LM Studio, OpenRouter) and max_model_len (vLLM) are read for the model in use', async (context) => {
  const models = await server({
    'GET /v1/models': {
      data: [
        { id: 'other', context_length: 4096 },
        { id: 'lmstudio-model', context_length: 16_384 },
        { id: 'vllm-model', max_model_len: 24_000 },
        // OpenRouter: the chosen provider may serve less than the model supports.
        { id: 'router/model', context_length: 200_000, top_provider: { context_length: 64_000 } },
        { id: 'silent-model' },
        'garbage',
      ],
    },
  });
  context.after(models.close);
  assert.equal(await modelsListWindow(fetch, models.baseUrl, 'lmstudio-model', {}, signal()), 16_384);
  assert.equal(await modelsListWindow(fetch, models.baseUrl, 'vllm-model', {}, signal()), 24_000);
  assert.equal(await modelsListWindow(fetch, models.baseUrl, 'router/model', {}, signal()), 64_000);
  assert.equal(await modelsListWindow(fetch, models.baseUrl, 'silent-model', {}, signal()), undefined);
  assert.equal(await modelsListWindow(fetch, models.baseUrl, 'absent', {}, signal()), undefined);
});

test("issue 10 item 1: Ollama's /api/show gives the model's context_length, and a Modelfile num_ctx (what it really loads) wins", async (context) => {
  const ollama = await server({
    'GET /api/version': { version: '0.12.0' },
    'POST /api/show': { model_info: { 'general.architecture': 'qwen2', 'qwen2.context_length': 32_768 }, parameters: 'stop "<|im_end|>"' },
  });
  context.after(ollama.close);
  assert.equal(await ollamaWindow(fetch, ollama.baseUrl, 'qwen2.5-coder:7b', signal()), 32_768);
  assert.deepEqual(JSON.parse(ollama.seen.find((entry) => entry.path === '/api/show')?.body ?? '{}'), { model: 'qwen2.5-coder:7b' });

  const tuned = await server({
    'GET /api/version': { version: '0.12.0' },
    'POST /api/show': { model_info: { 'llama.context_length': 131_072 }, parameters: 'num_keep 24\nnum_ctx 8192\n' },
  });
  context.after(tuned.close);
  assert.equal(await ollamaWindow(fetch, tuned.baseUrl, 'llama3.1', signal()), 8192);
});

test('issue 10 item 1: a server that does not answer /api/version like Ollama never receives a POST /api/show', async (context) => {
  const plain = await server({ 'GET /v1/models': { data: [{ id: 'm' }] } });
  context.after(plain.close);
  assert.equal(await ollamaWindow(fetch, plain.baseUrl, 'm', signal()), undefined);
  assert.deepEqual(
    plain.seen.map((entry) => `${entry.method} ${entry.path}`),
    ['GET /api/version'],
  );
});

test('issue 10 item 1: the OpenAI provider asks /v1/models first, then Ollama, and only once', async (context) => {
  const ollama = await server({
    'GET /v1/models': { object: 'list', data: [{ id: 'qwen3:8b', object: 'model', owned_by: 'library' }] },
    'GET /api/version': { version: '0.12.0' },
    'POST /api/show': { model_info: { 'qwen3.context_length': 40_960 } },
  });
  context.after(ollama.close);
  const provider = new OpenAIProvider({
    baseUrl: ollama.baseUrl,
    model: 'qwen3:8b',
    apiKey: { key: undefined, envVar: undefined },
    retry: { attempts: 1, baseDelayMs: 1 },
  });
  assert.equal(await provider.serverContextWindow(signal()), 40_960);
  assert.equal(await provider.serverContextWindow(signal()), 40_960);
  assert.deepEqual(
    ollama.seen.map((entry) => `${entry.method} ${entry.path}`),
    ['GET /v1/models', 'GET /api/version', 'POST /api/show'],
  );
  assert.equal(provider.local, true);
});

test('issue 10 item 1: the config wins, then the server, then the table, then a 32k default marked as such', () => {
  assert.deepEqual(resolveContextWindow(50_000, 8192, 'gpt-4o'), { tokens: 50_000, source: 'config' });
  assert.deepEqual(resolveContextWindow(undefined, 8192, 'gpt-4o'), { tokens: 8192, source: 'server' });
  assert.deepEqual(resolveContextWindow(undefined, undefined, 'gpt-4o'), { tokens: 128_000, source: 'table' });
  assert.deepEqual(resolveContextWindow(undefined, undefined, 'my-finetune'), { tokens: DEFAULT_CONTEXT_WINDOW, source: 'default' });
  assert.deepEqual(resolveContextWindow(undefined, undefined, undefined), { tokens: 32_768, source: 'default' });
});

test('issue 10 item 1: the table matches by the longest prefix, after an OpenRouter vendor part', () => {
  assert.equal(knownContextWindow('gpt-4o-mini-2024-07-18'), 128_000);
  assert.equal(knownContextWindow('gpt-4'), 8192);
  assert.equal(knownContextWindow('gpt-4.1-mini'), 1_047_576);
  assert.equal(knownContextWindow('anthropic/claude-sonnet-4'), 200_000);
  assert.equal(knownContextWindow('Qwen2.5-Coder-7B-Instruct'), 32_768);
  assert.equal(knownContextWindow('unknown-model'), undefined);
});

test('issue 10 item 1: a local base URL is recognised, a remote one is not', () => {
  assert.equal(isLocalBaseUrl('http://127.0.0.1:11434/v1'), true);
  assert.equal(isLocalBaseUrl('http://localhost:1234/v1'), true);
  assert.equal(isLocalBaseUrl('http://[::1]:8000/v1'), true);
  assert.equal(isLocalBaseUrl('https://api.openai.com/v1'), false);
  assert.equal(isLocalBaseUrl('not a url'), false);
});
