import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { parseConfig, type ZunoConfigInput } from '../../../src/core/config';
import type { Declarations } from '../../../src/core/declarations';
import { BlockedError, ToolError, TransientError } from '../../../src/core/errors';
import { EventBus, type ZunoEvent } from '../../../src/core/events';
import type { ApprovalDecision, ApprovalRequest } from '../../../src/core/host';
import { blockedMessage } from '../../../src/core/outcome';
import { ToolRegistry } from '../../../src/core/registry';
import { LIVE_OUTPUT_LIMIT, Scheduler, type ToolCallRequest, type TurnOptions } from '../../../src/core/scheduler';
import { defineTool, type Tool, type ToolContext } from '../../../src/core/tool';
import { writeTool } from '../../../src/tools/write';
import { MemoryLedger, type MemoryLedgerOptions } from '../../support/memory-ledger';
import { ScriptedApprovals, testEnvironment } from './fixtures';

/** Lets every pending callback run once. */
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Deferred {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
}
function deferred(): Deferred {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/**
 * Calls of the `gate` tool wait until the test opens their gate, and count how many run at once.
 * Ordering is driven by the test, never by timers.
 */
class Gates {
  readonly log: string[] = [];
  running = new Set<string>();
  maxRunning = 0;
  /** For each call, which calls were running when it started. */
  readonly overlaps = new Map<string, string[]>();
  private readonly gates = new Map<string, Deferred>();
  private readonly arrivals = new Map<string, Deferred>();

  private gate(map: Map<string, Deferred>, key: string): Deferred {
    let entry = map.get(key);
    if (!entry) map.set(key, (entry = deferred()));
    return entry;
  }

  async enter(key: string, context: ToolContext): Promise<void> {
    this.overlaps.set(key, [...this.running]);
    this.running.add(key);
    this.maxRunning = Math.max(this.maxRunning, this.running.size);
    this.log.push(`start:${key}`);
    this.gate(this.arrivals, key).resolve();
    const aborted = new Promise<void>((_, reject) =>
      context.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
    );
    try {
      await Promise.race([this.gate(this.gates, key).promise, aborted]);
    } finally {
      this.running.delete(key);
      this.log.push(`end:${key}`);
    }
  }

  open(...keys: string[]): void {
    for (const key of keys) this.gate(this.gates, key).resolve();
  }

  arrived(key: string): Promise<void> {
    return this.gate(this.arrivals, key).promise;
  }

  started(key: string): boolean {
    return this.log.includes(`start:${key}`);
  }
}

function gateTool(
  gates: Gates,
  name = 'gate',
  declarations: Partial<Declarations> = { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' },
): Tool {
  return defineTool({
    name,
    description: 'waits for its gate',
    parameters: z.object({ key: z.string() }),
    declarations,
    run: async ({ key }, context) => {
      await gates.enter(key, context);
      return { output: `done ${key}` };
    },
  });
}

/** Calls of `yielding` run for a few event-loop turns, long enough for parallel calls to overlap. */
function yieldingTool(gates: Gates, name: string, declarations: Partial<Declarations>): Tool {
  return defineTool({
    name,
    description: 'yields a few times',
    parameters: z.object({ key: z.string() }),
    declarations,
    run: async ({ key }) => {
      gates.overlaps.set(key, [...gates.running]);
      gates.running.add(key);
      gates.maxRunning = Math.max(gates.maxRunning, gates.running.size);
      gates.log.push(`start:${key}`);
      for (let turn = 0; turn < 5; turn++) await tick();
      gates.running.delete(key);
      gates.log.push(`end:${key}`);
      return { output: key };
    },
  });
}

interface HarnessOptions {
  readonly config?: ZunoConfigInput;
  readonly approve?: (request: ApprovalRequest, signal: AbortSignal) => ApprovalDecision | Promise<ApprovalDecision>;
  readonly ledger?: MemoryLedgerOptions;
}

function harness(tools: readonly Tool[], options: HarnessOptions = {}) {
  const approvals = new ScriptedApprovals(options.approve);
  const env = testEnvironment(options.config ?? {}, approvals);
  const ledger = new MemoryLedger(options.ledger);
  const events = new EventBus();
  events.on((event) => ledger.recordEvent(event));
  const sleeps: number[] = [];
  const scheduler = new Scheduler({
    registry: new ToolRegistry(tools.map((tool) => ({ tool, defaultSurface: true }))),
    ledger,
    events,
    env,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  const controller = new AbortController();
  const run = (calls: readonly ToolCallRequest[], turn: Partial<TurnOptions> = {}) =>
    scheduler.runTurn('session-1', calls, { signal: controller.signal, ...turn });
  const eventsOf = <T extends ZunoEvent['type']>(type: T): Extract<ZunoEvent, { type: T }>[] =>
    ledger.events().filter((event): event is Extract<ZunoEvent, { type: T }> => event.type === type);
  return { env, ledger, approvals, scheduler, controller, run, sleeps, eventsOf };
}

const callOf = (id: string, name: string, args: unknown): ToolCallRequest => ({ id, name, arguments: JSON.stringify(args) });

/** I5: exactly one final record per call, and nothing else recorded as final. */
function assertOneOutcomeEach(ledger: MemoryLedger, callIds: readonly string[]): void {
  assert.deepEqual(
    ledger.finals().map((finish) => finish.callId),
    callIds,
  );
}

test('I1: results come back and are persisted in call order, whatever order the calls finish in', async () => {
  const gates = new Gates();
  const { run, ledger, eventsOf } = harness([gateTool(gates)]);
  const turn = run(['a', 'b', 'c'].map((key) => callOf(key, 'gate', { key })));
  await Promise.all([gates.arrived('a'), gates.arrived('b'), gates.arrived('c')]);
  gates.open('c');
  await tick();
  gates.open('b');
  await tick();
  gates.open('a');
  const results = await turn;
  assert.deepEqual(
    gates.log.filter((entry) => entry.startsWith('end:')),
    ['end:c', 'end:b', 'end:a'],
    'physically finished in reverse',
  );
  assert.deepEqual(
    results.map((result) => [result.callId, result.output]),
    [
      ['a', 'done a'],
      ['b', 'done b'],
      ['c', 'done c'],
    ],
  );
  assertOneOutcomeEach(ledger, ['a', 'b', 'c']);
  assert.deepEqual(
    eventsOf('tool-call-finished').map((event) => event.call_id),
    ['a', 'b', 'c'],
  );
});

test('I2/C1: no call overlaps an Exclusive call; earlier calls settle first and later ones wait', async () => {
  const gates = new Gates();
  const parallel = yieldingTool(gates, 'look', { effect: 'ReadOnly', concurrency: 'ParallelSafe' });
  const exclusive = yieldingTool(gates, 'change', { effect: 'ReadOnly', concurrency: 'Exclusive' });
  const { run } = harness([parallel, exclusive]);
  await run([
    callOf('p1', 'look', { key: 'p1' }),
    callOf('p2', 'look', { key: 'p2' }),
    callOf('x', 'change', { key: 'x' }),
    callOf('p3', 'look', { key: 'p3' }),
    callOf('p4', 'look', { key: 'p4' }),
  ]);
  assert.deepEqual(gates.overlaps.get('x'), [], 'nothing was running when the exclusive call started');
  for (const [key, running] of gates.overlaps) assert.ok(!running.includes('x'), `${key} started while x ran`);
  const position = (entry: string): number => gates.log.indexOf(entry);
  assert.ok(position('end:p1') < position('start:x') && position('end:p2') < position('start:x'));
  assert.ok(position('end:x') < position('start:p3') && position('end:x') < position('start:p4'));
  assert.deepEqual(gates.overlaps.get('p2'), ['p1'], 'consecutive non-exclusive calls did overlap');
  assert.deepEqual(gates.overlaps.get('p4'), ['p3']);
});

test('I3/C3: at most concurrency.tool_calls non-exclusive calls run at once', async () => {
  for (const cap of [1, 3]) {
    const gates = new Gates();
    const background = yieldingTool(gates, 'watch', { effect: 'ReadOnly', concurrency: 'IsolatedBackground' });
    const parallel = yieldingTool(gates, 'look', { effect: 'ReadOnly', concurrency: 'ParallelSafe' });
    const { run } = harness([parallel, background], { config: { concurrency: { tool_calls: cap } } });
    const calls = Array.from({ length: 10 }, (_, index) => callOf(`c${index}`, index % 2 === 0 ? 'look' : 'watch', { key: `c${index}` }));
    const results = await run(calls);
    assert.equal(results.length, 10);
    assert.equal(gates.maxRunning, cap, `cap ${cap}`);
  }
});

test('I5: every call ends in exactly one persisted outcome, whatever happens to it', async () => {
  const tools = [
    defineTool({
      name: 'fine',
      description: '',
      parameters: z.object({}),
      declarations: { effect: 'ReadOnly' },
      run: async () => ({ output: 'ok' }),
    }),
    defineTool({
      name: 'refuses',
      description: '',
      parameters: z.object({}),
      declarations: { effect: 'ReadOnly' },
      run: async () => {
        throw new ToolError('The file is locked; close it in the editor and try again.');
      },
    }),
    defineTool({
      name: 'crashes',
      description: '',
      parameters: z.object({}),
      declarations: { effect: 'ReadOnly' },
      run: async () => {
        throw new RangeError('index 7 out of range');
      },
    }),
    defineTool({
      name: 'unsure',
      description: '',
      parameters: z.object({}),
      declarations: { effect: 'ReadOnly' },
      run: async () => ({ output: 'timed out after 10 s', status: 'indeterminate' as const }),
    }),
    defineTool({
      name: 'failed',
      description: '',
      parameters: z.object({}),
      declarations: { effect: 'ReadOnly' },
      run: async () => ({ output: 'exit 1', status: 'error' as const }),
    }),
  ];
  const { run, ledger } = harness(tools, { config: { permission: { rules: [{ tool: 'fine', match: 'x', action: 'deny' }] } } });
  const calls = [
    callOf('1', 'fine', {}),
    callOf('2', 'refuses', {}),
    callOf('3', 'crashes', {}),
    callOf('4', 'unsure', {}),
    callOf('5', 'failed', {}),
    callOf('6', 'nonexistent', {}),
    { id: '7', name: 'fine', arguments: '{not json' },
  ];
  const results = await run(calls);
  assert.deepEqual(
    results.map((result) => result.outcome),
    [
      { kind: 'ok' },
      { kind: 'error' },
      { kind: 'error' },
      { kind: 'indeterminate' },
      { kind: 'error' },
      { kind: 'blocked', category: 'unavailable' },
      { kind: 'blocked', category: 'invalid_arguments' },
    ],
  );
  assert.equal(results[1]?.output, 'The file is locked; close it in the editor and try again.');
  assert.equal(results[2]?.output, 'Tool crashes failed unexpectedly: RangeError: index 7 out of range');
  assertOneOutcomeEach(ledger, ['1', '2', '3', '4', '5', '6', '7']);
  assert.deepEqual(
    ledger.finals().map((finish) => finish.outcome),
    ['ok', 'error', 'error', 'indeterminate', 'error', 'blocked', 'blocked'],
  );
});

test('I6/B1: a blocked call never runs, and its dispatch-blocked event precedes its model-visible result', async () => {
  let runs = 0;
  const counted = defineTool({
    name: 'count',
    description: '',
    parameters: z.object({ n: z.number().int() }),
    declarations: { effect: 'ReadOnly' },
    run: async () => ({ output: String(++runs) }),
  });
  const denied = defineTool({
    name: 'push',
    description: '',
    parameters: z.object({}),
    subjects: async () => [{ kind: 'command', value: 'git push' }],
    run: async () => ({ output: String(++runs) }),
  });
  const { run, ledger } = harness([counted, denied], {
    config: { tools: { count: true }, permission: { rules: [{ tool: 'push', match: 'git push', action: 'deny' }] } },
  });
  const results = await run([
    callOf('bad-json', 'count', {}),
    { id: 'not-json', name: 'count', arguments: '{"n": ' },
    callOf('bad-type', 'count', { n: 'seven' }),
    callOf('unknown', 'rm_rf', {}),
    callOf('denied', 'push', {}),
  ]);
  assert.equal(runs, 0, 'no blocked call ran');
  assert.deepEqual(ledger.starts(), [], 'no blocked call was ever started');
  assert.deepEqual(
    results.map((result) => (result.outcome.kind === 'blocked' ? result.outcome.category : result.outcome.kind)),
    ['invalid_arguments', 'invalid_arguments', 'invalid_arguments', 'unavailable', 'denied'],
  );
  for (const result of results) {
    const blockedIndex = ledger.entries.findIndex(
      (entry) => entry.op === 'event' && entry.event.type === 'dispatch-blocked' && entry.event.call_id === result.callId,
    );
    const recordIndex = ledger.entries.findIndex((entry) => entry.op === 'blocked' && entry.finish.callId === result.callId);
    assert.ok(blockedIndex !== -1 && blockedIndex < recordIndex, `${result.callId}: dispatch-blocked first`);
    assert.match(result.output, /^BLOCKED \(\w+\): the call to "\w+" was NOT executed/);
  }
  // B2: the persisted record keeps the outcome and its category.
  const persisted = ledger.finals().find((finish) => finish.callId === 'denied');
  assert.deepEqual([persisted?.outcome, persisted?.category], ['blocked', 'denied']);
  assert.match(results[0]?.output ?? '', /n: .*expected number.*JSON Schema: \{.*"n"/s, 'the zod message and the schema');
  assert.match(results[1]?.output ?? '', /not valid JSON/);
  assert.match(results[4]?.output ?? '', /Refused: refused by the permission rule \{tool: "push", match: "git push", action: "deny"\}/);
});

test('B1: the blocked text is exactly what outcome.ts says, with the reason', async () => {
  const { run } = harness([]);
  const [result] = await run([callOf('1', 'ghost', {})]);
  assert.equal(
    result?.output,
    blockedMessage('ghost', 'unavailable', 'There is no tool named "ghost". The tools you can call are: (none).'),
  );
});

test('A1: a tool switched off in config, or outside the agent allowlist, is blocked unavailable', async () => {
  const read = defineTool({
    name: 'read',
    description: '',
    parameters: z.object({}),
    declarations: { effect: 'ReadOnly' },
    run: async () => ({ output: 'read' }),
  });
  const web = defineTool({
    name: 'webfetch',
    description: '',
    parameters: z.object({}),
    declarations: { effect: 'ReadOnly' },
    run: async () => ({ output: 'web' }),
  });
  const { run } = harness([read, web], { config: { tools: { webfetch: false } } });
  const [disabled] = await run([callOf('1', 'webfetch', {})]);
  assert.deepEqual(disabled?.outcome, { kind: 'blocked', category: 'unavailable' });
  assert.match(disabled?.output ?? '', /tools\.webfetch = false/);
  const [outside, switchedOff] = await run([callOf('2', 'read', {}), callOf('3', 'webfetch', {})], { allowlist: ['webfetch'] });
  assert.deepEqual(outside?.outcome, { kind: 'blocked', category: 'unavailable' });
  assert.match(outside?.output ?? '', /not in this agent's tool allowlist/);
  assert.deepEqual(switchedOff?.outcome, { kind: 'blocked', category: 'unavailable' }, 'the switch still applies under an allowlist');
  const [allowed] = await run([callOf('4', 'read', {})], { allowlist: ['read'] });
  assert.deepEqual(allowed?.outcome, { kind: 'ok' });
});

test('T2: a tool that declares nothing runs as SideEffecting, Never, Exclusive, and needs approval in strict mode', async () => {
  const bare = defineTool({ name: 'mystery', description: '', parameters: z.object({}), run: async () => ({ output: 'did it' }) });
  const { run, approvals, eventsOf } = harness([bare]);
  const [result] = await run([callOf('1', 'mystery', {})]);
  assert.deepEqual(result?.outcome, { kind: 'ok' });
  assert.equal(approvals.requests.length, 1);
  assert.deepEqual(approvals.requests[0]?.declarations, { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' });
  const started = eventsOf('tool-call-started')[0];
  assert.deepEqual([started?.effect, started?.replay, started?.concurrency, started?.attempt], ['SideEffecting', 'Never', 'Exclusive', 1]);
});

test('T3: a mixed tool is classified per call from its validated arguments (bg list vs cancel)', async () => {
  const bg = defineTool({
    name: 'bg',
    description: '',
    parameters: z.object({ action: z.enum(['list', 'output', 'wait', 'cancel']) }),
    declarations: ({ action }) =>
      action === 'cancel'
        ? { effect: 'SideEffecting', concurrency: 'Exclusive' }
        : { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' },
    run: async ({ action }) => ({ output: action }),
  });
  const { run, approvals, eventsOf } = harness([bg]);
  const results = await run([callOf('1', 'bg', { action: 'list' }), callOf('2', 'bg', { action: 'cancel' })]);
  assert.deepEqual(
    results.map((result) => result.outcome.kind),
    ['ok', 'ok'],
  );
  assert.deepEqual(
    approvals.requests.map((request) => request.callId),
    ['2'],
    'only cancel asks',
  );
  assert.deepEqual(
    eventsOf('tool-call-started').map((event) => [event.call_id, event.effect, event.concurrency]),
    [
      ['1', 'ReadOnly', 'ParallelSafe'],
      ['2', 'SideEffecting', 'Exclusive'],
    ],
  );
});

test('R3: the start record is durable before the tool begins', async () => {
  const observed: boolean[] = [];
  const holder: { ledger?: MemoryLedger } = {};
  const probe = defineTool({
    name: 'probe',
    description: '',
    parameters: z.object({}),
    run: async (_, context) => {
      observed.push(holder.ledger?.isDurable(context.callId, context.attempt) ?? false);
      return { output: 'ran' };
    },
  });
  const { run, ledger } = harness([probe], {
    config: { permission: { mode: 'auto' } },
    // A slow disk: durability takes several event-loop turns.
    ledger: {
      beforeDurable: async () => {
        for (let turn = 0; turn < 10; turn++) await tick();
      },
    },
  });
  holder.ledger = ledger;
  await run([callOf('1', 'probe', {}), callOf('2', 'probe', {})]);
  assert.deepEqual(observed, [true, true]);
});

test('R3/C2: a cancel that lands while the start is being recorded ends the call cancelled, and it never runs', async () => {
  let ran = false;
  const probe = defineTool({
    name: 'probe',
    description: '',
    parameters: z.object({}),
    run: async () => {
      ran = true;
      return { output: 'ran' };
    },
  });
  const holder: { cancel?: () => void } = {};
  const { run, controller, ledger } = harness([probe], {
    config: { permission: { mode: 'auto' } },
    // The user cancels while the disk is still syncing the start record.
    ledger: { beforeDurable: async () => holder.cancel?.() },
  });
  holder.cancel = () => controller.abort();
  const [result] = await run([callOf('1', 'probe', {})]);
  assert.equal(ran, false);
  assert.equal(result?.outcome.kind, 'cancelled');
  assert.match(result?.output ?? '', /cancelled before it began\. Nothing happened/);
  assert.equal(ledger.events().filter((event) => event.type === 'tool-call-finished').length, 1);
});

test('R3: a call whose start cannot be recorded does not run, and still gets one outcome', async () => {
  let runs = 0;
  const tool = defineTool({ name: 'effect', description: '', parameters: z.object({}), run: async () => ({ output: String(++runs) }) });
  const { run, ledger } = harness([tool], {
    config: { permission: { mode: 'auto' } },
    ledger: { failStart: (start) => start.callId === '1' },
  });
  const results = await run([callOf('1', 'effect', {}), callOf('2', 'effect', {})]);
  assert.equal(runs, 1);
  assert.deepEqual(
    results.map((result) => result.outcome.kind),
    ['error', 'ok'],
  );
  assert.match(results[0]?.output ?? '', /was not executed: its start could not be recorded durably/);
  assertOneOutcomeEach(ledger, ['1', '2']);
});

test('R2: a Safe tool is retried after a transient failure, with backoff, and every attempt recorded', async () => {
  const attempts: number[] = [];
  const flaky = defineTool({
    name: 'webfetch',
    description: '',
    parameters: z.object({}),
    declarations: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' },
    run: async (_, context) => {
      attempts.push(context.attempt);
      if (context.attempt < 3) throw new TransientError('connection reset');
      return { output: 'page' };
    },
  });
  const { run, ledger, sleeps, eventsOf } = harness([flaky], { config: { retry: { max_attempts: 3, base_delay_ms: 100 } } });
  const [result] = await run([callOf('1', 'webfetch', {})]);
  assert.deepEqual(result?.outcome, { kind: 'ok' });
  assert.equal(result?.attempt, 3);
  assert.deepEqual(attempts, [1, 2, 3]);
  assert.deepEqual(sleeps, [100, 200], 'exponential backoff');
  assert.deepEqual(
    ledger.starts('1').map((start) => start.attempt),
    [1, 2, 3],
  );
  assert.deepEqual(
    eventsOf('tool-call-started').map((event) => event.attempt),
    [1, 2, 3],
  );
  assert.deepEqual(
    ledger.finals().map((finish) => [finish.outcome, finish.attempt]),
    [['ok', 3]],
  );
});

test('R2: a Safe tool that keeps failing stops at max_attempts with an error naming the attempts', async () => {
  const down = defineTool({
    name: 'webfetch',
    description: '',
    parameters: z.object({}),
    declarations: { effect: 'ReadOnly', replay: 'Safe' },
    run: async () => {
      throw new TransientError('HTTP 503');
    },
  });
  const { run, ledger } = harness([down], { config: { retry: { max_attempts: 2, base_delay_ms: 0 } } });
  const [result] = await run([callOf('1', 'webfetch', {})]);
  assert.deepEqual(result?.outcome, { kind: 'error' });
  assert.equal(result?.output, '"webfetch" failed after 2 attempts with a transient error: HTTP 503');
  assert.equal(ledger.starts('1').length, 2);
});

test('R1/R3: a Never tool is not retried; a transient failure near a side effect is indeterminate', async () => {
  let runs = 0;
  const shell = defineTool({
    name: 'shell',
    description: '',
    parameters: z.object({}),
    run: async () => {
      runs++;
      throw new TransientError('lost the connection to the terminal');
    },
  });
  const reader = defineTool({
    name: 'inspect',
    description: '',
    parameters: z.object({}),
    declarations: { effect: 'ReadOnly' },
    run: async () => {
      runs++;
      throw new TransientError('timeout');
    },
  });
  const { run, ledger, sleeps } = harness([shell, reader], { config: { permission: { mode: 'auto' } } });
  const results = await run([callOf('1', 'shell', {}), callOf('2', 'inspect', {})]);
  assert.equal(runs, 2);
  assert.deepEqual(sleeps, []);
  assert.deepEqual(
    results.map((result) => result.outcome.kind),
    ['indeterminate', 'error'],
  );
  assert.match(results[0]?.output ?? '', /may or may not have happened.*will not be retried automatically.*Check the authoritative state/s);
  assert.deepEqual(
    ledger.starts().map((start) => [start.callId, start.attempt]),
    [
      ['1', 1],
      ['2', 1],
    ],
  );
});

test('C2: cancelling reaches the running tool, and calls not yet started are cancelled without running', async () => {
  const gates = new Gates();
  const { run, ledger, controller } = harness([gateTool(gates)], { config: { concurrency: { tool_calls: 1 } } });
  const turn = run(['a', 'b', 'c'].map((key) => callOf(key, 'gate', { key })));
  await gates.arrived('a');
  controller.abort();
  const results = await turn;
  assert.deepEqual(
    results.map((result) => result.outcome.kind),
    ['cancelled', 'cancelled', 'cancelled'],
  );
  assert.equal(gates.started('b') || gates.started('c'), false, 'b and c never ran');
  assert.deepEqual(
    ledger.starts().map((start) => start.callId),
    ['a'],
  );
  assertOneOutcomeEach(ledger, ['a', 'b', 'c']);
  assert.match(results[0]?.output ?? '', /interrupted while running/);
  assert.match(results[1]?.output ?? '', /was not started, because the turn was cancelled\. Nothing happened\./);
});

test('C2: a turn of many calls hangs one listener on the turn signal, not one per call', async () => {
  const gates = new Gates();
  const { controller, run } = harness([gateTool(gates)], { config: { concurrency: { tool_calls: 1 } } });
  const signal = controller.signal;
  let attached = 0;
  let most = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (...args: Parameters<AbortSignal['addEventListener']>) => {
    most = Math.max(most, ++attached);
    add(...args);
  };
  signal.removeEventListener = (...args: Parameters<AbortSignal['removeEventListener']>) => {
    attached--;
    remove(...args);
  };
  const keys = Array.from({ length: 30 }, (_, index) => `k${index}`);
  gates.open(...keys);
  const results = await run(keys.map((key) => callOf(key, 'gate', { key })));
  assert.equal(results.length, 30);
  assert.equal(most, 1);
  assert.equal(attached, 0, 'and removes it when the turn ends');
});

test('C2: cancelling during an approval cancels that call and every later one, unasked', async () => {
  let runs = 0;
  const write = defineTool({ name: 'write', description: '', parameters: z.object({}), run: async () => ({ output: String(++runs) }) });
  const { run, ledger, controller, approvals } = harness([write], {
    approve: (_, signal) =>
      new Promise((_resolve, reject) => {
        controller.abort();
        signal.addEventListener('abort', () => reject(new Error('dismissed')));
        if (signal.aborted) reject(new Error('dismissed'));
      }),
  });
  const results = await run([callOf('1', 'write', {}), callOf('2', 'write', {})]);
  assert.equal(runs, 0);
  assert.equal(approvals.requests.length, 1);
  assert.deepEqual(
    results.map((result) => result.outcome.kind),
    ['cancelled', 'cancelled'],
  );
  assertOneOutcomeEach(ledger, ['1', '2']);
});

test('E1/C2: approvals are asked one at a time, in model order, before any call runs', async () => {
  const gates = new Gates();
  let inFlight = 0;
  let maxInFlight = 0;
  const writer = gateTool(gates, 'write', { effect: 'SideEffecting', concurrency: 'ParallelSafe' });
  const { run, approvals } = harness([writer], {
    approve: async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      assert.equal(gates.log.length, 0, 'nothing runs while approvals are pending');
      await tick();
      inFlight--;
      return { approved: true };
    },
  });
  const turn = run(['a', 'b', 'c'].map((key) => callOf(key, 'write', { key })));
  await Promise.all(['a', 'b', 'c'].map((key) => gates.arrived(key)));
  gates.open('a', 'b', 'c');
  await turn;
  assert.equal(maxInFlight, 1);
  assert.deepEqual(
    approvals.requests.map((request) => request.callId),
    ['a', 'b', 'c'],
  );
});

test('E1: approval shows the preview and passes the user-edited contents through to the tool', async () => {
  const seenEdits: (Readonly<Record<string, string>> | undefined)[] = [];
  const write = defineTool({
    name: 'write',
    description: '',
    parameters: z.object({ path: z.string(), content: z.string() }),
    subjects: async ({ path }, env) => [{ kind: 'path', value: `${env.workspaceRoot}/${path}`, outsideWorkspace: false }],
    preview: async ({ path, content }, env) => [
      { path: `${env.workspaceRoot}/${path}`, kind: 'create', before: undefined, after: content },
    ],
    run: async (_, context) => {
      seenEdits.push(context.approvedEdits);
      return { output: 'written' };
    },
  });
  const { run, approvals, env, eventsOf } = harness([write], {
    approve: (request) => ({ approved: true, editedContents: { [request.changes?.[0]?.path ?? '']: 'edited by the user' } }),
  });
  const [result] = await run([callOf('1', 'write', { path: 'a.txt', content: 'proposed' })]);
  assert.deepEqual(result?.outcome, { kind: 'ok' });
  const request = approvals.requests[0];
  assert.deepEqual(request?.changes, [{ path: `${env.workspaceRoot}/a.txt`, kind: 'create', before: undefined, after: 'proposed' }]);
  assert.equal(request?.subject, `${env.workspaceRoot}/a.txt`);
  assert.match(request?.reason ?? '', /strict mode/);
  assert.deepEqual(seenEdits, [{ [`${env.workspaceRoot}/a.txt`]: 'edited by the user' }]);
  assert.deepEqual(
    eventsOf('approval-requested').map((event) => [event.call_id, event.subject]),
    [['1', `${env.workspaceRoot}/a.txt`]],
  );
  assert.deepEqual(
    eventsOf('approval-resolved').map((event) => event.approved),
    [true],
  );
});

test('E1/B1: a user denial is blocked denied with the user reason, and the turn goes on', async () => {
  let runs = 0;
  const write = defineTool({
    name: 'write',
    description: '',
    parameters: z.object({ n: z.number() }),
    run: async () => ({ output: String(++runs) }),
  });
  const { run, eventsOf } = harness([write], {
    approve: (request) => (request.callId === '1' ? { approved: false, reason: 'not that file' } : { approved: true }),
  });
  const results = await run([callOf('1', 'write', { n: 1 }), callOf('2', 'write', { n: 2 })]);
  assert.deepEqual(
    results.map((result) => result.outcome),
    [{ kind: 'blocked', category: 'denied' }, { kind: 'ok' }],
  );
  assert.match(results[0]?.output ?? '', /The user declined: not that file/);
  assert.equal(runs, 1);
  assert.deepEqual(
    eventsOf('approval-resolved').map((event) => [event.approved, event.reason]),
    [
      [false, 'not that file'],
      [true, undefined],
    ],
  );
});

test('issue 14 item 4: the rule "Allow like this" added is recorded on approval-resolved, so the card can name it', async () => {
  const write = defineTool({
    name: 'write',
    description: '',
    parameters: z.object({ n: z.number() }),
    run: async () => ({ output: 'ok' }),
  });
  const rule = { tool: 'write', match: 'src/**', action: 'allow' as const };
  const { run, eventsOf } = harness([write], { approve: () => ({ approved: true, addedRule: rule }) });
  await run([callOf('1', 'write', { n: 1 })]);
  assert.deepEqual(
    eventsOf('approval-resolved').map((event) => event.added_rule),
    [rule],
  );
});

test('issue 14 item 5: tool-call-finished carries the exit code a command reported, and nothing for a tool without one', async () => {
  const failing = defineTool({
    name: 'shell',
    description: '',
    parameters: z.object({}),
    run: async () => ({ status: 'error', output: 'exit code 2\nboom', metadata: { exitCode: 2 } }),
  });
  const plain = defineTool({ name: 'other', description: '', parameters: z.object({}), run: async () => ({ output: 'fine' }) });
  const { run, eventsOf } = harness([failing, plain], { config: { permission: { mode: 'auto' } } });
  await run([callOf('1', 'shell', {}), callOf('2', 'other', {})]);
  assert.deepEqual(
    eventsOf('tool-call-finished').map((event) => [event.call_id, event.exit_code]),
    [
      ['1', 2],
      ['2', undefined],
    ],
  );
});

test('E1: an approval gateway that fails refuses the call instead of running it', async () => {
  let runs = 0;
  const write = defineTool({ name: 'write', description: '', parameters: z.object({}), run: async () => ({ output: String(++runs) }) });
  const { run, eventsOf } = harness([write], {
    approve: () => {
      throw new Error('webview disposed');
    },
  });
  const [result] = await run([callOf('1', 'write', {})]);
  assert.deepEqual(result?.outcome, { kind: 'blocked', category: 'denied' });
  assert.equal(runs, 0);
  assert.ok(eventsOf('notice').some((event) => event.level === 'error' && /webview disposed/.test(event.text)));
});

test('E1 Delegating: a child turn evaluates each call again and shows its origin', async () => {
  const write = defineTool({ name: 'write', description: '', parameters: z.object({}), run: async () => ({ output: 'child wrote' }) });
  const { run, approvals, ledger, eventsOf } = harness([write]);
  await run([callOf('child-1', 'write', {})], { origin: { parentCallId: 'task-1', agent: 'reviewer' } });
  assert.deepEqual(approvals.requests[0]?.origin, { parentCallId: 'task-1', agent: 'reviewer' });
  assert.equal(eventsOf('approval-requested')[0]?.parent_call_id, 'task-1');
  assert.equal(eventsOf('tool-call-started')[0]?.parent_call_id, 'task-1');
  assert.equal(ledger.starts()[0]?.parentCallId, 'task-1');
});

test('C2: the turn number reaches every record, started or blocked, with the call position', async () => {
  const fine = defineTool({
    name: 'fine',
    description: '',
    parameters: z.object({}),
    declarations: { effect: 'ReadOnly' },
    run: async () => ({ output: 'ok' }),
  });
  const { run, ledger } = harness([fine]);
  await run([callOf('1', 'fine', {}), callOf('2', 'ghost', {})], { turn: 7 });
  assert.deepEqual(
    ledger.entries.flatMap((entry) =>
      entry.op === 'start' || entry.op === 'blocked' ? [[entry.start.callId, entry.start.turn, entry.start.position]] : [],
    ),
    [
      ['1', 7, 0],
      ['2', 7, 1],
    ],
  );
});

test('§9 rules: relative path globs work when the workspace is reached through a symlink', async () => {
  const write = defineTool({
    name: 'write',
    description: '',
    parameters: z.object({ path: z.string() }),
    // Subjects are real paths, as the file tools report them.
    subjects: async ({ path }, env) => [
      { kind: 'path', value: await env.host.fs.realpath(join(env.workspaceRoot, path)), outsideWorkspace: false },
    ],
    run: async () => ({ output: 'written' }),
  });
  const base = testEnvironment({}, new ScriptedApprovals(() => ({ approved: false, reason: 'not there' })));
  const link = join(base.stateDir, '..', 'linked-workspace');
  symlinkSync(base.workspaceRoot, link);
  const scheduler = new Scheduler({
    registry: new ToolRegistry([{ tool: write, defaultSurface: true }]),
    ledger: new MemoryLedger(),
    events: new EventBus(),
    env: {
      ...base,
      workspaceRoot: link,
      config: parseConfig({ permission: { rules: [{ tool: 'write', match: 'docs/**', action: 'allow' }] } }),
    },
  });
  const results = await scheduler.runTurn('s', [callOf('1', 'write', { path: 'docs/a.md' }), callOf('2', 'write', { path: 'src/a.ts' })], {
    signal: new AbortController().signal,
  });
  assert.deepEqual(
    results.map((result) => result.outcome.kind),
    ['ok', 'blocked'],
  );
  assert.deepEqual(
    base.approvals.requests.map((request) => request.callId),
    ['2'],
    'the rule allowed call 1 without asking',
  );
});

test('§9 one enforcement point: the tool runs on the paths the policy checked; a link changed during approval cannot redirect it (issue 8 item 4)', async () => {
  const { run, env } = harness([writeTool], {
    approve: (request) => {
      // While the user looks at the prompt, something re-points the link the call went through,
      // then swaps the real folder itself for a link out of the workspace.
      const swap = swaps.shift();
      swap?.();
      return { approved: request.callId !== 'refused' };
    },
  });
  const outside = join(env.workspaceRoot, '..', 'outside');
  mkdirSync(outside);
  mkdirSync(join(env.workspaceRoot, 'dir'));
  mkdirSync(join(env.workspaceRoot, 'other'));
  symlinkSync('dir', join(env.workspaceRoot, 'link'));
  const swaps = [
    () => {
      rmSync(join(env.workspaceRoot, 'link'));
      symlinkSync('../outside', join(env.workspaceRoot, 'link'));
    },
    () => {
      renameSync(join(env.workspaceRoot, 'other'), join(env.workspaceRoot, 'other.real'));
      symlinkSync('../outside', join(env.workspaceRoot, 'other'));
    },
  ];
  const results = await run([
    callOf('via-link', 'write', { path: 'link/a.txt', content: 'A' }),
    callOf('swapped', 'write', { path: 'other/b.txt', content: 'B' }),
  ]);
  // Resolved once, before approval: the write lands where it was checked to land.
  assert.equal(results[0]?.outcome.kind, 'ok', results[0]?.output);
  assert.equal(readFileSync(join(env.workspaceRoot, 'dir', 'a.txt'), 'utf8'), 'A');
  // The checked folder became a link out: the host refuses instead of following it.
  assert.equal(results[1]?.outcome.kind, 'error');
  assert.match(results[1]?.output ?? '', /changed while the call ran \(a symlink now leads outside the workspace.*nothing was written/);
  assert.deepEqual(readdirSync(outside), []);
});

test('§9 hooks: a pre-tool hook blocks the call as denied with its reason, through a real process', async () => {
  let runs = 0;
  const shell = defineTool({
    name: 'shell',
    description: '',
    parameters: z.object({ command: z.string() }),
    run: async () => ({ output: String(++runs) }),
  });
  const { run, approvals } = harness([shell], {
    config: {
      hooks: {
        pre_tool: [
          {
            command: `node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{if(JSON.parse(s).arguments.command.includes('deploy')){console.error('no deploys on Friday');process.exit(2)}})"`,
          },
        ],
      },
    },
  });
  const results = await run([callOf('1', 'shell', { command: 'make deploy' }), callOf('2', 'shell', { command: 'make test' })]);
  assert.deepEqual(
    results.map((result) => result.outcome),
    [{ kind: 'blocked', category: 'denied' }, { kind: 'ok' }],
  );
  assert.match(results[0]?.output ?? '', /blocked the call: no deploys on Friday/);
  assert.equal(runs, 1);
  assert.deepEqual(
    approvals.requests.map((request) => request.callId),
    ['2'],
    'a hook block comes before any approval',
  );
});

test('O1: a large output keeps head and tail, and the marker names the spill file holding all of it', async () => {
  const lines = Array.from({ length: 5000 }, (_, index) => `line ${index}`).join('\n');
  const loud = defineTool({
    name: 'loud',
    description: '',
    parameters: z.object({}),
    declarations: { effect: 'ReadOnly' },
    run: async () => ({ output: lines }),
  });
  const { run } = harness([loud], { config: { tool_output: { max_lines: 100 } } });
  const [result] = await run([callOf('call-big', 'loud', {})]);
  assert.equal(result?.truncated, true);
  assert.match(result?.output ?? '', /^line 0\n/);
  assert.match(result?.output ?? '', /line 4999$/);
  const spillPath = String(result?.metadata?.['fullOutputPath']);
  assert.ok(result?.output.includes(`The full output is saved at ${spillPath}`));
  assert.ok(existsSync(spillPath));
  assert.equal(readFileSync(spillPath, 'utf8'), lines);
});

test('O1: a tool that capped its own output through captureOutput is not capped again; progress becomes events', async () => {
  const streaming = defineTool({
    name: 'stream',
    description: '',
    parameters: z.object({}),
    declarations: { effect: 'ReadOnly' },
    run: async (_, context) => {
      const capture = context.captureOutput();
      for (let index = 0; index < 3000; index++) {
        const line = `row ${index}\n`;
        capture.append(line);
        if (index < 2) context.progress(line);
      }
      const capped = await capture.finish();
      return { output: capped.text, truncated: capped.truncated };
    },
  });
  const { run, eventsOf } = harness([streaming], { config: { tool_output: { max_lines: 100 } } });
  const [result] = await run([callOf('s', 'stream', {})]);
  assert.equal(result?.truncated, true);
  assert.equal(result?.metadata, undefined, 'the scheduler did not cap it again');
  assert.equal((result?.output.match(/output truncated/g) ?? []).length, 1);
  assert.deepEqual(
    eventsOf('tool-call-output').map((event) => event.chunk),
    ['row 0\n', 'row 1\n'],
  );
});

test('I5: a tool that throws synchronously, or returns no result, still ends in one error outcome', async () => {
  const sync = defineTool({
    name: 'sync',
    description: '',
    parameters: z.object({}),
    declarations: { effect: 'ReadOnly' },
    run: () => {
      throw new TypeError('not async at all');
    },
  });
  const empty = defineTool({
    name: 'empty',
    description: '',
    parameters: z.object({}),
    declarations: { effect: 'ReadOnly' },
    // A JavaScript tool breaking the contract: the scheduler must not trust the type.
    run: async () => undefined as never,
  });
  const odd = defineTool({
    name: 'odd',
    description: '',
    parameters: z.object({}),
    declarations: { effect: 'ReadOnly' },
    // An unknown status, which the type forbids and a JavaScript tool might still send.
    run: async () => ({ output: 'x', status: 'sort of' }) as never,
  });
  const { run, ledger } = harness([sync, empty, odd]);
  const results = await run([callOf('1', 'sync', {}), callOf('2', 'empty', {}), callOf('3', 'odd', {})]);
  assert.deepEqual(
    results.map((result) => result.outcome.kind),
    ['error', 'error', 'error'],
  );
  assert.match(results[2]?.output ?? '', /returned \{"output":"x","status":"sort of"\} instead of a result/);
  assert.equal(results[0]?.output, 'Tool sync failed unexpectedly: TypeError: not async at all');
  assert.match(results[1]?.output ?? '', /returned undefined instead of a result/);
  assertOneOutcomeEach(ledger, ['1', '2', '3']);
});

test('I5: a ledger that fails to record an outcome is reported, and the result is still returned', async () => {
  const fine = defineTool({
    name: 'fine',
    description: '',
    parameters: z.object({}),
    declarations: { effect: 'ReadOnly' },
    run: async () => ({ output: 'ok' }),
  });
  const { run, eventsOf } = harness([fine], { ledger: { failFinish: (finish) => finish.callId === '1' } });
  const results = await run([callOf('1', 'fine', {}), callOf('2', 'fine', {})]);
  assert.deepEqual(
    results.map((result) => result.outcome.kind),
    ['ok', 'ok'],
  );
  assert.ok(eventsOf('notice').some((event) => event.level === 'error' && /outcome of call 1 .* could not be persisted/.test(event.text)));
  assert.deepEqual(
    eventsOf('tool-call-finished').map((event) => event.call_id),
    ['1', '2'],
  );
});

test('B1: a repeated call id and empty arguments are handled, not crashed on', async () => {
  const fine = defineTool({
    name: 'fine',
    description: '',
    parameters: z.object({}),
    declarations: { effect: 'ReadOnly' },
    run: async () => ({ output: 'ok' }),
  });
  const { run } = harness([fine]);
  const results = await run([
    { id: 'same', name: 'fine', arguments: '' },
    { id: 'same', name: 'fine', arguments: '{}' },
  ]);
  assert.deepEqual(
    results.map((result) => result.outcome),
    [{ kind: 'ok' }, { kind: 'blocked', category: 'invalid_arguments' }],
  );
});

test('B3: a tool failure after it ran is an error with different text from a block', async () => {
  const failing = defineTool({
    name: 'build',
    description: '',
    parameters: z.object({}),
    declarations: { effect: 'ReadOnly' },
    run: async () => {
      throw new ToolError('The build failed: 3 errors.');
    },
  });
  const { run, eventsOf } = harness([failing]);
  const [result] = await run([callOf('1', 'build', {})]);
  assert.deepEqual(result?.outcome, { kind: 'error' });
  assert.doesNotMatch(result?.output ?? '', /BLOCKED/);
  assert.deepEqual(eventsOf('dispatch-blocked'), []);
  const finished = eventsOf('tool-call-finished')[0];
  assert.deepEqual([finished?.outcome, finished?.category, finished?.truncated], ['error', undefined, false]);
});

test('O1: live output events are bounded per call, ending with one marker; the result is unaffected', async () => {
  const chunk = 'x'.repeat(LIVE_OUTPUT_LIMIT / 4);
  const chatty = defineTool({
    name: 'chatty',
    description: '',
    parameters: z.object({}),
    declarations: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' },
    run: async (_, context) => {
      for (let index = 0; index < 10; index++) context.progress(chunk);
      return { output: 'done' };
    },
  });
  const { run, eventsOf } = harness([chatty]);
  const [result] = await run([callOf('1', 'chatty', {})]);
  assert.equal(result?.output, 'done');
  const live = eventsOf('tool-call-output');
  assert.equal(live.length, 4);
  assert.match(live.at(-1)?.chunk ?? '', /\[live output stops here/);
  assert.equal(live.filter((event) => event.chunk.includes('live output stops')).length, 1);
});

test("issue 8 §9 B1: a subject found while running is authorized by the scheduler with the call's tool; a BlockedError ends the call blocked/denied after its dispatch-blocked event", async () => {
  const seen: Awaited<ReturnType<ToolContext['authorize']>>[] = [];
  const probe = defineTool({
    name: 'probe',
    description: 'authorizes the URLs it is given, stopping at the first that is not allowed',
    parameters: z.object({ urls: z.array(z.string()) }),
    declarations: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' },
    run: async ({ urls }, context) => {
      for (const url of urls) {
        const authorization = await context.authorize({ kind: 'url', value: url });
        seen.push(authorization);
        if (authorization.action !== 'allow') throw new BlockedError(`${url} is refused: ${authorization.reason}`);
      }
      return { output: 'all allowed' };
    },
  });
  const { run, ledger, eventsOf } = harness([probe], {
    config: {
      permission: {
        rules: [
          { tool: 'probe', match: 'http://ok/*', action: 'allow' },
          { tool: 'probe', match: 'http://bad/*', action: 'deny' },
          { tool: 'other', match: 'http://free/*', action: 'deny' },
        ],
      },
    },
  });
  const [fine] = await run([callOf('fine', 'probe', { urls: ['http://ok/1', 'http://free/2'] })]);
  assert.equal(fine?.outcome.kind, 'ok');
  assert.deepEqual(
    seen.map((entry) => [entry.action, entry.byNamingRule]),
    [
      ['allow', true],
      ['allow', false],
    ],
    "another tool's rule does not apply; the read-only fallback is no naming rule",
  );

  const [stopped] = await run([callOf('stopped', 'probe', { urls: ['http://ok/1', 'http://bad/2', 'http://ok/3'] })]);
  assert.deepEqual(stopped?.outcome, { kind: 'blocked', category: 'denied' });
  assert.match(
    stopped?.output ?? '',
    /^BLOCKED \(denied\): the call to "probe" was stopped by permission before the refused step, which did NOT run\.\nReason: http:\/\/bad\/2 is refused: refused by the permission rule/,
  );
  assert.equal(seen.length, 4, 'nothing after the refused subject ran');
  const blocked = eventsOf('dispatch-blocked').filter((event) => event.call_id === 'stopped');
  assert.deepEqual(
    blocked.map((event) => [event.category, event.tool]),
    [['denied', 'probe']],
  );
  const order = ledger
    .events()
    .filter((event) => event.type !== 'notice' && 'call_id' in event && event.call_id === 'stopped')
    .map((event) => event.type);
  assert.deepEqual(order, ['tool-call-started', 'dispatch-blocked', 'tool-call-finished']);
  const final = ledger.finals().find((finish) => finish.callId === 'stopped');
  assert.deepEqual([final?.outcome, final?.category], ['blocked', 'denied']);
  assert.equal(eventsOf('tool-call-finished').find((event) => event.call_id === 'stopped')?.category, 'denied');
});

test('issue 8 item 1, E1 §9: the scheduler reads command subjects with the host shell analyzer, and refuses the call when it cannot load', async () => {
  let runs = 0;
  const shell = defineTool({
    name: 'shell',
    description: '',
    parameters: z.object({ command: z.string() }),
    subjects: async ({ command }) => [{ kind: 'command', value: command }],
    run: async () => ({ output: String(++runs) }),
  });
  const rules = { permission: { rules: [{ tool: 'shell', match: 'git *', action: 'allow' as const }] } };
  const base = testEnvironment(rules, new ScriptedApprovals(() => ({ approved: false, reason: 'no' })));
  const schedulerWith = (host: typeof base.host): Scheduler =>
    new Scheduler({
      registry: new ToolRegistry([{ tool: shell, defaultSurface: true }]),
      ledger: new MemoryLedger(),
      events: new EventBus(),
      env: { ...base, host },
    });
  const calls = [callOf('1', 'shell', { command: 'git status' }), callOf('2', 'shell', { command: 'git status; touch X' })];

  const results = await schedulerWith(base.host).runTurn('s', calls, { signal: new AbortController().signal });
  assert.deepEqual(
    results.map((result) => result.outcome.kind),
    ['ok', 'blocked'],
  );
  assert.deepEqual(
    base.approvals.requests.map((request) => [request.callId, request.reason]),
    [['2', 'no allow rule covers the command "touch X"']],
  );

  const broken = {
    ...base.host,
    shellAnalyzer: () => Promise.reject(new Error('The shell parser could not be loaded from /nowhere (missing). Reinstall Zuno.')),
  };
  const [refused] = await schedulerWith(broken).runTurn('s', [calls[0] as ToolCallRequest], { signal: new AbortController().signal });
  assert.deepEqual(refused?.outcome, { kind: 'blocked', category: 'denied' });
  assert.match(
    refused?.output ?? '',
    /Permission could not be evaluated: The shell parser could not be loaded from \/nowhere \(missing\)\. Reinstall Zuno\./,
  );
  assert.equal(runs, 1, 'only the allowed git status ran');
});

test("issue 8 item 1, §3: a command line is parsed once per call, although it is evaluated against the prompt's rules and the live ones", async () => {
  const shell = defineTool({
    name: 'shell',
    description: '',
    parameters: z.object({ command: z.string() }),
    subjects: async ({ command }) => [{ kind: 'command', value: command }],
    run: async () => ({ output: 'ran' }),
  });
  const base = testEnvironment(
    { permission: { rules: [{ tool: 'shell', match: 'git *', action: 'allow' as const }] } },
    new ScriptedApprovals(() => ({ approved: false })),
  );
  const analyzer = await base.host.shellAnalyzer();
  const analysed: string[] = [];
  const host = { ...base.host, shellAnalyzer: async () => ({ analyze: (line: string) => (analysed.push(line), analyzer.analyze(line)) }) };
  const scheduler = new Scheduler({
    registry: new ToolRegistry([{ tool: shell, defaultSurface: true }]),
    ledger: new MemoryLedger(),
    events: new EventBus(),
    env: { ...base, host },
  });
  const results = await scheduler.runTurn(
    's',
    [callOf('1', 'shell', { command: 'git status' }), callOf('2', 'shell', { command: 'git log' })],
    { signal: new AbortController().signal },
  );
  assert.deepEqual(
    results.map((result) => result.outcome.kind),
    ['ok', 'ok'],
  );
  assert.deepEqual(analysed, ['git status', 'git log']);
});
