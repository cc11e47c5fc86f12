// Pasted images (issue 14): sent as an OpenAI image_url data URL or an Anthropic base64 image block
// to a model set up to take them (model.images), through the real loop and store; refused before
// any request, naming the setting, otherwise. The scripted servers check the wire format as the
// APIs do and refuse images for a model without vision.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnthropicProvider } from '../../../src/agent/anthropic';
import { imageRefusal } from '../../../src/agent/images';
import { ImagesRefusedError, type QueuedPrompt } from '../../../src/agent/loop';
import { OpenAIProvider } from '../../../src/agent/openai';
import type { HttpProviderOptions, ModelProvider } from '../../../src/agent/provider';
import { createRuntime, type Runtime } from '../../../src/agent/runtime';
import { parseConfig } from '../../../src/core/config';
import type { ImagePart } from '../../../src/core/transcript';
import { createNodeHost } from '../../../src/hosts/node/host';
import { startScriptedAnthropic } from '../../support/scripted-anthropic';
import { startScriptedOpenAI } from '../../support/scripted-openai';

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A 1×1 PNG. */
const PIXEL: ImagePart = {
  mediaType: 'image/png',
  data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
};

async function runtimeWith(config: Record<string, unknown>): Promise<Runtime> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-images-')));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const workspace = join(root, 'workspace');
  const stateDir = join(root, 'state');
  mkdirSync(workspace);
  const runtime = await createRuntime({
    config: parseConfig(config),
    workspaceRoot: workspace,
    stateDir,
    host: createNodeHost({ stateDir, approvals: { request: async () => ({ approved: true }) } }),
    registrations: [],
  });
  cleanups.push(() => runtime.close());
  return runtime;
}

const options = (baseUrl: string, model: string): HttpProviderOptions => ({
  baseUrl,
  model,
  apiKey: { key: 'k', envVar: undefined },
  retry: { attempts: 1, baseDelayMs: 1 },
});

const ask = (runtime: Runtime, provider: ModelProvider, images: readonly ImagePart[]) =>
  runtime.run({ provider, prompt: 'What is in this picture?', images, signal: new AbortController().signal });

test('issue 14: with model.images on, a pasted image reaches an OpenAI-compatible server as an image_url data URL beside the text, and is kept in the stored transcript', async () => {
  const server = await startScriptedOpenAI({ script: [{ text: 'A single pixel.' }] });
  cleanups.push(() => server.close());
  const runtime = await runtimeWith({ model: { name: 'gpt-4o', images: true } });
  const result = await ask(runtime, new OpenAIProvider(options(server.baseUrl, 'gpt-4o')), [PIXEL]);
  assert.equal(result.reason, 'done', result.error?.message);
  assert.deepEqual(server.imagesSeen, [['image/png']]);
  const user = server.chatRequests()[0]?.body?.messages.find((message) => message.role === 'user');
  assert.deepEqual(user?.content, [
    { type: 'text', text: 'What is in this picture?' },
    { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL.data}` } },
  ]);
  const stored = runtime.store.messages(result.sessionId).find((message) => message.role === 'user');
  assert.deepEqual(stored?.role === 'user' ? stored.images : undefined, [PIXEL]);
  assert.deepEqual(server.violations, []);
});

test('issue 14: with model.images on, Anthropic gets the image as a base64 image block before the text', async () => {
  const server = await startScriptedAnthropic({ script: [{ text: 'A single pixel.' }] });
  cleanups.push(() => server.close());
  const runtime = await runtimeWith({ model: { provider: 'anthropic', name: 'claude-sonnet-4-5', images: true } });
  const result = await ask(runtime, new AnthropicProvider(options(server.baseUrl, 'claude-sonnet-4-5')), [PIXEL, PIXEL]);
  assert.equal(result.reason, 'done', result.error?.message);
  assert.deepEqual(server.imagesSeen, [['image/png', 'image/png']]);
  const content = server.requests[0]?.body.messages[0]?.content;
  assert.ok(content !== undefined && typeof content !== 'string', 'the user turn is a list of blocks');
  assert.deepEqual(
    content.map((block) => block.type),
    ['image', 'image', 'text'],
  );
  assert.deepEqual(content[0]?.source, { type: 'base64', media_type: 'image/png', data: PIXEL.data });
  assert.deepEqual(server.violations, []);
});

test('issue 14: without model.images the message is refused before any request, naming the setting; VS Code models are refused too', async () => {
  const server = await startScriptedOpenAI({ script: [] });
  cleanups.push(() => server.close());
  const runtime = await runtimeWith({ model: { name: 'qwen2.5-coder:7b' } });
  await assert.rejects(ask(runtime, new OpenAIProvider(options(server.baseUrl, 'qwen2.5-coder:7b')), [PIXEL]), (error: unknown) => {
    assert.ok(error instanceof ImagesRefusedError);
    assert.match(error.message, /qwen2\.5-coder:7b is not set up to take images.*model\.images.*zuno\.model\.images/);
    return true;
  });
  assert.equal(server.requests.length, 0, 'nothing was sent');
  assert.match(imageRefusal(parseConfig({ model: { provider: 'vscode-lm', images: true } }), 2) ?? '', /2 images.*text only/);
  assert.equal(imageRefusal(parseConfig({}), 0), undefined, 'a message without images is never refused');
});

test('issue 14: the scripted servers refuse what the APIs refuse: image parts for a model without vision, a malformed data URL, a bad Anthropic media type', async () => {
  const blind = await startScriptedOpenAI({ script: [], images: false });
  cleanups.push(() => blind.close());
  const runtime = await runtimeWith({ model: { name: 'gpt-3.5-turbo', images: true } });
  const refused = await ask(runtime, new OpenAIProvider(options(blind.baseUrl, 'gpt-3.5-turbo')), [PIXEL]);
  assert.equal(refused.reason, 'error');
  assert.match(refused.error?.message ?? '', /image_url is only supported by certain models/);

  const strict = await startScriptedOpenAI({ script: [] });
  cleanups.push(() => strict.close());
  const malformed = await ask(runtime, new OpenAIProvider(options(strict.baseUrl, 'gpt-4o')), [
    { mediaType: 'image/png', data: 'not base64!' },
  ]);
  assert.match(malformed.error?.message ?? '', /Invalid image URL/);

  const anthropic = await startScriptedAnthropic({ script: [] });
  cleanups.push(() => anthropic.close());
  const claude = await runtimeWith({ model: { provider: 'anthropic', name: 'claude', images: true } });
  const wrongType = { mediaType: 'image/bmp', data: PIXEL.data } as unknown as ImagePart; // what a careless client might send
  const bad = await ask(claude, new AnthropicProvider(options(anthropic.baseUrl, 'claude')), [wrongType]);
  assert.match(bad.error?.message ?? '', /Input should be 'image\/jpeg'/);
});

test('issue 14: a message queued with an image during a run reaches the model at the next step with its image; with model.images off since, the text goes alone and a warning names the setting', async () => {
  const server = await startScriptedOpenAI({ script: [{ text: 'First answer.' }, { text: 'I see the pixel.' }] });
  cleanups.push(() => server.close());
  const runtime = await runtimeWith({ model: { name: 'gpt-4o', images: true } });
  const queue: (readonly QueuedPrompt[])[] = [[], [{ text: 'and this one?', images: [PIXEL] }]];
  const result = await runtime.run({
    provider: new OpenAIProvider(options(server.baseUrl, 'gpt-4o')),
    prompt: 'hello',
    takeQueuedMessages: () => queue.shift() ?? [],
    signal: new AbortController().signal,
  });
  assert.equal(result.reason, 'done', result.error?.message);
  assert.deepEqual(server.imagesSeen, [[], ['image/png']], 'the second request carries the queued image');
  const stored = runtime.store.messages(result.sessionId).filter((message) => message.role === 'user');
  assert.deepEqual(
    stored.map((message) => [message.role === 'user' ? message.content : '', message.role === 'user' ? message.images?.length : 0]),
    [
      ['hello', undefined],
      ['and this one?', 1],
    ],
  );

  const off = await startScriptedOpenAI({ script: [{ text: 'First answer.' }, { text: 'Text only.' }] });
  cleanups.push(() => off.close());
  const blind = await runtimeWith({ model: { name: 'qwen2.5-coder:7b' } });
  const notices: string[] = [];
  blind.events.on((event) => {
    if (event.type === 'notice' && event.level === 'warning') notices.push(event.text);
  });
  const later: (readonly QueuedPrompt[])[] = [[], [{ text: 'and this one?', images: [PIXEL] }]];
  const textOnly = await blind.run({
    provider: new OpenAIProvider(options(off.baseUrl, 'qwen2.5-coder:7b')),
    prompt: 'hello',
    takeQueuedMessages: () => later.shift() ?? [],
    signal: new AbortController().signal,
  });
  assert.equal(textOnly.reason, 'done', textOnly.error?.message);
  assert.deepEqual(off.imagesSeen, [[], []], 'no image went to a model not set up for them');
  assert.equal(off.chatRequests().at(-1)?.body?.messages.at(-1)?.content, 'and this one?');
  assert.equal(notices.length, 1);
  assert.match(notices[0] ?? '', /^Zuno sent this message without its images: .*zuno\.model\.images/);
});
