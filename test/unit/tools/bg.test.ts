// Background commands: shell {background: true} and the bg tool, on the real node host with real
// process groups. Nothing waits on wall-clock thresholds: commands finish when the test creates a
// file they are waiting for, and the tests wait on conditions.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BackgroundJobs } from '../../../src/core/background';
import { parseConfig, type ZunoConfigInput } from '../../../src/core/config';
import { ToolError } from '../../../src/core/errors';
import { EventBus } from '../../../src/core/events';
import type { ApprovalRequest } from '../../../src/core/host';
import { ToolRegistry } from '../../../src/core/registry';
import { Scheduler } from '../../../src/core/scheduler';
import type { ToolContext, ToolResult } from '../../../src/core/tool';
import { createNodeHost } from '../../../src/hosts/node/host';
import { bgTool } from '../../../src/tools/bg';
import { shellTool } from '../../../src/tools/shell';
import { MemoryLedger } from '../../support/memory-ledger';
import { isRunning, waitUntilGone } from '../../support/processes';
import { approveEverything, makeTempDir, makeToolContext, removeDir } from '../../support/tool-context';

const workspace = makeTempDir('zuno-bg-');
const stateDir = makeTempDir('zuno-bg-state-');
const host = createNodeHost({ stateDir, approvals: approveEverything });
const registries: BackgroundJobs[] = [];
after(async () => {
  for (const jobs of registries) await jobs.dispose();
  removeDir(workspace);
  removeDir(stateDir);
});

function newJobs(): BackgroundJobs {
  const jobs = new BackgroundJobs({ host });
  registries.push(jobs);
  return jobs;
}

/** For tests that follow a command's processes by host PID (`$$`): outside the sandbox's PID namespace (issue 12). */
const UNSANDBOXED = { sandbox: { mode: 'off' as const } };

function context(jobs: BackgroundJobs | undefined, sessionId = 'session-1', config: ZunoConfigInput = {}): ToolContext {
  return { ...makeToolContext({ workspaceRoot: workspace, stateDir, host, config }), sessionId, ...(jobs ? { background: jobs } : {}) };
}

async function call(tool: typeof bgTool, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  const parsed = tool.parse(args);
  assert.ok(parsed.success, JSON.stringify(parsed));
  return tool.run(parsed.args, ctx);
}

const shell = (args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> => call(shellTool, args, ctx);
const bg = (args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> => call(bgTool, args, ctx);

/** Polls a condition the test cannot await directly (output arriving from a child process). */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`timed out waiting until ${what}`);
}

/** A command that prints, then waits until the test creates `file`, then prints again. */
function gated(file: string): string {
  return `echo "pid=$$"; echo started; while [ ! -f ${file} ]; do sleep 0.05; done; echo finished`;
}

const idOf = (result: ToolResult): string => {
  const id = /bg-\d+/.exec(result.output)?.[0];
  assert.ok(id, result.output);
  return id;
};

test('T3 bg classifies each call from its arguments: list/output/wait ReadOnly+Safe+ParallelSafe, cancel SideEffecting+Never+Exclusive', () => {
  const inspect = { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' };
  for (const action of ['list', 'output', 'wait']) {
    const parsed = bgTool.parse({ action, id: 'bg-1' });
    assert.ok(parsed.success);
    assert.deepEqual(bgTool.declarationsFor(parsed.args), inspect, action);
  }
  const cancel = bgTool.parse({ action: 'cancel', id: 'bg-1' });
  assert.ok(cancel.success);
  assert.deepEqual(bgTool.declarationsFor(cancel.args), { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' });
});

test('C1 shell with background: true is IsolatedBackground and still SideEffecting/Never; without it, Exclusive', () => {
  const background = shellTool.parse({ command: 'sleep 1', background: true });
  assert.ok(background.success);
  assert.deepEqual(shellTool.declarationsFor(background.args), {
    effect: 'SideEffecting',
    replay: 'Never',
    concurrency: 'IsolatedBackground',
  });
  const foreground = shellTool.parse({ command: 'sleep 1', background: false });
  assert.ok(foreground.success);
  assert.deepEqual(shellTool.declarationsFor(foreground.args), { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' });
});

test('T3 bad input: output, wait and cancel need an id; unknown actions are refused', () => {
  for (const action of ['output', 'wait', 'cancel']) {
    const parsed = bgTool.parse({ action });
    assert.equal(parsed.success, false, action);
    if (!parsed.success) assert.match(parsed.error, /need the id of a background command/);
  }
  assert.equal(bgTool.parse({ action: 'kill', id: 'bg-1' }).success, false);
  assert.equal(bgTool.parse({ action: 'list', extra: 1 }).success, false);
});

test('S1: without a job registry bg is unavailable and shell background says what to do instead', async () => {
  const ctx = context(undefined);
  assert.match(bgTool.unavailableReason(ctx) ?? '', /not available in this host/);
  await assert.rejects(
    shell({ command: 'true', background: true }, ctx),
    (error: unknown) => error instanceof ToolError && /Run the command in the foreground/.test(error.message),
  );
});

test('S1: shell background returns its id at once; bg list/output/wait follow it; wait returns at the timeout while it runs, on exit once it ends', async () => {
  const jobs = newJobs();
  const ctx = context(jobs);
  const gate = join(workspace, 'gate-1');
  const started = await shell({ command: gated('gate-1'), background: true }, ctx);
  assert.equal(started.status ?? 'ok', 'ok');
  const id = idOf(started);
  assert.match(started.output, /bg \{"action": "output", "id": "bg-\d+"\}/);
  assert.match(started.output, /no timeout/);
  const job = jobs.command('session-1', id);
  assert.equal(job.running, true, 'the call returned while the command runs');

  await until(() => job.outputLines >= 2, 'the first lines arrived');
  const listed = await bg({ action: 'list' }, ctx);
  assert.match(listed.output, new RegExp(`${id}: still running .*2 lines of output`));

  const page = await bg({ action: 'output', id }, ctx);
  assert.match(page.output, /still running.*: lines 1–2 of 2 so far\./);
  assert.match(page.output, /\nstarted\n/);
  assert.match(page.output, /More output may follow/);

  const early = await bg({ action: 'wait', id, timeout_ms: 100 }, ctx);
  assert.match(early.output, /The timeout of 0\.1 s passed first/);
  assert.match(early.output, /still running/);
  assert.equal(early.metadata?.ended, false);

  writeFileSync(gate, '');
  const waited = await bg({ action: 'wait', id, timeout_ms: 600_000 }, ctx);
  assert.match(waited.output, /exited with code 0 after .* \(it ended before the .* timeout\)/);
  assert.match(waited.output, /finished/);
  assert.equal(waited.metadata?.ended, true);
  assert.equal(job.status, 'exited');
  assert.equal(job.exitCode, 0);
  // The full output is in the spill file.
  assert.match(readFileSync(job.outputPath, 'utf8'), /started\nfinished\n$/);
  // The model saw how it ended, so no notice repeats it.
  assert.equal(jobs.takeFinishedNotices('session-1'), undefined);
});

test('S1 bg output pages the spilled output by line: the last lines by default, offset/limit windows, an offset past the end is an error', async () => {
  const jobs = newJobs();
  const ctx = context(jobs);
  const id = idOf(await shell({ command: 'seq 1 500', background: true }, ctx));
  const job = jobs.command('session-1', id);
  await job.finished;

  const tail = await bg({ action: 'output', id }, ctx);
  assert.match(tail.output, /exited with code 0 after .*: lines 301–500 of 500\./);
  assert.match(tail.output, /\n301\n302\n/);
  assert.match(tail.output, /500\n\[Earlier lines: offset=1 to 300\.\]$/);

  const window = await bg({ action: 'output', id, offset: 10, limit: 5 }, ctx);
  assert.match(window.output, /lines 10–14 of 500\.\n10\n11\n12\n13\n14\n\[Earlier lines: offset=1 to 9\. Continue with offset=15\.\]/);

  await assert.rejects(
    bg({ action: 'output', id, offset: 501 }, ctx),
    (error: unknown) => error instanceof ToolError && /offset 501 is past the end: bg-\d+ has 500 lines/.test(error.message),
  );
});

test('S1: bg output stays within the byte cap and says where to continue', async () => {
  const jobs = newJobs();
  const ctx = { ...context(jobs), config: parseConfig({ tool_output: { max_bytes: 2048 } }) };
  const id = idOf(
    await shell({ command: `for i in $(seq 1 100); do printf 'line %03d %s\\n' $i "$(printf '%0100d' 0)"; done`, background: true }, ctx),
  );
  await jobs.command('session-1', id).finished;
  const page = await bg({ action: 'output', id, offset: 1, limit: 100 }, ctx);
  const shown = page.output.split('\n').filter((line) => line.startsWith('line '));
  assert.ok(shown.length > 0 && shown.length < 100, `${shown.length} lines shown`);
  assert.ok(Buffer.byteLength(page.output) < 2048 + 512);
  assert.match(
    page.output,
    new RegExp(`Continue with offset=${shown.length + 1} \\(this page was cut to stay within the output size cap\\)`),
  );
});

test('S1: bg cancel kills the whole process group and reports it; a second cancel says it had already ended', async () => {
  const jobs = newJobs();
  const ctx = context(jobs, 'session-1', UNSANDBOXED);
  const id = idOf(await shell({ command: 'echo "pid=$$"; sleep 60 & echo "child=$!"; wait', background: true }, ctx));
  const job = jobs.command('session-1', id);
  await until(() => /child=\d+/.test(job.tail(5)), 'the command printed its pids');
  const pid = Number(/pid=(\d+)/.exec(job.tail(5))?.[1]);
  const child = Number(/child=(\d+)/.exec(job.tail(5))?.[1]);
  assert.ok(isRunning(pid) && isRunning(child));

  const cancelled = await bg({ action: 'cancel', id }, ctx);
  assert.match(cancelled.output, /was stopped together with every process it started/);
  assert.equal(cancelled.metadata?.cancelled, true);
  assert.equal(job.status, 'killed');
  assert.ok(await waitUntilGone(pid), 'the shell is gone');
  assert.ok(await waitUntilGone(child), 'the sleep it started is gone');

  const again = await bg({ action: 'cancel', id }, ctx);
  assert.match(again.output, /had already ended \(killed by SIGTERM\); nothing was cancelled/);
});

test('S1: a timed-out background command is reported as timed out', async () => {
  const jobs = newJobs();
  const ctx = context(jobs);
  const id = idOf(await shell({ command: 'echo waiting; sleep 60', background: true, timeout_ms: 1000 }, ctx));
  assert.match((await bg({ action: 'list' }, ctx)).output, /running/);
  const job = jobs.command('session-1', id);
  await job.finished;
  assert.equal(job.status, 'timed out');
  assert.match(job.noticeLine(), /timed out after 1\.0 s and was killed/);
});

test('S1: an unknown id is an error that lists the known ids; another session sees none of them', async () => {
  const jobs = newJobs();
  const ctx = context(jobs);
  const id = idOf(await shell({ command: 'echo hi', background: true }, ctx));
  await assert.rejects(
    bg({ action: 'output', id: 'bg-99' }, ctx),
    (error: unknown) =>
      error instanceof ToolError && new RegExp(`no background command "bg-99".*known ones are: ${id} \\(`).test(error.message),
  );
  const other = context(jobs, 'session-2');
  await assert.rejects(
    bg({ action: 'wait', id }, other),
    (error: unknown) => error instanceof ToolError && /None was started/.test(error.message),
  );
  assert.match((await bg({ action: 'list' }, other)).output, /No background commands in this session/);
});

test('S1: a finished command tells its session once, at the next turn; other sessions are not told', async () => {
  const jobs = newJobs();
  const ctx = context(jobs);
  const id = idOf(await shell({ command: 'echo one; echo two', background: true }, ctx));
  await jobs.command('session-1', id).finished;
  assert.equal(jobs.takeFinishedNotices('session-2'), undefined);
  const notice = jobs.takeFinishedNotices('session-1');
  assert.ok(notice);
  assert.match(
    notice,
    new RegExp(
      `Background command ${id} \\(\`echo one; echo two\`\\) exited with code 0 after .* with 2 lines of output\\. See it with bg \\{"action": "output", "id": "${id}"\\}`,
    ),
  );
  assert.equal(jobs.takeFinishedNotices('session-1'), undefined, 'reported once');
});

test("S1: endSession stops that session's commands only; dispose kills every running command and refuses new ones", async () => {
  const jobs = newJobs();
  const first = context(jobs, 'session-a', UNSANDBOXED);
  const second = context(jobs, 'session-b', UNSANDBOXED);
  const ids = [
    idOf(await shell({ command: 'echo "pid=$$"; sleep 60', background: true }, first)),
    idOf(await shell({ command: 'echo "pid=$$"; sleep 60', background: true }, second)),
    idOf(await shell({ command: 'echo "pid=$$"; sleep 60', background: true }, second)),
  ];
  const all = [jobs.command('session-a', ids[0] ?? ''), jobs.command('session-b', ids[1] ?? ''), jobs.command('session-b', ids[2] ?? '')];
  await until(() => all.every((job) => /pid=\d+/.test(job.tail(1))), 'every command printed its pid');
  const pids = all.map((job) => Number(/pid=(\d+)/.exec(job.tail(1))?.[1]));

  await jobs.endSession('session-a');
  assert.ok(await waitUntilGone(pids[0] ?? 0));
  assert.equal(all[1]?.running, true);

  await jobs.dispose();
  for (const pid of pids) assert.ok(await waitUntilGone(pid), `${pid} is gone`);
  assert.ok(all.every((job) => !job.running && job.status === 'killed'));
  await assert.rejects(
    shell({ command: 'true', background: true }, second),
    (error: unknown) => error instanceof ToolError && /shutting down/.test(error.message),
  );
});

test('E1 through the scheduler in strict mode: bg list runs without approval, bg cancel and shell background are asked for', async () => {
  const jobs = newJobs();
  const asked: ApprovalRequest[] = [];
  const approvingHost = {
    ...host,
    approvals: { request: async (request: ApprovalRequest) => (asked.push(request), { approved: true as const }) },
  };
  const scheduler = new Scheduler({
    registry: new ToolRegistry([
      { tool: shellTool, defaultSurface: true },
      { tool: bgTool, defaultSurface: true },
    ]),
    ledger: new MemoryLedger(),
    events: new EventBus(),
    env: { host: approvingHost, config: parseConfig({}), workspaceRoot: workspace, background: jobs },
  });
  const signal = new AbortController().signal;
  const [start] = await scheduler.runTurn(
    'session-1',
    [{ id: 'c1', name: 'shell', arguments: JSON.stringify({ command: 'sleep 60', background: true }) }],
    { signal },
  );
  assert.equal(start?.outcome.kind, 'ok');
  const id = idOf(start ?? { output: '' });
  const results = await scheduler.runTurn(
    'session-1',
    [
      { id: 'c2', name: 'bg', arguments: JSON.stringify({ action: 'list' }) },
      { id: 'c3', name: 'bg', arguments: JSON.stringify({ action: 'cancel', id }) },
    ],
    { signal },
  );
  assert.deepEqual(
    results.map((result) => result.outcome.kind),
    ['ok', 'ok'],
  );
  assert.deepEqual(
    asked.map((request) => `${request.callId}:${request.tool}`),
    ['c1:shell', 'c3:bg'],
  );
  assert.equal(jobs.command('session-1', id).status, 'killed');
});

test('issue 8 §9 env filter: a background command inherits no secret, like a foreground one', async () => {
  process.env.ZUNO_BG_TEST_TOKEN = 'bg-token-value';
  try {
    const jobs = newJobs();
    const ctx = context(jobs);
    const id = idOf(await shell({ command: 'echo "token=${ZUNO_BG_TEST_TOKEN:-unset} home=${HOME:+set}"', background: true }, ctx));
    const waited = await bg({ action: 'wait', id, timeout_ms: 600_000 }, ctx);
    assert.match(waited.output, /token=unset home=set/);
  } finally {
    delete process.env.ZUNO_BG_TEST_TOKEN;
  }
});
