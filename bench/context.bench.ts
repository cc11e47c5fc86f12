/**
 * The cost of preparing one model request (issue 10 item 2) for a session of 1,000 messages
 * against one of 10, in the same run: the sent view (pruned outputs as stubs, the compaction
 * cut), the size estimate, and the wire body (Chat Completions messages, serialised). It runs
 * before every step, so it must stay linear in the session: about 100x is linear.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contextBudget, SessionContext } from '../src/agent/compaction';
import { toOpenAIMessages } from '../src/agent/openai';
import type { ModelProvider } from '../src/agent/provider';
import { EventBus } from '../src/core/events';
import { RequestEstimator } from '../src/core/token-budget';
import type { TranscriptMessage } from '../src/core/transcript';
import { DEFAULT_COMPACTION, Store } from '../src/store/store';
import type { BenchResult } from './run';

const SYSTEM = 'You are Zuno. '.repeat(200);
const TOOLS = [{ name: 'read', description: 'Read a file.', inputSchema: { type: 'object' } }];

/** A session of `count` messages: a prompt, then read calls whose outputs are 2,000 characters. */
function session(count: number): TranscriptMessage[] {
  const messages: TranscriptMessage[] = [{ role: 'user', content: 'Read every file.' }];
  for (let turn = 1; messages.length < count; turn++) {
    messages.push({
      role: 'assistant',
      content: `Reading file ${turn}.`,
      toolCalls: [{ id: `c${turn}`, name: 'read', arguments: JSON.stringify({ path: `src/file${turn}.ts` }) }],
    });
    messages.push({ role: 'tool', callId: `c${turn}`, toolName: 'read', content: `${turn}: ${'x'.repeat(60)}\n`.repeat(32) });
  }
  return messages.slice(0, count);
}

const noModel: ModelProvider = {
  label: 'none',
  stream: () => Promise.reject(new Error('the bench never asks the model')),
};

async function prepareMs(store: Store, count: number, runs: number): Promise<number> {
  const sessionId = store.createSession({ workspace: '/bench' }).id;
  const transcript = session(count);
  const context = new SessionContext({
    store,
    sessionId,
    provider: noModel,
    events: new EventBus(),
    budget: contextBudget({ tokens: 20_000, source: 'config' }),
  });
  // In a long session most outputs are pruned (the view writes a stub for each); `measure` says it then fits, so nothing is compacted.
  await context.fit(transcript, Number.MAX_SAFE_INTEGER, () => 0, AbortSignal.timeout(60_000));
  const estimator = new RequestEstimator();
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    const view = context.view(transcript);
    estimator.estimate({ system: SYSTEM, tools: TOOLS, messages: view });
    const body = JSON.stringify({ model: 'm', messages: toOpenAIMessages(SYSTEM, view), tools: TOOLS, stream: true });
    if (body.length === 0) throw new Error('empty body');
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

export default async function context(): Promise<BenchResult[]> {
  const stateDir = mkdtempSync(join(tmpdir(), 'zuno-bench-context-'));
  const store = await Store.open({ stateDir, compaction: DEFAULT_COMPACTION });
  try {
    const small = await prepareMs(store, 10, 200);
    const large = await prepareMs(store, 1000, 50);
    return [
      {
        name: 'preparing a request for a 1,000-message session',
        value: large,
        unit: 'ms',
        baseline: { name: 'the same for 10 messages', value: small },
        detail: 'view with pruned stubs, estimate, Chat Completions body; ~100x is linear',
      },
    ];
  } finally {
    await store.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}
