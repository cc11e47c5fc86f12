// Usage accounting in the agent loop (issue 10 item 1): every model request's tokens are
// persisted in the store and emitted as a `usage` event with the context window and the
// estimate of the next request; servers without usage are estimated and say so; a local
// server whose window is smaller than the request is warned about once.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { AgentRunResult } from '../../../src/agent/loop';
import { OpenAIProvider } from '../../../src/agent/openai';
import { createRuntime } from '../../../src/agent/runtime';
import { parseConfig, type ZunoConfigInput } from '../../../src/core/config';
import type { ZunoEvent } from '../../../src/core/events';
import { defineTool } from '../../../src/core/tool';
import { createNodeHost } from '../../../src/hosts/node/host';
import type { ModelRequestRow } from '../../../src/store/store';
import { startScriptedOpenAI, type ScriptedOpenAIOptions, type ScriptedOpenAIServer } from '../../support/scripted-openai';

const OUTPUT = 'o'.repeat(4000);

const bigTool = defineTool({
  name: 'big',
  description: 'Returns 4000 characters.',
  parameters: z.strictObject({}),
  declarations: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' },
  run: async () => ({ output: OUTPUT }),
});

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface Run extends AgentRunResult {
  readonly events: ZunoEvent[];
  readonly rows: ModelRequestRow[];
  readonly server: ScriptedOpenAIServer;
}

async function run(server: Omit<ScriptedOpenAIOptions, 'script'>, config: ZunoConfigInput = {}, prompt = 'go'): Promise<Run> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-usage-')));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const workspace = join(root, 'workspace');
  mkdirSync(workspace);
  const scripted = await startScriptedOpenAI({
    ...server,
    script: [{ toolCalls: [{ id: 'b1', name: 'big', arguments: {} }] }, { text: 'Done.' }],
  });
  cleanups.push(() => scripted.close());
  const stateDir = join(root, 'state');
  const runtime = await createRuntime({
    config: parseConfig(config),
    workspaceRoot: workspace,
    stateDir,
    host: createNodeHost({ stateDir, approvals: { request: async () => ({ approved: true }) } }),
    registrations: [{ tool: bigTool, defaultSurface: true }],
  });
  cleanups.push(() => runtime.close());
  const provider = new OpenAIProvider({
    baseUrl: scripted.baseUrl,
    model: 'scripted-model',
    apiKey: { key: undefined, envVar: undefined },
    retry: { attempts: 1, baseDelayMs: 1 },
  });
  const events: ZunoEvent[] = [];
  runtime.events.on((event) => events.push(event));
  const result = await runtime.run({
    provider,
    prompt,
    signal: new AbortController().signal,
  });
  return { ...result, events, rows: runtime.store.modelRequests(result.sessionId), server: scripted };
}

const usageEvents = (events: readonly ZunoEvent[]) =>
  events.filter((event): event is Extract<ZunoEvent, { type: 'usage' }> => event.type === 'usage');

test('issue 10 item 1: reported usage is persisted per request and emitted with the server-stated window and the next request estimate', async () => {
  const reported = [
    { prompt_tokens: 800, completion_tokens: 12, cached_tokens: 512 },
    { prompt_tokens: 1830, completion_tokens: 3 },
  ];
  const result = await run({
    contextWindow: 24_000,
    usage: (_request, index) => reported[index] ?? { prompt_tokens: 0, completion_tokens: 0 },
  });
  assert.equal(result.reason, 'done');
  assert.deepEqual(result.server.violations, []);

  const usage = usageEvents(result.events);
  assert.equal(usage.length, 2);
  assert.deepEqual(
    usage.map((event) => [
      event.input_tokens,
      event.output_tokens,
      event.cached_tokens,
      event.estimated,
      event.context_window,
      event.context_window_source,
      event.model,
    ]),
    [
      [800, 12, 512, undefined, 24_000, 'server', 'scripted-model'],
      [1830, 3, undefined, undefined, 24_000, 'server', 'scripted-model'],
    ],
  );
  // After the first turn the transcript is the first request, its answer, and the 4000-character result.
  assert.equal(usage[0]?.estimated_next_input_tokens, 800 + 12 + 1000);
  assert.equal(usage[1]?.estimated_next_input_tokens, 1830 + 3);
  // Each usage event follows its turn's tool results, so the estimate covers them.
  const finishedAt = result.events.findIndex((event) => event.type === 'tool-call-finished');
  assert.ok(result.events.indexOf(usage[0]) > finishedAt);

  assert.deepEqual(
    result.rows.map((row) => [row.seq, row.model, row.inputTokens, row.outputTokens, row.cachedTokens, row.estimated, row.contextWindow]),
    [
      [1, 'scripted-model', 800, 12, 512, false, 24_000],
      [2, 'scripted-model', 1830, 3, 0, false, 24_000],
    ],
  );
  assert.equal(result.events.filter((event) => event.type === 'notice').length, 0, 'no warning: everything fits');
});

test('issue 10 item 1: a server without usage (it refuses stream_options) is estimated at chars/4, and the rows and events say so', async () => {
  const result = await run({ rejectStreamOptions: true });
  assert.equal(result.reason, 'done');
  const usage = usageEvents(result.events);
  assert.deepEqual(
    usage.map((event) => event.estimated),
    [true, true],
  );
  assert.ok((usage[0]?.input_tokens ?? 0) > 0);
  // The second request carries the 4000-character result: about 1000 tokens more than the first.
  const growth = (usage[1]?.input_tokens ?? 0) - (usage[0]?.input_tokens ?? 0);
  assert.ok(growth >= 1000 && growth < 1100, `grew by ${growth}`);
  assert.deepEqual(
    result.rows.map((row) => row.estimated),
    [true, true],
  );
  assert.equal(usage[0]?.context_window_source, 'default', 'neither the config nor the server states it: the 32k guess');
  assert.equal(usage[0]?.context_window, 32_768);
});

test('issue 10 item 1: model.context_window wins without asking the server, and a local window smaller than the request warns once', async () => {
  const result = await run({ contextWindow: 1_000_000 }, { model: { context_window: 300 } }, 'p'.repeat(2000));
  assert.equal(result.reason, 'done');
  assert.equal(result.server.requests.filter((request) => request.method === 'GET').length, 0, 'the configured window needs no discovery');
  const usage = usageEvents(result.events);
  assert.deepEqual(
    usage.map((event) => [event.context_window, event.context_window_source]),
    [
      [300, 'config'],
      [300, 'config'],
    ],
  );
  const warnings = result.events.filter(
    (event): event is Extract<ZunoEvent, { type: 'notice' }> => event.type === 'notice' && event.level === 'warning',
  );
  assert.equal(warnings.length, 1, 'both requests are too large; the warning comes once');
  assert.match(warnings[0]?.text ?? '', /context window is 300 tokens \(model\.context_window\)/);
  assert.match(warnings[0]?.text ?? '', /num_ctx or OLLAMA_CONTEXT_LENGTH/);
});

test('issue 10 item 7: with model.prices for the model, each usage event carries the cost of its request', async () => {
  const reported = [
    { prompt_tokens: 1_000, completion_tokens: 100, cached_tokens: 400 },
    { prompt_tokens: 2_000, completion_tokens: 10 },
  ];
  const priced = await run(
    { usage: (_request, index) => reported[index] ?? { prompt_tokens: 0, completion_tokens: 0 } },
    { model: { prices: { 'scripted-model': { input: 2, output: 10, cached_input: 0.5 } } } },
  );
  assert.equal(priced.reason, 'done');
  const costs = usageEvents(priced.events).map((event) => event.cost_usd);
  // Nano-dollars: 600 × 2 + 400 × 0.5 + 100 × 10 per million tokens, then 2000 × 2 + 10 × 10.
  assert.deepEqual(
    costs.map((cost) => Math.round((cost ?? NaN) * 1e9)),
    [2_400_000, 4_100_000],
  );
  const unpriced = await run({ usage: (_request, index) => reported[index] ?? { prompt_tokens: 0, completion_tokens: 0 } });
  assert.ok(
    usageEvents(unpriced.events).every((event) => event.cost_usd === undefined),
    'no prices, no cost',
  );
});
