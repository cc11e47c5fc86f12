// Delegation (task, job) over the real agent loop, store, scheduler and node host, with parent
// and children talking to one scripted OpenAI server on 127.0.0.1 that checks the pairing of
// every request. Children are told apart from the parent by their system prompt, and from each
// other by their goal (their first user message).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ChildAgents, modelSource } from '../../../src/agent/delegation';
import { runAgent, type AgentRunResult } from '../../../src/agent/loop';
import { OpenAIProvider } from '../../../src/agent/openai';
import { BackgroundJobs } from '../../../src/core/background';
import { parseConfig, type ZunoConfigInput } from '../../../src/core/config';
import { ToolError } from '../../../src/core/errors';
import { EventBus, type ZunoEvent } from '../../../src/core/events';
import type { ApprovalDecision, ApprovalRequest } from '../../../src/core/host';
import { FairSharedLock } from '../../../src/core/lock';
import { ToolRegistry, type ToolRegistration } from '../../../src/core/registry';
import { AgentExclusivity, Scheduler } from '../../../src/core/scheduler';
import { defineTool, type CallEnvironment } from '../../../src/core/tool';
import { createNodeHost } from '../../../src/hosts/node/host';
import { Store } from '../../../src/store/store';
import { builtinToolRegistrations } from '../../../src/tools/index';
import {
  lastToolResult,
  startScriptedOpenAI,
  type RecordedRequest,
  type ScriptedReply,
  type ScriptedOpenAIServer,
} from '../../support/scripted-openai';
import { MemoryLedger } from '../../support/memory-ledger';
import { makeTempDir, removeDir } from '../../support/tool-context';

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

type Step = (request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>;
const reply =
  (value: ScriptedReply): Step =>
  () =>
    value;

const CHILD_MARKER = 'You are a delegated agent';
const systemOf = (request: RecordedRequest): string => request.body?.messages.find((message) => message.role === 'system')?.content ?? '';
const isChild = (request: RecordedRequest): boolean => systemOf(request).includes(CHILD_MARKER);
const goalOf = (request: RecordedRequest): string => request.body?.messages.find((message) => message.role === 'user')?.content ?? '';
/** Which step of its run a request is: the number of assistant messages before it. */
const stepOf = (request: RecordedRequest): number =>
  (request.body?.messages ?? []).filter((message) => message.role === 'assistant').length;
const toolNames = (request: RecordedRequest): string[] => (request.body?.tools ?? []).map((tool) => tool.function.name);

interface Fixture {
  readonly server: ScriptedOpenAIServer;
  readonly workspace: string;
  readonly store: Store;
  readonly events: ZunoEvent[];
  readonly approvals: ApprovalRequest[];
  readonly background: BackgroundJobs;
  readonly exclusivity: AgentExclusivity;
  readonly env: CallEnvironment;
  run(prompt: string, signal?: AbortSignal): Promise<AgentRunResult>;
}

interface FixtureOptions {
  readonly parent: readonly Step[];
  /** Steps per child, by goal. */
  readonly children: Readonly<Record<string, readonly Step[]>>;
  readonly config?: ZunoConfigInput;
  readonly decide?: (request: ApprovalRequest) => ApprovalDecision;
  readonly extraTools?: readonly ToolRegistration[];
}

async function fixture(options: FixtureOptions): Promise<Fixture> {
  const root = makeTempDir('zuno-delegation-');
  cleanups.push(() => removeDir(root));
  const workspace = join(root, 'workspace');
  const stateDir = join(root, 'state');
  mkdirSync(workspace);
  const server = await startScriptedOpenAI({
    script: (request) => {
      const steps = isChild(request) ? options.children[goalOf(request)] : options.parent;
      const step = steps?.[stepOf(request)];
      if (!step)
        return {
          error: {
            status: 500,
            message: `no scripted step ${stepOf(request)} for ${isChild(request) ? `child "${goalOf(request)}"` : 'the parent'}`,
          },
        };
      return step(request);
    },
  });
  cleanups.push(() => server.close());
  const approvals: ApprovalRequest[] = [];
  const host = createNodeHost({
    stateDir,
    approvals: {
      request: async (request) => {
        approvals.push(request);
        return options.decide?.(request) ?? { approved: true };
      },
    },
  });
  const store = await Store.open({ stateDir });
  cleanups.push(() => store.close());
  const bus = new EventBus();
  const events: ZunoEvent[] = [];
  bus.on((event) => events.push(event));
  const config = parseConfig(options.config ?? {});
  const exclusivity = new AgentExclusivity();
  const registry = new ToolRegistry([...builtinToolRegistrations(), ...(options.extraTools ?? [])]);
  const background = new BackgroundJobs({ host });
  cleanups.push(() => background.dispose());
  const provider = new OpenAIProvider({
    baseUrl: server.baseUrl,
    model: 'scripted-model',
    apiKey: { key: undefined, envVar: undefined },
    retry: { attempts: 1, baseDelayMs: 1 },
  });
  const base: CallEnvironment = { host, config, workspaceRoot: workspace, background };
  const delegation = new ChildAgents({
    store,
    registry,
    events: bus,
    env: base,
    models: modelSource(provider),
    slots: new FairSharedLock(config.concurrency.delegations),
    exclusivity,
  });
  const env: CallEnvironment = { ...base, delegation };
  const scheduler = new Scheduler({ registry, ledger: store, events: bus, env, exclusivity });
  return {
    server,
    workspace,
    store,
    events,
    approvals,
    background,
    exclusivity,
    env,
    run: (prompt, signal) =>
      runAgent({ store, provider, scheduler, registry, env, events: bus, prompt, signal: signal ?? new AbortController().signal }),
  };
}

test('S1 E1 task: the child reads a file and answers; the parent gets its answer plus a summary of what it did from the store', async () => {
  const setup = await fixture({
    parent: [
      reply({ toolCalls: [{ id: 'call_task', name: 'task', arguments: { goal: 'Report the first line of notes.txt' } }] }),
      (request) => ({ text: `parent saw: ${lastToolResult(request).split('\n')[2] ?? ''}` }),
    ],
    children: {
      'Report the first line of notes.txt': [
        reply({ toolCalls: [{ name: 'read', arguments: { path: 'notes.txt' } }] }),
        reply({ text: 'The first line is: alpha' }),
      ],
    },
  });
  writeFileSync(join(setup.workspace, 'notes.txt'), 'alpha\nbeta\n');
  const result = await setup.run('Find out what notes.txt starts with.');
  assert.equal(result.reason, 'done');
  assert.equal(result.text, 'parent saw: The first line is: alpha');
  assert.deepEqual(setup.server.violations, []);

  const taskRow = setup.store.getCall(result.sessionId, 'call_task');
  assert.equal(taskRow?.status, 'ok');
  assert.equal(taskRow?.effect, 'Delegating');
  assert.equal(taskRow?.concurrency, 'ParallelSafe');
  assert.match(
    taskRow?.output ?? '',
    /^The delegated agent \(general\) finished\.\nIts final answer:\nThe first line is: alpha\n\nWhat it did, from its call records \(child session [\w-]+\):\nIt changed nothing: it made only read-only calls\.\nRead-only calls: read ×1\.$/,
  );

  // The child's own session: linked by title to the parent call, and each row carries the parent call id.
  const childId = String(taskRow?.metadata?.childSessionId);
  const child = setup.store.getSession(childId);
  assert.match(child?.title ?? '', new RegExp(`^task call_task of session ${result.sessionId} \\(general\\): Report the first line`));
  assert.equal(child?.status, 'done');
  const childCalls = setup.store.calls(childId);
  assert.deepEqual(
    childCalls.map((row) => [row.tool, row.status, row.parentCallId]),
    [['read', 'ok', 'call_task']],
  );
  // Its own transcript: the goal as the prompt, its own tool call and result.
  assert.deepEqual(
    setup.store.messages(childId).map((message) => message.role),
    ['user', 'assistant', 'tool', 'assistant'],
  );

  // Strict mode asks about the delegation itself (E3), not about the child's read.
  assert.deepEqual(
    setup.approvals.map((request) => [request.tool, request.origin]),
    [['task', undefined]],
  );
});

test('E1: a child write in strict mode is asked again, with its origin; a declined child write is reported as blocked in the summary', async () => {
  const setup = await fixture({
    parent: [
      reply({
        toolCalls: [
          { id: 'call_write_ok', name: 'task', arguments: { goal: 'write ok.txt' } },
          { id: 'call_write_no', name: 'task', arguments: { goal: 'write no.txt' } },
        ],
      }),
      reply({ text: 'done' }),
    ],
    children: {
      'write ok.txt': [
        reply({ toolCalls: [{ name: 'write', arguments: { path: 'ok.txt', content: 'fine\n' } }] }),
        reply({ text: 'wrote ok.txt' }),
      ],
      'write no.txt': [
        reply({ toolCalls: [{ name: 'write', arguments: { path: 'no.txt', content: 'nope\n' } }] }),
        reply({ text: 'could not write no.txt' }),
      ],
    },
    decide: (request) =>
      request.tool === 'write' && request.subject?.endsWith('no.txt') ? { approved: false, reason: 'not that one' } : { approved: true },
  });
  const result = await setup.run('Write two files through helpers.');
  assert.equal(result.reason, 'done');
  assert.deepEqual(setup.server.violations, []);

  const writes = setup.approvals.filter((request) => request.tool === 'write');
  assert.deepEqual(
    writes.map((request) => request.origin).sort((a, b) => (a?.parentCallId ?? '').localeCompare(b?.parentCallId ?? '')),
    [
      { parentCallId: 'call_write_no', agent: 'general' },
      { parentCallId: 'call_write_ok', agent: 'general' },
    ],
  );
  const prompted = setup.events.filter((event) => event.type === 'approval-requested' && event.tool === 'write');
  assert.deepEqual(prompted.map((event) => (event.type === 'approval-requested' ? event.parent_call_id : undefined)).sort(), [
    'call_write_no',
    'call_write_ok',
  ]);

  assert.equal(readFileSync(join(setup.workspace, 'ok.txt'), 'utf8'), 'fine\n');
  assert.equal(existsSync(join(setup.workspace, 'no.txt')), false);
  assert.match(setup.store.getCall(result.sessionId, 'call_write_ok')?.output ?? '', /What it did, .*\n- write ok\.txt: ok$/);
  assert.match(
    setup.store.getCall(result.sessionId, 'call_write_no')?.output ?? '',
    /What it did, .*\n- write no\.txt: blocked \(denied\)$/,
  );
});

test('C3: at most concurrency.delegations children run at once, though the parent asks for more in one turn', async () => {
  const cap = 2;
  const held: (() => void)[] = [];
  let seen = 0;
  /** Holds each child's first request until `cap` are waiting (or the last child came): proof they really overlap. */
  const gate: Step = () =>
    new Promise((resolve) => {
      seen++;
      held.push(() => resolve({ text: 'child done' }));
      if (held.length === cap || seen === 3) for (const release of held.splice(0)) release();
    });
  const setup = await fixture({
    config: { concurrency: { delegations: cap }, permission: { mode: 'auto' } },
    parent: [
      reply({
        toolCalls: ['one', 'two', 'three'].map((goal) => ({ name: 'task', arguments: { goal } })),
      }),
      reply({ text: 'all done' }),
    ],
    children: { one: [gate], two: [gate], three: [gate] },
  });
  const result = await setup.run('Do three things.');
  assert.equal(result.reason, 'done');
  assert.deepEqual(setup.server.violations, []);

  let running = 0;
  let most = 0;
  const children = new Set(setup.store.calls(result.sessionId).map((row) => String(row.metadata?.childSessionId)));
  for (const event of setup.events) {
    if (!children.has(event.session_id)) continue;
    if (event.type === 'session-started') most = Math.max(most, ++running);
    if (event.type === 'session-finished') running--;
  }
  assert.equal(children.size, 3);
  assert.equal(most, cap, `at most ${cap} children at once, and that many did overlap`);
});

test("A1 the child surface: an agent's tools replace it, a tools argument narrows it, the default leaves out task; bad requests are refused before anything runs", async () => {
  const setup = await fixture({
    config: {
      agents: { reviewer: { description: 'reads and judges', tools: ['read', 'grep'], prompt: 'Be terse.', max_steps: 3 } },
      permission: { mode: 'auto' },
    },
    parent: [
      reply({
        toolCalls: [
          { name: 'task', arguments: { goal: 'general survey' } },
          { name: 'task', arguments: { goal: 'review', agent: 'reviewer' } },
          { name: 'task', arguments: { goal: 'narrow survey', tools: ['read', 'glob'] } },
        ],
      }),
      reply({ text: 'done' }),
    ],
    children: {
      'general survey': [reply({ toolCalls: [{ name: 'task', arguments: { goal: 'recurse' } }] }), reply({ text: 'no recursion' })],
      review: [reply({ text: 'looks fine' })],
      'narrow survey': [reply({ text: 'surveyed' })],
    },
  });
  const result = await setup.run('Survey and review.');
  assert.equal(result.reason, 'done');
  assert.deepEqual(setup.server.violations, []);
  const firstRequest = (goal: string): RecordedRequest => {
    const found = setup.server.chatRequests().find((request) => isChild(request) && goalOf(request) === goal);
    assert.ok(found, goal);
    return found;
  };
  const general = toolNames(firstRequest('general survey'));
  assert.ok(general.includes('read') && general.includes('write') && general.includes('shell'), general.join());
  assert.ok(!general.includes('task'), 'a child cannot delegate further');
  assert.deepEqual(toolNames(firstRequest('review')), ['read', 'grep']);
  assert.match(systemOf(firstRequest('review')), /Be terse\./);
  assert.deepEqual(toolNames(firstRequest('narrow survey')), ['read', 'glob']);

  // A child that calls task anyway is blocked: nothing ran.
  const generalChild = setup.store.calls(result.sessionId).map((row) => String(row.metadata?.childSessionId))[0] ?? '';
  const [blocked] = setup.store.calls(generalChild);
  assert.equal(blocked?.tool, 'task');
  assert.equal(blocked?.status, 'blocked');
  assert.equal(blocked?.category, 'unavailable');

  // Refused before anything starts: an unknown agent, tools beyond the agent's, task among the tools.
  const delegator = setup.env.delegation;
  assert.ok(delegator);
  const request = { goal: 'x', parentSessionId: 's', parentCallId: 'c' };
  assert.throws(
    () => delegator.plan({ ...request, agent: 'ghost' }),
    (error: unknown) =>
      error instanceof ToolError &&
      /no agent named "ghost"\. The configured agents are: reviewer \(reads and judges\)\./.test(error.message),
  );
  assert.throws(
    () => delegator.plan({ ...request, agent: 'reviewer', tools: ['read', 'write'] }),
    (error: unknown) => error instanceof ToolError && /"write" is not among them\. Choose from: read, grep\./.test(error.message),
  );
  assert.throws(
    () => delegator.plan({ ...request, tools: ['read', 'task'] }),
    (error: unknown) => error instanceof ToolError && /cannot delegate further/.test(error.message),
  );
  assert.equal(delegator.plan({ ...request, agent: 'reviewer' }).maxSteps, 3);
  assert.equal(delegator.plan(request).maxSteps, 25);
  assert.equal(delegator.plan({ ...request, maxSteps: 7 }).maxSteps, 7);
});

test('S1 a child is bounded in steps: at max_steps it stops, and the parent is told the goal may be incomplete', async () => {
  const setup = await fixture({
    config: { permission: { mode: 'auto' } },
    parent: [
      reply({ toolCalls: [{ id: 'call_bounded', name: 'task', arguments: { goal: 'loop forever', max_steps: 2 } }] }),
      reply({ text: 'ok' }),
    ],
    children: {
      'loop forever': [
        reply({ text: 'looking', toolCalls: [{ name: 'glob', arguments: { pattern: '*.txt' } }] }),
        reply({ text: 'still looking', toolCalls: [{ name: 'glob', arguments: { pattern: '*.md' } }] }),
      ],
    },
  });
  const result = await setup.run('Delegate a long search.');
  assert.equal(result.reason, 'done');
  assert.deepEqual(setup.server.violations, []);
  const output = setup.store.getCall(result.sessionId, 'call_bounded')?.output ?? '';
  assert.match(output, /stopped at its step limit \(2 steps\) before it finished: the goal may be incomplete/);
  assert.match(output, /Its final answer:\nstill looking\n/);
});

test('S1 background task: a job id at once, then job status and job result; the notice comes once when nobody asked', async () => {
  let releaseChild = (): void => undefined;
  const childMayAnswer = new Promise<void>((resolve) => (releaseChild = resolve));
  /** The parent's job: the parent is the first session that started. Called once `setup` exists. */
  const jobOf = (): Promise<void> => {
    const parent = setup.events.find((event) => event.type === 'session-started')?.session_id ?? '';
    const [job] = setup.background.tasks(parent);
    assert.ok(job, 'the job exists');
    return job.finished;
  };
  const setup = await fixture({
    config: { permission: { mode: 'auto' } },
    parent: [
      reply({ toolCalls: [{ id: 'call_bg', name: 'task', arguments: { goal: 'slow survey', background: true } }] }),
      reply({ toolCalls: [{ id: 'call_status', name: 'job', arguments: { action: 'status', id: 'job-1' } }] }),
      async () => {
        releaseChild();
        await jobOf();
        return { toolCalls: [{ id: 'call_result', name: 'job', arguments: { action: 'result', id: 'job-1' } }] };
      },
      reply({ text: 'parent done' }),
    ],
    children: {
      'slow survey': [
        async () => {
          await childMayAnswer;
          return { text: 'survey complete' };
        },
      ],
    },
  });
  const result = await setup.run('Survey in the background.');
  assert.equal(result.reason, 'done');
  assert.deepEqual(setup.server.violations, []);
  const started = setup.store.getCall(result.sessionId, 'call_bg');
  assert.equal(started?.concurrency, 'IsolatedBackground');
  assert.match(started?.output ?? '', /^Started delegated job job-1 \(general, at most 25 steps, tools: .*\)\. It works in the background/);
  assert.match(
    setup.store.getCall(result.sessionId, 'call_status')?.output ?? '',
    /^job-1 \(general\) is running \(for .*\); its result is not ready yet/,
  );
  assert.match(
    setup.store.getCall(result.sessionId, 'call_result')?.output ?? '',
    /^job-1 \(general\) done after .*\nThe delegated agent \(general\) finished\.\nIts final answer:\nsurvey complete\n/,
  );
  // The result was read, so no notice repeats it.
  assert.equal(setup.background.takeFinishedNotices(result.sessionId), undefined);
});

test('S1: a finished background job is announced once to its session', async () => {
  const setup = await fixture({
    config: { permission: { mode: 'auto' } },
    parent: [reply({ toolCalls: [{ name: 'task', arguments: { goal: 'quick', background: true } }] }), reply({ text: 'started it' })],
    children: { quick: [reply({ text: 'quick answer' })] },
  });
  const result = await setup.run('Start it.');
  const [job] = setup.background.tasks(result.sessionId);
  assert.ok(job);
  await job.finished;
  assert.deepEqual(setup.server.violations, []);
  // The job may end before the parent's next step (the loop then delivers the notice in the
  // transcript) or after the run (the notice waits for the next step): either way, exactly once.
  const pending = setup.background.takeFinishedNotices(result.sessionId);
  const delivered = setup.store
    .messages(result.sessionId)
    .flatMap((message) => (message.role === 'user' && message.content.startsWith('Background work finished') ? [message.content] : []));
  const notices = [...delivered, ...(pending ? [pending] : [])];
  assert.equal(notices.length, 1, JSON.stringify(notices));
  assert.match(
    notices[0] ?? '',
    /^Background work finished since your last step:\n- Delegated job job-1 \(general: "quick"\) ended: done after .*\. Read its result with job \{"action": "result", "id": "job-1"\}\.$/,
  );
  assert.equal(setup.background.takeFinishedNotices(result.sessionId), undefined);
});

test('S1: cancelling the parent cancels its children', async () => {
  const controller = new AbortController();
  const setup = await fixture({
    config: { permission: { mode: 'auto' } },
    parent: [reply({ toolCalls: [{ id: 'call_stuck', name: 'task', arguments: { goal: 'stuck' } }] })],
    children: {
      stuck: [
        () => {
          // The child is mid-request: now the user cancels the parent.
          setImmediate(() => controller.abort());
          return { text: 'thinking…', stall: true };
        },
      ],
    },
  });
  const result = await setup.run('Delegate something slow.', controller.signal);
  assert.equal(result.reason, 'cancelled');
  const row = setup.store.getCall(result.sessionId, 'call_stuck');
  assert.equal(row?.status, 'cancelled');
  assert.match(row?.output ?? '', /was cancelled before it finished/);
  const child = setup.store.getSession(String(row?.metadata?.childSessionId));
  assert.equal(child?.status, 'cancelled');
});

test('T1 C1 Exclusive calls of sibling children never overlap: the second waits on the runtime-wide mutex', async () => {
  let active = 0;
  let most = 0;
  let entries = 0;
  /** Set once the fixture exists, before any probe runs. */
  const shared: { exclusivity?: AgentExclusivity } = {};
  const probe = defineTool({
    name: 'probe',
    description: 'An exclusive side effect that records overlaps.',
    parameters: z.strictObject({}),
    declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
    async run() {
      most = Math.max(most, ++active);
      // The first probe leaves only once the sibling's probe is queued on the mutex, or (were
      // there no mutex) running beside it; the second has nobody left to wait for.
      if (++entries === 1) {
        while (!(shared.exclusivity && shared.exclusivity.holders.waiting > 0) && most < 2)
          await new Promise((resolve) => setTimeout(resolve, 5));
      }
      active--;
      return { output: 'probed' };
    },
  });
  const setup = await fixture({
    config: { permission: { mode: 'auto' }, agents: { prober: { tools: ['probe'] } } },
    extraTools: [{ tool: probe, defaultSurface: false }],
    parent: [
      reply({
        toolCalls: [
          { name: 'task', arguments: { goal: 'probe a', agent: 'prober' } },
          { name: 'task', arguments: { goal: 'probe b', agent: 'prober' } },
        ],
      }),
      reply({ text: 'done' }),
    ],
    children: {
      'probe a': [reply({ toolCalls: [{ name: 'probe', arguments: {} }] }), reply({ text: 'a' })],
      'probe b': [reply({ toolCalls: [{ name: 'probe', arguments: {} }] }), reply({ text: 'b' })],
    },
  });
  shared.exclusivity = setup.exclusivity;
  const result = await setup.run('Probe twice.');
  assert.equal(result.reason, 'done');
  assert.deepEqual(setup.server.violations, []);
  assert.equal(most, 1);
});

test("T1 AgentExclusivity: the schedulers of a runtime share it; an Exclusive call of one agent waits for another's; reads, delegation and questions pass; a cancelled waiter never runs (issue 8 item 4)", async () => {
  const exclusivity = new AgentExclusivity();
  const opened: Record<string, () => void> = {};
  const entered: string[] = [];
  const gated = (
    name: string,
    declarations: { effect: 'SideEffecting' | 'ReadOnly' | 'Delegating' | 'UserMediated'; concurrency: 'Exclusive' | 'ParallelSafe' },
  ) =>
    defineTool({
      name,
      description: name,
      parameters: z.strictObject({ key: z.string() }),
      declarations: { ...declarations, replay: 'Never' },
      run: (args) =>
        new Promise((resolve) => {
          entered.push(args.key);
          opened[args.key] = () => resolve({ output: args.key });
          if (failed) resolve({ output: args.key });
        }),
    });
  // Once an assertion fails, every call is let go, so a broken mutex fails the test instead of hanging it.
  let failed = false;
  const tools = [
    gated('change', { effect: 'SideEffecting', concurrency: 'Exclusive' }),
    gated('look', { effect: 'ReadOnly', concurrency: 'ParallelSafe' }),
    gated('delegate', { effect: 'Delegating', concurrency: 'Exclusive' }),
    gated('ask', { effect: 'UserMediated', concurrency: 'Exclusive' }),
  ];
  const root = makeTempDir('zuno-exclusivity-');
  cleanups.push(() => removeDir(root));
  const env: CallEnvironment = {
    host: createNodeHost({ stateDir: join(root, 'state'), approvals: { request: async () => ({ approved: true }) } }),
    config: parseConfig({ permission: { mode: 'auto' } }),
    workspaceRoot: root,
  };
  // Each call is a turn of a different agent: its own scheduler, as a sibling child has.
  const agentTurn = (tool: string, key: string, signal = new AbortController().signal) =>
    new Scheduler({
      registry: new ToolRegistry(tools.map((entry) => ({ tool: entry, defaultSurface: true }))),
      ledger: new MemoryLedger(),
      events: new EventBus(),
      env,
      exclusivity,
    }).runTurn('session', [{ id: key, name: tool, arguments: JSON.stringify({ key }) }], { signal });
  const until = async (condition: () => boolean): Promise<void> => {
    for (let wait = 0; wait < 2000 && !condition(); wait++) await new Promise((resolve) => setTimeout(resolve, 1));
    if (condition()) return;
    failed = true;
    for (const open of Object.values(opened)) open();
    assert.fail(`the calls did not get there: entered ${JSON.stringify(entered)}, mutex ${JSON.stringify(exclusivity.holders)}`);
  };

  const first = agentTurn('change', 'change-a');
  await until(() => entered.includes('change-a'));
  const second = agentTurn('change', 'change-b');
  const others = [agentTurn('look', 'look'), agentTurn('delegate', 'delegate'), agentTurn('ask', 'ask')];
  await until(() => entered.length === 4 && exclusivity.holders.waiting === 1);
  assert.deepEqual([...entered].sort(), ['ask', 'change-a', 'delegate', 'look']);
  assert.deepEqual(exclusivity.holders, { held: true, waiting: 1 });
  opened['change-a']?.();
  await first;
  await until(() => entered.includes('change-b'));
  opened['change-b']?.();
  for (const key of ['look', 'delegate', 'ask']) opened[key]?.();
  const results = await Promise.all([second, ...others]);
  assert.deepEqual(
    results.map((result) => result[0]?.outcome.kind),
    ['ok', 'ok', 'ok', 'ok'],
  );
  assert.deepEqual(exclusivity.holders, { held: false, waiting: 0 });

  // A call cancelled while it waits for the mutex never runs.
  const holder = agentTurn('change', 'hold');
  await until(() => entered.includes('hold'));
  const controller = new AbortController();
  const waiting = agentTurn('change', 'never', controller.signal);
  await until(() => exclusivity.holders.waiting === 1);
  controller.abort();
  assert.equal((await waiting)[0]?.outcome.kind, 'cancelled');
  opened.hold?.();
  await holder;
  assert.ok(!entered.includes('never'));
});
