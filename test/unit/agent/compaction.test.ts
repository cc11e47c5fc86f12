// Staying inside the context window (issue 10 item 2): pruning, compaction with a handoff rebuilt
// from the store, a compacted retry after a context-length refusal, and a clear end when even that
// is refused. The agent loop runs over the real store, scheduler, node host and read tool against
// a scripted OpenAI server that enforces its window with `context_length_exceeded` and refuses a
// transcript whose tool results do not pair with their calls.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentRunResult } from '../../../src/agent/loop';
import { OpenAIProvider } from '../../../src/agent/openai';
import { createRuntime, type Runtime } from '../../../src/agent/runtime';
import { parseConfig, type ZunoConfigInput } from '../../../src/core/config';
import type { ZunoEvent } from '../../../src/core/events';
import { builtinToolRegistrations } from '../../../src/tools/index';
import { createNodeHost } from '../../../src/hosts/node/host';
import {
  startScriptedOpenAI,
  type RecordedRequest,
  type ScriptedOpenAIOptions,
  type ScriptedOpenAIServer,
  type ScriptedReply,
} from '../../support/scripted-openai';

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const TOOLS = new Set(['read', 'todo_update', 'goal_update', 'plan_update', 'write']);

interface Session {
  readonly server: ScriptedOpenAIServer;
  readonly workspace: string;
  readonly runtime: Runtime;
  run(
    prompt: string,
    options?: { sessionId?: string; compact?: boolean; maxSteps?: number },
  ): Promise<AgentRunResult & { events: ZunoEvent[] }>;
}

async function session(
  server: Omit<ScriptedOpenAIOptions, 'script'>,
  script: ScriptedOpenAIOptions['script'],
  files: Record<string, string>,
  config: ZunoConfigInput = {},
): Promise<Session> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-compaction-')));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const workspace = join(root, 'workspace');
  const stateDir = join(root, 'state');
  mkdirSync(workspace);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(workspace, name), content);
  const scripted = await startScriptedOpenAI({ ...server, script });
  cleanups.push(() => scripted.close());
  const runtime = await createRuntime({
    config: parseConfig(config),
    workspaceRoot: workspace,
    stateDir,
    host: createNodeHost({ stateDir, approvals: { request: async () => ({ approved: true }) } }),
    registrations: builtinToolRegistrations().filter((registration) => TOOLS.has(registration.tool.name)),
  });
  cleanups.push(() => runtime.close());
  const provider = new OpenAIProvider({
    baseUrl: scripted.baseUrl,
    model: 'scripted-model',
    apiKey: { key: undefined, envVar: undefined },
    retry: { attempts: 1, baseDelayMs: 1 },
  });
  return {
    server: scripted,
    workspace,
    runtime,
    async run(prompt, options = {}) {
      const events: ZunoEvent[] = [];
      const stop = runtime.events.on((event) => events.push(event));
      try {
        const result = await runtime.run({
          provider,
          prompt,
          signal: new AbortController().signal,
          ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
          ...(options.compact ? { compact: true } : {}),
          ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
        });
        return { ...result, events };
      } finally {
        stop();
      }
    },
  };
}

/** A summary request is the one without tools. */
const isSummaryRequest = (request: RecordedRequest): boolean => (request.body?.tools ?? []).length === 0;
const bodyText = (request: RecordedRequest): string => JSON.stringify(request.body?.messages ?? []);

/** A file of about `size` characters whose lines say which file they belong to. */
function bigFile(number: number, size: number): string {
  const lines: string[] = [];
  for (let line = 1; lines.join('\n').length < size; line++)
    lines.push(`file ${number} line ${line}: the quick brown fox jumps over the lazy dog ${number * 1000 + line}`);
  return lines.join('\n');
}

const GOAL = 'Audit every data file for the checksum mismatch reported in ticket 4711';
const PROMPT = 'Read data-01.txt to data-30.txt one after the other and tell me which one has the mismatch. Keep the todo list current.';

test('issue 10 item 2: thirty large reads against a 24k window end done, every request well formed, the last one still carrying the todos, the goal and the prompt', async (context) => {
  const files: Record<string, string> = {};
  for (let number = 1; number <= 30; number++) files[`data-${String(number).padStart(2, '0')}.txt`] = bigFile(number, 12_000);
  let step = 0;
  const script = (request: RecordedRequest): ScriptedReply => {
    if (isSummaryRequest(request)) return { text: 'Read the data files in order; none had the mismatch so far.' };
    step++;
    if (step === 1) {
      return {
        toolCalls: [
          { name: 'goal_update', arguments: { text: GOAL } },
          {
            name: 'todo_update',
            arguments: {
              todos: [
                { id: '1', content: 'Read all thirty data files', status: 'in_progress' },
                { id: '2', content: 'Report the file with the mismatch', status: 'pending' },
              ],
            },
          },
        ],
      };
    }
    // Models narrate as they go: the notes add up too, and only compaction can drop them.
    const notes = `Notes on the file before data-${step - 1}: ${'nothing unusual in its checksums; '.repeat(40)}`;
    if (step <= 31)
      return { text: notes, toolCalls: [{ name: 'read', arguments: { path: `data-${String(step - 1).padStart(2, '0')}.txt` } }] };
    return { text: 'None of the thirty files has the mismatch.' };
  };
  const fixture = await session({ contextWindow: 24_000, enforceWindow: true }, script, files);
  const result = await fixture.run(PROMPT);

  assert.equal(result.reason, 'done', result.error?.message);
  assert.deepEqual(fixture.server.violations, [], 'every request paired each tool call with exactly one result, in order');
  assert.ok(fixture.server.refusedAsTooLong.length <= 1, `requests refused as too long: ${fixture.server.refusedAsTooLong.join(', ')}`);
  const chats = fixture.server.chatRequests();
  const work = chats.filter((request) => !isSummaryRequest(request));
  assert.equal(work.length - fixture.server.refusedAsTooLong.length, 32, 'one accepted request per step');

  // A stable prefix, for automatic prompt caching (issue 10 item 5): the system prompt never changes within the run.
  assert.equal(new Set(work.map((request) => JSON.stringify(request.body?.messages[0]))).size, 1);

  const last = work.at(-1);
  assert.ok(last);
  const lastText = bodyText(last);
  assert.ok(lastText.includes(GOAL), 'the last request carries the goal');
  assert.ok(lastText.includes('Read all thirty data files'), 'the last request carries the todos');
  assert.ok(lastText.includes(PROMPT.replace(/\./g, '.')), "the last request carries the user's prompt verbatim");

  const compacted = result.events.filter((event) => event.type === 'context-compacted');
  assert.ok(compacted.length >= 1, 'the session was compacted');
  const largest = Math.max(...work.map((request) => Math.ceil(JSON.stringify(request.body).length / 4)));
  context.diagnostic(
    `${compacted.length} compactions, ${fixture.server.refusedAsTooLong.length} refused as too long, largest request about ${largest} of 24,000 tokens`,
  );
  assert.ok(
    chats.some((request) => bodyText(request).includes('[pruned] read data-')),
    'old read outputs were pruned to stubs first',
  );
  // The store keeps the whole history; only what is sent shrank.
  const stored = fixture.runtime.store.messages(result.sessionId);
  assert.equal(stored.filter((message) => message.role === 'tool').length, 32);
  assert.ok(stored.filter((message) => message.role === 'tool').every((message) => !message.content.startsWith('[pruned]')));
});

test('issue 10 item 2: the handoff is rebuilt from the store: the prompts verbatim, goal, todos, changed files and the indeterminate call with its attempt, plus the summary', async () => {
  const script = (request: RecordedRequest, index: number): ScriptedReply => {
    if (isSummaryRequest(request)) return { text: 'MODEL-SUMMARY: wrote notes.md.' };
    if (index === 0)
      return {
        toolCalls: [
          { name: 'goal_update', arguments: { text: GOAL } },
          { name: 'write', arguments: { path: 'notes.md', content: 'notes\n' } },
        ],
      };
    return { text: 'Done.' };
  };
  const fixture = await session({}, script, {});
  const first = await fixture.run('write the notes');
  assert.equal(first.reason, 'done', first.error?.message);
  // A call whose second attempt ended indeterminate.
  await fixture.runtime.store.recordStart({
    sessionId: first.sessionId,
    callId: 'lost-1',
    position: 0,
    tool: 'write',
    argumentsJson: JSON.stringify({ path: 'deploy.sh', content: 'x' }),
    declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
    attempt: 2,
    startedAt: Date.now(),
  });
  // A timed-out command: its effect may or may not have happened (R2).
  await fixture.runtime.store.recordFinish({
    sessionId: first.sessionId,
    callId: 'lost-1',
    outcome: 'indeterminate',
    output: 'INDETERMINATE: timed out',
    truncated: false,
    attempt: 2,
    finishedAt: Date.now(),
    durationMs: 5,
  });

  const second = await fixture.run('now compact and continue', { sessionId: first.sessionId, compact: true });
  assert.equal(second.reason, 'done', second.error?.message);
  assert.deepEqual(fixture.server.violations, []);
  const compacted = second.events.find((event) => event.type === 'context-compacted');
  assert.ok(compacted?.type === 'context-compacted');
  assert.equal(compacted.reason, 'manual');
  assert.deepEqual(compacted.kept, ['2 requests', 'goal', '1 changed file', '1 unresolved call', 'summary']);

  const sent = fixture.server.chatRequests().at(-1)?.body?.messages ?? [];
  const handoff =
    sent.find((message) => message.role === 'user' && (message.content ?? '').includes('Zuno rebuilt this handoff'))?.content ?? '';
  assert.match(handoff, /--- request 1 ---\nwrite the notes\n--- request 2 ---\nnow compact and continue/);
  assert.match(handoff, new RegExp(`Goal \\(active\\): ${GOAL}`));
  assert.match(handoff, /- notes\.md/);
  assert.match(handoff, /write \(call lost-1, attempt 2, indeterminate\): path="deploy\.sh"/);
  assert.match(handoff, /MODEL-SUMMARY: wrote notes\.md\./);
  // The newest turn (the prompt) is sent whole after the handoff; the old turns are not sent.
  assert.equal(sent.at(-1)?.content, 'now compact and continue');
  assert.ok(!sent.some((message) => message.role === 'tool'), 'the compacted tool results are not sent');

  // A later run of the session restores the compaction from the stored event: the old turns stay unsent.
  const third = await fixture.run('and one more thing', { sessionId: first.sessionId });
  assert.equal(third.reason, 'done', third.error?.message);
  const resumed = fixture.server.chatRequests().at(-1)?.body?.messages ?? [];
  assert.match(resumed[1]?.content ?? '', /^Earlier turns of this session were compacted/);
  assert.match(resumed[1]?.content ?? '', /MODEL-SUMMARY: wrote notes\.md\./);
  assert.ok(!resumed.some((message) => message.role === 'tool'), 'the compacted tool results are still not sent');
  assert.equal(resumed.at(-1)?.content, 'and one more thing');
  assert.ok(fixture.server.chatRequests().filter(isSummaryRequest).length === 1, 'no second summary request');
  assert.deepEqual(fixture.server.violations, []);
});

test('issue 10 item 2: a context-length refusal compacts once and retries; a second refusal ends the run naming model.context_window', async () => {
  const files = { 'a.txt': bigFile(1, 6000), 'b.txt': bigFile(2, 6000) };
  // The server states no window, so Zuno assumes 32k; the real one is far smaller.
  const readBoth = (): ((request: RecordedRequest) => ScriptedReply) => {
    let work = 0;
    return (request) => {
      if (isSummaryRequest(request)) return { text: 'Read a.txt and b.txt.' };
      work++;
      if (work === 1) return { toolCalls: [{ name: 'read', arguments: { path: 'a.txt' } }] };
      if (work === 2) return { toolCalls: [{ name: 'read', arguments: { path: 'b.txt' } }] };
      return { text: 'Both read.' };
    };
  };
  const script = readBoth();
  const tooLong = {
    error: { status: 400, message: "This model's maximum context length is 3000 tokens. (context_length_exceeded)" },
  } as const;
  let refusals = 0;
  const refusing = await session(
    {},
    (request, index) => {
      if (index === 2 && refusals === 0) {
        refusals++;
        return tooLong;
      }
      return script(request);
    },
    files,
  );
  const retried = await refusing.run('read both');
  assert.equal(retried.reason, 'done', retried.error?.message);
  assert.deepEqual(refusing.server.violations, []);
  const compacted = retried.events.filter((event) => event.type === 'context-compacted');
  assert.deepEqual(
    compacted.map((event) => event.type === 'context-compacted' && event.reason),
    ['overflow'],
  );

  const fresh = readBoth();
  const alwaysRefused = await session({}, (request, index) => (index >= 2 && !isSummaryRequest(request) ? tooLong : fresh(request)), files);
  const failed = await alwaysRefused.run('read both');
  assert.equal(failed.reason, 'error');
  assert.match(failed.error?.message ?? '', /still too long for the model's context.*model\.context_window/s);
  const refusedWork = alwaysRefused.server.chatRequests().filter((request) => !isSummaryRequest(request)).length - 2;
  assert.equal(refusedWork, 2, 'the refused request was retried once, compacted, and not again');
});

test('issue 10 item 2: when the summary request fails, the handoff still carries the facts from the store and the run goes on', async () => {
  const script = (request: RecordedRequest, index: number): ScriptedReply => {
    if (isSummaryRequest(request)) return { error: { status: 400, message: 'summaries are not available' } };
    if (index === 0) return { toolCalls: [{ name: 'goal_update', arguments: { text: GOAL } }] };
    return { text: 'Done.' };
  };
  const fixture = await session({}, script, {});
  const first = await fixture.run('set the goal');
  const second = await fixture.run('continue', { sessionId: first.sessionId, compact: true });
  assert.equal(second.reason, 'done', second.error?.message);
  const warning = second.events.find((event) => event.type === 'notice' && event.level === 'warning');
  assert.match(warning?.type === 'notice' ? warning.text : '', /could not summarise the older turns.*without a summary/);
  const compacted = second.events.find((event) => event.type === 'context-compacted');
  assert.deepEqual(compacted?.type === 'context-compacted' && compacted.kept, ['2 requests', 'goal']);
  const handoff = fixture.server.chatRequests().at(-1)?.body?.messages[1]?.content ?? '';
  assert.match(handoff, new RegExp(`Goal \\(active\\): ${GOAL}`));
  assert.doesNotMatch(handoff, /Summary of the earlier turns/);
});
