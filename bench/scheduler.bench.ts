/**
 * Scheduler benchmarks (issue 2 §12), each against a baseline from the same run:
 * - overhead per call: trivial ReadOnly ParallelSafe calls through the Scheduler (preflight,
 *   lock, durable start, output caps, events, in-memory ledger) against calling run() directly;
 * - parallel speedup (I4): N calls of 200 ms with cap C, against the ideal ceil(N/C) × 200 ms
 *   and against the same calls run serially (cap 1).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { parseConfig, type ZunoConfigInput } from '../src/core/config';
import { EventBus } from '../src/core/events';
import { ToolRegistry } from '../src/core/registry';
import { Scheduler, type ToolCallRequest } from '../src/core/scheduler';
import { defineTool, type CallEnvironment, type Tool, type ToolContext } from '../src/core/tool';
import { OutputCapture } from '../src/core/output';
import { pathVisibility } from '../src/core/policy';
import { createNodeHost } from '../src/hosts/node/host';
import { MemoryLedger } from '../test/support/memory-ledger';
import type { BenchResult } from './run';

const trivial = defineTool({
  name: 'echo',
  description: 'returns its argument',
  parameters: z.object({ text: z.string() }),
  declarations: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' },
  run: async ({ text }) => ({ output: text }),
});

const CALL_MS = 200;
const slow = defineTool({
  name: 'slow',
  description: `takes ${CALL_MS} ms`,
  parameters: z.object({}),
  declarations: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' },
  run: () => new Promise((resolve) => setTimeout(() => resolve({ output: 'done' }), CALL_MS)),
});

function environment(stateDir: string, config: ZunoConfigInput): CallEnvironment {
  const host = createNodeHost({
    stateDir,
    approvals: {
      request: async () => {
        throw new Error('the benchmark asks for no approval');
      },
    },
  });
  return { host, config: parseConfig(config), workspaceRoot: stateDir };
}

function scheduler(env: CallEnvironment, tools: readonly Tool[]): Scheduler {
  return new Scheduler({
    registry: new ToolRegistry(tools.map((tool) => ({ tool, defaultSurface: true }))),
    ledger: new MemoryLedger(),
    events: new EventBus(),
    env,
  });
}

async function overhead(stateDir: string): Promise<BenchResult[]> {
  const env = environment(stateDir, {});
  const runner = scheduler(env, [trivial]);
  const turnSize = 20;
  const turns = 250;
  const calls = (turn: number): ToolCallRequest[] =>
    Array.from({ length: turnSize }, (_, index) => ({ id: `t${turn}-c${index}`, name: 'echo', arguments: '{"text":"hello"}' }));
  const signal = new AbortController().signal;
  const context: ToolContext = {
    ...env,
    callId: 'direct',
    authorize: () => Promise.reject(new Error('nothing in this bench discovers subjects while running')),
    sessionId: 'bench',
    attempt: 1,
    signal,
    progress: () => undefined,
    captureOutput: () => new OutputCapture({ maxBytes: 51_200, maxLines: 2000 }, () => env.host.createSpill('direct.txt')),
    visibility: pathVisibility({ tool: 'echo', rules: env.config.permission.rules, workspaceRoot: env.workspaceRoot }),
    paths: new Map(),
  };
  const total = turnSize * turns;

  const direct = async (): Promise<number> => {
    const started = performance.now();
    for (let index = 0; index < total; index++) await trivial.run({ text: 'hello' }, context);
    return ((performance.now() - started) * 1000) / total;
  };
  const scheduled = async (): Promise<number> => {
    const started = performance.now();
    for (let turn = 0; turn < turns; turn++) await runner.runTurn('bench', calls(turn), { signal });
    return ((performance.now() - started) * 1000) / total;
  };
  // Warm up both paths, then take the best of three: the machine is shared.
  await direct();
  await scheduled();
  const directBest = Math.min(await direct(), await direct(), await direct());
  const scheduledBest = Math.min(await scheduled(), await scheduled(), await scheduled());
  return [
    {
      name: 'scheduler overhead per call',
      value: scheduledBest,
      unit: 'µs',
      baseline: { name: 'direct run() call', value: directBest },
      detail: `${total} calls in turns of ${turnSize}; preflight, lock, durable start (in-memory ledger), caps, events; best of 3`,
    },
  ];
}

async function parallel(stateDir: string, count: number, cap: number): Promise<{ measured: number; ideal: number }> {
  const runner = scheduler(environment(stateDir, { concurrency: { tool_calls: cap } }), [slow]);
  const calls = Array.from({ length: count }, (_, index) => ({ id: `p${cap}-${index}`, name: 'slow', arguments: '{}' }));
  const started = performance.now();
  await runner.runTurn('bench', calls, { signal: new AbortController().signal });
  return { measured: performance.now() - started, ideal: Math.ceil(count / cap) * CALL_MS };
}

export default async function bench(): Promise<BenchResult[]> {
  const stateDir = mkdtempSync(join(tmpdir(), 'zuno-bench-scheduler-'));
  try {
    const results = await overhead(stateDir);
    const count = 16;
    const serial = await parallel(stateDir, count, 1);
    for (const cap of [4, 8]) {
      const run = await parallel(stateDir, count, cap);
      results.push({
        name: `parallel: ${count} calls of ${CALL_MS} ms, cap ${cap}`,
        value: run.measured,
        unit: 'ms',
        baseline: { name: `ideal ceil(${count}/${cap}) × ${CALL_MS} ms`, value: run.ideal },
        detail: `speedup ${(serial.measured / run.measured).toFixed(2)}x over serial (${serial.measured.toFixed(0)} ms); ideal speedup ${(serial.ideal / run.ideal).toFixed(2)}x`,
      });
    }
    results.push({
      name: `serial: ${count} calls of ${CALL_MS} ms, cap 1`,
      value: serial.measured,
      unit: 'ms',
      baseline: { name: `ideal ${count} × ${CALL_MS} ms`, value: serial.ideal },
    });
    return results;
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}
