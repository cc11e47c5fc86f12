// The agent loop over the real store, scheduler and node host, talking to a scripted OpenAI
// server on 127.0.0.1 that checks every request for tool-call/result pairing.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { SessionNotFoundError, type AgentRunResult, type QueuedPrompt } from '../../../src/agent/loop';
import { OpenAIProvider } from '../../../src/agent/openai';
import { createRuntime, type Runtime } from '../../../src/agent/runtime';
import { parseConfig } from '../../../src/core/config';
import type { ZunoEvent } from '../../../src/core/events';
import { defineTool } from '../../../src/core/tool';
import type { TranscriptMessage } from '../../../src/core/transcript';
import { createNodeHost } from '../../../src/hosts/node/host';
import { Store } from '../../../src/store/store';
import { startScriptedOpenAI, toolResults, type ScriptedOpenAIOptions, type ScriptedOpenAIServer } from '../../support/scripted-openai';

const noteTool = defineTool({
  name: 'note',
  description: 'Returns its text.',
  parameters: z.strictObject({ text: z.string() }),
  declarations: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' },
  run: async (args) => ({ output: `note:${args.text}` }),
});

/** Runs until the turn is cancelled, like a long command. */
const waitTool = defineTool({
  name: 'wait',
  description: 'Waits until cancelled.',
  parameters: z.strictObject({}),
  // Exclusive, so an earlier call of the turn has settled before the cancel lands (C1 barrier).
  declarations: { effect: 'ReadOnly', replay: 'Never', concurrency: 'Exclusive' },
  run: (_args, context) =>
    new Promise((resolve) => {
      const stop = (): void => resolve({ output: 'stopped', status: 'error' });
      if (context.signal.aborted) stop();
      else context.signal.addEventListener('abort', stop, { once: true });
    }),
});

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface Fixture {
  readonly server: ScriptedOpenAIServer;
  readonly stateDir: string;
  readonly workspace: string;
  open(): Promise<Runtime>;
  run(
    runtime: Runtime,
    prompt: string,
    options?: { sessionId?: string; signal?: AbortSignal; maxSteps?: number; takeQueuedMessages?: () => readonly QueuedPrompt[] },
  ): Promise<AgentRunResult & { events: ZunoEvent[] }>;
}

async function fixture(script: ScriptedOpenAIOptions['script']): Promise<Fixture> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-loop-')));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const workspace = join(root, 'workspace');
  const stateDir = join(root, 'state');
  mkdirSync(workspace);
  const server = await startScriptedOpenAI({ script });
  cleanups.push(() => server.close());
  const provider = new OpenAIProvider({
    baseUrl: server.baseUrl,
    model: 'scripted-model',
    apiKey: { key: undefined, envVar: undefined },
    retry: { attempts: 1, baseDelayMs: 1 },
  });
  return {
    server,
    stateDir,
    workspace,
    async open() {
      const host = createNodeHost({ stateDir, approvals: { request: async () => ({ approved: true }) } });
      const runtime = await createRuntime({
        config: parseConfig({}),
        workspaceRoot: workspace,
        stateDir,
        host,
        registrations: [
          { tool: noteTool, defaultSurface: true },
          { tool: waitTool, defaultSurface: true },
        ],
      });
      cleanups.push(() => runtime.close());
      return runtime;
    },
    async run(runtime, prompt, options = {}) {
      const events: ZunoEvent[] = [];
      const stop = runtime.events.on((event) => events.push(event));
      try {
        const result = await runtime.run({
          provider,
          prompt,
          signal: options.signal ?? new AbortController().signal,
          ...(options.sessionId ? { sessionId: options.sessionId } : {}),
          ...(options.maxSteps ? { maxSteps: options.maxSteps } : {}),
          ...(options.takeQueuedMessages ? { takeQueuedMessages: options.takeQueuedMessages } : {}),
        });
        return { ...result, events };
      } finally {
        stop();
      }
    },
  };
}

/** Each assistant tool call followed by exactly one tool message with its id, in order (core/transcript.ts). */
function assertPaired(messages: readonly TranscriptMessage[]): void {
  let pending: string[] = [];
  for (const message of messages) {
    if (message.role === 'tool') {
      assert.equal(message.callId, pending.shift(), 'tool results follow their calls in call order');
      continue;
    }
    assert.deepEqual(pending, [], 'no call is left without a result');
    pending = message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => call.id) : [];
  }
  assert.deepEqual(pending, []);
}

test('C2: the loop runs steps until the model stops; every call gets one result in call order, blocked ones included', async () => {
  const setup = await fixture([
    {
      toolCalls: [
        { id: 'c1', name: 'note', arguments: { text: 'one' } },
        { id: 'c2', name: 'note', arguments: { text: 'two' } },
      ],
    },
    {
      text: 'Trying a tool that does not exist.',
      toolCalls: [
        { id: 'c3', name: 'teleport', arguments: {} },
        { id: 'c4', name: 'note', arguments: { text: 7 } },
      ],
    },
    (request) => ({ text: `Results: ${[...toolResults(request).values()].join(' | ')}` }),
  ]);
  const runtime = await setup.open();
  const result = await setup.run(runtime, 'take notes');
  assert.equal(result.reason, 'done');
  assert.match(result.text, /^Results: note:one \| note:two \| BLOCKED \(unavailable\).*\| BLOCKED \(invalid_arguments\)/s);
  assert.deepEqual(setup.server.violations, []);
  assert.equal(setup.server.chatRequests().length, 3);

  const stored = runtime.store.messages(result.sessionId);
  assertPaired(stored);
  assert.deepEqual(
    stored.map((message) => message.role),
    ['user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'tool', 'assistant'],
  );
  const types = result.events.map((event) => event.type).filter((type) => type !== 'assistant-delta');
  assert.equal(types[0], 'session-started');
  const started = result.events[0];
  assert.equal(started?.type === 'session-started' && started.resumed, false);
  assert.equal(types[1], 'user-message');
  assert.equal(types.at(-1), 'session-finished');
  assert.ok(types.indexOf('dispatch-blocked') < types.lastIndexOf('assistant-message'), 'the block is announced before the model reads it');
  assert.ok(
    result.events.some((event) => event.type === 'assistant-delta'),
    'text is streamed as deltas',
  );

  // Everything but the streaming fragments is persisted, in order.
  const persisted = runtime.store.events(result.sessionId).map((event) => event.type);
  assert.deepEqual(
    persisted,
    types.filter((type) => type !== 'tool-call-output'),
  );
  assert.equal(runtime.store.getSession(result.sessionId)?.status, 'done');
  // The tools the model was offered, each time.
  assert.deepEqual(
    setup.server.chatRequests()[0]?.body?.tools?.map((tool) => tool.function.name),
    ['note', 'wait'],
  );
});

test('issue 2 §10: the step limit stops the loop, says so, and leaves the transcript paired', async () => {
  const setup = await fixture(() => ({ toolCalls: [{ name: 'note', arguments: { text: 'again' } }] }));
  const runtime = await setup.open();
  const result = await setup.run(runtime, 'loop forever', { maxSteps: 3 });
  assert.equal(result.reason, 'step-limit');
  assert.equal(setup.server.chatRequests().length, 3);
  const finished = result.events.find((event) => event.type === 'session-finished');
  assert.deepEqual(finished && { reason: finished.reason, message: finished.message }, {
    reason: 'step-limit',
    message: `Stopped after 3 model steps (model.max_steps). Continue with --session ${result.sessionId}, or raise model.max_steps.`,
  });
  assertPaired(runtime.store.messages(result.sessionId));
  assert.equal(runtime.store.getSession(result.sessionId)?.status, 'step-limit');
  assert.deepEqual(setup.server.violations, []);
});

test('I5: cancelling while a tool runs records cancelled outcomes, pairs every call, and the session continues cleanly', async () => {
  const setup = await fixture([
    {
      toolCalls: [
        { id: 'k1', name: 'note', arguments: { text: 'before' } },
        { id: 'k2', name: 'wait', arguments: {} },
      ],
    },
    { text: 'Picking up after the cancel.' },
  ]);
  const runtime = await setup.open();
  const controller = new AbortController();
  runtime.events.on((event) => {
    if (event.type === 'tool-call-started' && event.tool === 'wait') controller.abort();
  });
  const cancelled = await setup.run(runtime, 'start waiting', { signal: controller.signal });
  assert.equal(cancelled.reason, 'cancelled');
  const messages = runtime.store.messages(cancelled.sessionId);
  assertPaired(messages);
  const last = messages.at(-1);
  assert.equal(last?.role === 'tool' && last.callId, 'k2');
  assert.deepEqual(
    runtime.store.calls(cancelled.sessionId).map((call) => [call.callId, call.status]),
    [
      ['k1', 'ok'],
      ['k2', 'cancelled'],
    ],
  );
  assert.equal(runtime.store.getSession(cancelled.sessionId)?.status, 'cancelled');

  const resumed = await setup.run(runtime, 'go on', { sessionId: cancelled.sessionId });
  assert.equal(resumed.reason, 'done');
  assert.equal(resumed.text, 'Picking up after the cancel.');
  assert.deepEqual(setup.server.violations, []);
});

test('issue 2 §10: cancelling while the model streams adds no assistant message', async () => {
  const setup = await fixture([{ text: 'I am thinking about', stall: true }]);
  const runtime = await setup.open();
  const controller = new AbortController();
  runtime.events.on((event) => {
    if (event.type === 'assistant-delta') controller.abort();
  });
  const result = await setup.run(runtime, 'think', { signal: controller.signal });
  assert.equal(result.reason, 'cancelled');
  assert.deepEqual(
    runtime.store.messages(result.sessionId).map((message) => message.role),
    ['user'],
  );
});

test('R3: resuming after a crash turns running calls indeterminate, pairs them from the store, and the notice from SQL reaches the model once', async () => {
  const setup = await fixture([{ text: 'I will check the state first.' }, { text: 'Second run, no notice.' }]);
  // A previous process: it recorded the start of r1, then died; r2 never started.
  const crashed = await Store.open({ stateDir: setup.stateDir });
  const session = crashed.createSession({ workspace: setup.workspace });
  crashed.appendMessage(session.id, { role: 'user', content: 'append a line' });
  crashed.appendMessage(session.id, {
    role: 'assistant',
    content: '',
    toolCalls: [
      { id: 'r1', name: 'note', arguments: '{"text":"side effect"}' },
      { id: 'r2', name: 'note', arguments: '{"text":"later"}' },
    ],
  });
  await crashed.recordStart({
    sessionId: session.id,
    callId: 'r1',
    position: 0,
    tool: 'note',
    argumentsJson: '{"text":"side effect"}',
    declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
    attempt: 1,
    startedAt: Date.now(),
  });
  await crashed.close();

  const runtime = await setup.open();
  const result = await setup.run(runtime, 'continue', { sessionId: session.id });
  assert.equal(result.reason, 'done');
  assert.equal(runtime.store.getCall(session.id, 'r1')?.status, 'indeterminate');
  const started = result.events[0];
  assert.equal(started?.type === 'session-started' && started.resumed, true);

  const first = setup.server.chatRequests()[0]?.body?.messages ?? [];
  const results = first.filter((message) => message.role === 'tool');
  assert.deepEqual(
    results.map((message) => message.tool_call_id),
    ['r1', 'r2'],
  );
  assert.match(results[0]?.content ?? '', /may or may not have happened/);
  assert.match(results[1]?.content ?? '', /NOT EXECUTED/);
  const notice = first.find((message) => message.role === 'user' && (message.content ?? '').startsWith('RECOVERY NOTICE'));
  assert.match(notice?.content ?? '', /call r1: tool "note" with text="side effect"; attempt 1; outcome: indeterminate/);
  assert.equal(first.at(-1)?.content, 'continue', 'the notice comes before the new prompt');
  const noticeEvents = result.events.filter((event) => event.type === 'recovery-notice');
  assert.deepEqual(
    noticeEvents.map((event) => [event.call_id, event.attempt, event.tool]),
    [['r1', 1, 'note']],
  );
  assert.deepEqual(setup.server.violations, []);

  // Delivered once: the next run does not add it again.
  const again = await setup.run(runtime, 'and again', { sessionId: session.id });
  assert.equal(again.events.filter((event) => event.type === 'recovery-notice').length, 0);
  const secondMessages = setup.server.chatRequests()[1]?.body?.messages ?? [];
  assert.equal(secondMessages.filter((message) => (message.content ?? '').startsWith('RECOVERY NOTICE')).length, 1);
});

test('issue 2 §10: call ids a server repeats across turns are made unique, so each call keeps its own row', async () => {
  const setup = await fixture([
    { toolCalls: [{ id: 'call_0', name: 'note', arguments: { text: 'first' } }] },
    { toolCalls: [{ id: 'call_0', name: 'note', arguments: { text: 'second' } }] },
    { text: 'done' },
  ]);
  const runtime = await setup.open();
  const result = await setup.run(runtime, 'two turns');
  assert.deepEqual(
    runtime.store.calls(result.sessionId).map((call) => [call.callId, call.status]),
    [
      ['call_0', 'ok'],
      ['call_0-2', 'ok'],
    ],
  );
  assert.deepEqual(setup.server.violations, []);
});

test('issue 2 §10: a provider failure ends the run with reason error and the message, without throwing', async () => {
  const setup = await fixture([{ error: { status: 401, message: 'bad key' } }]);
  const runtime = await setup.open();
  const result = await setup.run(runtime, 'hello');
  assert.equal(result.reason, 'error');
  assert.match(result.error?.message ?? '', /HTTP 401: bad key/);
  const finished = result.events.find((event) => event.type === 'session-finished');
  assert.equal(finished?.type === 'session-finished' && finished.reason, 'error');
  assert.equal(runtime.store.getSession(result.sessionId)?.status, 'error');
});

test('issue 2 §11: continuing a session that does not exist says which sessions exist', async () => {
  const setup = await fixture([]);
  const runtime = await setup.open();
  await assert.rejects(setup.run(runtime, 'hi', { sessionId: 'no-such-session' }), (error: unknown) => {
    assert.ok(error instanceof SessionNotFoundError);
    assert.match(error.message, /There is no session "no-such-session" in .*Leave out --session to start a new one/);
    return true;
  });
});

test('issue 14 item 7: messages typed during a run reach the model at its next step, also after a final answer, in order', async () => {
  const setup = await fixture([
    { toolCalls: [{ id: 'q1', name: 'note', arguments: { text: 'one' } }] },
    { text: 'Done with the note.' },
    { text: 'And the second thing too.' },
  ]);
  const runtime = await setup.open();
  const queue: (readonly QueuedPrompt[])[] = [[], [{ text: 'also check the README' }], [{ text: 'and tell me when done' }]];
  const result = await setup.run(runtime, 'take a note', { takeQueuedMessages: () => queue.shift() ?? [] });
  assert.equal(result.reason, 'done');
  assert.equal(result.text, 'And the second thing too.');
  const stored = runtime.store.messages(result.sessionId);
  assertPaired(stored);
  assert.deepEqual(
    stored.map((message) => (message.role === 'user' ? `user:${message.content}` : message.role)),
    ['user:take a note', 'assistant', 'tool', 'user:also check the README', 'assistant', 'user:and tell me when done', 'assistant'],
  );
  assert.equal(setup.server.chatRequests().length, 3);
  const users = result.events.flatMap((event) => (event.type === 'user-message' ? [event.text] : []));
  assert.deepEqual(
    users,
    ['take a note', 'also check the README', 'and tell me when done'],
    "each queued message shows in the chat as the user's",
  );
});
