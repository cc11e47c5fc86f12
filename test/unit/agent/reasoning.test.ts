// Reasoning models (issue 10 item 4): OpenAI-compatible `reasoning_content` deltas are kept on the
// assistant message and never sent back; Anthropic thinking blocks go back unchanged, signatures
// included, on the turn that carries the tool results, which the scripted Anthropic server checks
// as the API does (it refuses a changed or unsigned thinking block); `model.reasoning_effort` and
// `model.max_output_tokens` reach both wire formats, and nothing is sent when they are unset.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnthropicProvider, outputSettings } from '../../../src/agent/anthropic';
import { OpenAIProvider, wantsMaxCompletionTokens } from '../../../src/agent/openai';
import type { HttpProviderOptions, ModelProvider } from '../../../src/agent/provider';
import { createRuntime } from '../../../src/agent/runtime';
import { parseConfig } from '../../../src/core/config';
import type { ZunoEvent } from '../../../src/core/events';
import type { ThinkingBlock, TranscriptMessage } from '../../../src/core/transcript';
import { createNodeHost } from '../../../src/hosts/node/host';
import { builtinToolRegistrations } from '../../../src/tools/index';
import { startScriptedAnthropic } from '../../support/scripted-anthropic';
import { startScriptedOpenAI } from '../../support/scripted-openai';

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const options = (baseUrl: string, extra: Partial<HttpProviderOptions> = {}): HttpProviderOptions => ({
  baseUrl,
  model: 'scripted-model',
  apiKey: { key: 'k', envVar: undefined },
  retry: { attempts: 1, baseDelayMs: 1 },
  ...extra,
});

/** Runs the real loop with the read tool over a workspace holding a.txt; returns the stored transcript. */
async function runWithRead(
  provider: ModelProvider,
): Promise<{ reason: string; error?: Error; messages: TranscriptMessage[]; events: ZunoEvent[] }> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-reasoning-')));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const workspace = join(root, 'workspace');
  const stateDir = join(root, 'state');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'a.txt'), 'alpha\n');
  const runtime = await createRuntime({
    config: parseConfig({}),
    workspaceRoot: workspace,
    stateDir,
    host: createNodeHost({ stateDir, approvals: { request: async () => ({ approved: true }) } }),
    registrations: builtinToolRegistrations().filter((registration) => registration.tool.name === 'read'),
  });
  cleanups.push(() => runtime.close());
  const events: ZunoEvent[] = [];
  runtime.events.on((event) => events.push(event));
  const result = await runtime.run({
    provider,
    prompt: 'read a.txt',
    signal: new AbortController().signal,
  });
  return {
    reason: result.reason,
    ...(result.error ? { error: result.error } : {}),
    messages: runtime.store.messages(result.sessionId),
    events,
  };
}

test('issue 10 item 4: Anthropic thinking blocks go back unchanged, signature included, first in the assistant turn of the tool results', async () => {
  const server = await startScriptedAnthropic({
    script: [
      { reasoning: 'The user wants a.txt; read it first.', toolCalls: [{ id: 'toolu_r1', name: 'read', arguments: { path: 'a.txt' } }] },
      { text: 'It says alpha.' },
    ],
  });
  cleanups.push(() => server.close());
  const run = await runWithRead(new AnthropicProvider(options(server.baseUrl, { reasoningEffort: 'medium' })));
  assert.equal(run.reason, 'done', run.error?.message);
  assert.deepEqual(server.violations, []);

  const [first, second] = server.requests;
  assert.deepEqual(first?.body.thinking, { type: 'enabled', budget_tokens: 8192 });
  assert.equal(first?.body.max_tokens, 8192 + 4096, 'max_tokens leaves room for the answer above the thinking budget');
  const assistantTurn = second?.body.messages.find((message) => message.role === 'assistant');
  const blocks = typeof assistantTurn?.content === 'string' ? [] : (assistantTurn?.content ?? []);
  assert.equal(blocks[0]?.type, 'thinking');
  assert.equal(blocks[0]?.thinking, 'The user wants a.txt; read it first.');
  assert.match(blocks[0]?.signature ?? '', /^sig-/);
  assert.equal(blocks[1]?.type, 'tool_use');

  const stored = run.messages.find((message) => message.role === 'assistant');
  assert.ok(stored?.role === 'assistant');
  assert.deepEqual(stored.thinking, [
    { type: 'thinking', thinking: 'The user wants a.txt; read it first.', signature: blocks[0]?.signature },
  ]);
  assert.equal(stored.reasoning, 'The user wants a.txt; read it first.');
});

test('issue 10 item 4: the scripted Anthropic server refuses a tool-result turn whose thinking lost its signature, was changed, or was dropped', async () => {
  const server = await startScriptedAnthropic({
    script: [{ reasoning: 'Think.', toolCalls: [{ id: 'toolu_s1', name: 'read', arguments: { path: 'a.txt' } }] }],
  });
  cleanups.push(() => server.close());
  const provider = new AnthropicProvider(options(server.baseUrl, { reasoningEffort: 'low' }));
  const answer = await provider.stream(
    { system: 's', messages: [{ role: 'user', content: 'go' }], tools: [], signal: new AbortController().signal },
    () => undefined,
  );
  const signed = answer.thinking?.[0];
  assert.ok(signed?.type === 'thinking' && signed.signature.length > 0);
  const withThinking = (thinking: readonly ThinkingBlock[] | undefined): TranscriptMessage[] => [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: '', toolCalls: answer.toolCalls, ...(thinking ? { thinking } : {}) },
    { role: 'tool', callId: 'toolu_s1', toolName: 'read', content: 'alpha' },
  ];
  const send = (messages: TranscriptMessage[]) =>
    provider.stream({ system: 's', messages, tools: [], signal: new AbortController().signal }, () => undefined);
  await assert.rejects(send(withThinking([{ ...signed, signature: '' }])), /thinking block without its signature/);
  await assert.rejects(send(withThinking([{ ...signed, thinking: 'Think harder.' }])), /Invalid `signature` in `thinking` block/);
  await assert.rejects(send(withThinking(undefined)), /must start with a thinking block/);
});

test('issue 10 item 4: without model.reasoning_effort no thinking is asked for; model.max_output_tokens sets max_tokens', () => {
  assert.deepEqual(outputSettings(undefined, undefined), { max_tokens: 8192 });
  assert.deepEqual(outputSettings(32_000, undefined), { max_tokens: 32_000 });
  assert.deepEqual(outputSettings(32_000, 'high'), { max_tokens: 32_000, thinking: { type: 'enabled', budget_tokens: 24_576 } });
  assert.deepEqual(outputSettings(1000, 'low'), { max_tokens: 2048 + 4096, thinking: { type: 'enabled', budget_tokens: 2048 } });
});

test('issue 10 item 4: OpenAI-compatible reasoning_content is kept on the stored assistant message and not sent back; effort and limit are sent only when set', async () => {
  const server = await startScriptedOpenAI({
    script: [
      { reasoning: 'Need the file first.', toolCalls: [{ id: 'c1', name: 'read', arguments: { path: 'a.txt' } }] },
      { text: 'alpha' },
    ],
  });
  cleanups.push(() => server.close());
  const run = await runWithRead(new OpenAIProvider(options(server.baseUrl, { reasoningEffort: 'high', maxOutputTokens: 4000 })));
  assert.equal(run.reason, 'done', run.error?.message);
  assert.deepEqual(server.violations, []);
  const stored = run.messages.find((message) => message.role === 'assistant');
  assert.equal(stored?.role === 'assistant' && stored.reasoning, 'Need the file first.');
  assert.deepEqual(
    run.events.flatMap((event) => (event.type === 'assistant-message' ? [event.reasoning ?? null] : [])),
    ['Need the file first.', null],
    'the answer event carries its reasoning, for the chat to show collapsed',
  );
  const [first, second] = server.chatRequests();
  const firstBody = first?.body as unknown as Record<string, unknown>;
  assert.equal(firstBody['reasoning_effort'], 'high');
  assert.equal(firstBody['max_tokens'], 4000);
  assert.doesNotMatch(
    JSON.stringify(second?.body?.messages),
    /Need the file first|reasoning_content|"reasoning"/,
    'the reasoning is not resent',
  );

  const plain = await startScriptedOpenAI({ script: [{ text: 'hi' }] });
  cleanups.push(() => plain.close());
  await new OpenAIProvider(options(plain.baseUrl)).stream(
    { system: 's', messages: [{ role: 'user', content: 'hi' }], tools: [], signal: new AbortController().signal },
    () => undefined,
  );
  const plainBody = plain.chatRequests()[0]?.body as unknown as Record<string, unknown>;
  assert.ok(
    !('reasoning_effort' in plainBody) && !('max_tokens' in plainBody),
    'unset settings are not sent: some servers refuse unknown fields',
  );
});

test('issue 10: o-series and gpt-5 models get max_completion_tokens (the scripted server refuses max_tokens for them as OpenAI does); other models keep max_tokens', async () => {
  assert.equal(wantsMaxCompletionTokens('o1'), true);
  assert.equal(wantsMaxCompletionTokens('o3-mini'), true);
  assert.equal(wantsMaxCompletionTokens('openai/o4-mini'), true);
  assert.equal(wantsMaxCompletionTokens('gpt-5-mini'), true);
  assert.equal(wantsMaxCompletionTokens('gpt-4o'), false);
  assert.equal(wantsMaxCompletionTokens('qwen2.5-coder:7b'), false);
  assert.equal(wantsMaxCompletionTokens('olmo2'), false);

  const ask = (provider: OpenAIProvider) =>
    provider.stream(
      { system: 's', messages: [{ role: 'user', content: 'hi' }], tools: [], signal: new AbortController().signal },
      () => undefined,
    );
  const server = await startScriptedOpenAI({ script: [{ text: 'one' }, { text: 'two' }] });
  cleanups.push(() => server.close());
  const reasoning = await ask(new OpenAIProvider(options(server.baseUrl, { model: 'o3-mini', maxOutputTokens: 5000 })));
  assert.equal(reasoning.text, 'one');
  const oBody = server.chatRequests()[0]?.body as unknown as Record<string, unknown>;
  assert.equal(oBody['max_completion_tokens'], 5000);
  assert.ok(!('max_tokens' in oBody));
  await ask(new OpenAIProvider(options(server.baseUrl, { model: 'gpt-4o', maxOutputTokens: 5000 })));
  const plainBody = server.chatRequests()[1]?.body as unknown as Record<string, unknown>;
  assert.equal(plainBody['max_tokens'], 5000);
  assert.ok(!('max_completion_tokens' in plainBody));
  assert.deepEqual(server.violations, []);
});

test('issue 10: a deployment whose name hides a reasoning model is retried once with max_completion_tokens after the server refuses max_tokens', async () => {
  const server = await startScriptedOpenAI({ script: [{ text: 'answered' }] });
  cleanups.push(() => server.close());
  const sent: Record<string, unknown>[] = [];
  const wrapped = new OpenAIProvider(
    options(server.baseUrl, {
      model: 'prod-reasoner',
      maxOutputTokens: 700,
      fetch: async (input, init) => {
        const body = JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as Record<string, unknown>;
        sent.push(body);
        // What the deployment serves is an o-series model: the server sees that name.
        return fetch(input, { ...init, body: JSON.stringify({ ...body, model: 'o3' }) });
      },
    }),
  );
  const answer = await wrapped.stream(
    { system: 's', messages: [{ role: 'user', content: 'hi' }], tools: [], signal: new AbortController().signal },
    () => undefined,
  );
  assert.equal(answer.text, 'answered');
  assert.deepEqual(
    sent.map((body) => ('max_tokens' in body ? 'max_tokens' : 'max_completion_tokens' in body ? 'max_completion_tokens' : 'none')),
    ['max_tokens', 'max_completion_tokens'],
  );
  assert.deepEqual(server.violations, []);
});
