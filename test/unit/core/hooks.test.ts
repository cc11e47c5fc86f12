import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventBus, type ZunoEvent } from '../../../src/core/events';
import { HookRunner, type HookCall } from '../../../src/core/hooks';
import type { ZunoConfigInput } from '../../../src/core/config';
import { testEnvironment } from './fixtures';

const call: HookCall = {
  sessionId: 'session-1',
  callId: 'call-1',
  tool: 'shell',
  arguments: { command: 'npm test' },
  declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
};

function setup(hooks: ZunoConfigInput['hooks']) {
  const env = testEnvironment({ hooks });
  const events = new EventBus();
  const seen: ZunoEvent[] = [];
  events.on((event) => seen.push(event));
  return { env, runner: new HookRunner(env, events), seen, signal: new AbortController().signal };
}

test('§9 hooks: a pre-tool hook sees the validated call as JSON on stdin, and exit 0 lets it through', async () => {
  const { env, runner, signal } = setup({ pre_tool: [{ command: 'cat > seen.json' }] });
  assert.deepEqual(await runner.beforeCall(call, signal), { kind: 'continue' });
  const payload: unknown = JSON.parse(readFileSync(join(env.workspaceRoot, 'seen.json'), 'utf8'));
  assert.deepEqual(payload, {
    event: 'pre_tool',
    session_id: 'session-1',
    call_id: 'call-1',
    tool: 'shell',
    arguments: { command: 'npm test' },
    effect: 'SideEffecting',
    replay: 'Never',
    concurrency: 'Exclusive',
  });
});

test('§9 hooks: a pre-tool hook that exits 2 blocks the call with its stderr as the reason', async () => {
  const { runner, signal } = setup({ pre_tool: [{ command: 'echo "tests are frozen today" >&2; exit 2' }] });
  const verdict = await runner.beforeCall(call, signal);
  assert.deepEqual(verdict, {
    kind: 'blocked',
    reason: 'pre-tool hook `echo "tests are frozen today" >&2; exit 2` blocked the call: tests are frozen today',
  });
});

test('§9 hooks: a pre-tool hook that prints {"decision":"block"} blocks the call with its reason', async () => {
  const { runner, signal } = setup({ pre_tool: [{ command: `printf '%s' '{"decision":"block","reason":"no network calls"}'` }] });
  const verdict = await runner.beforeCall(call, signal);
  assert.equal(verdict.kind, 'blocked');
  assert.match(verdict.kind === 'blocked' ? verdict.reason : '', /blocked the call: no network calls$/);
});

test('§9 hooks: other JSON or plain text on stdout with exit 0 does not block', async () => {
  const { runner, signal } = setup({ pre_tool: [{ command: `echo '{"decision":"approve"}'; echo hello` }, { command: 'echo "[1,2]"' }] });
  assert.deepEqual(await runner.beforeCall(call, signal), { kind: 'continue' });
});

test('§9 hooks: a crashing pre-tool hook fails closed, and a notice names the hook and the exit', async () => {
  const { runner, seen, signal } = setup({ pre_tool: [{ command: 'echo boom >&2; exit 3' }] });
  const verdict = await runner.beforeCall(call, signal);
  assert.deepEqual(verdict, { kind: 'blocked', reason: 'pre-tool hook `echo boom >&2; exit 3` failed: exited with code 3: boom' });
  const notice = seen.find((event) => event.type === 'notice');
  assert.equal(notice?.type === 'notice' && notice.level, 'error');
  assert.match(notice?.type === 'notice' ? notice.text : '', /`echo boom >&2; exit 3` failed: exited with code 3.*blocked/);
});

test('§9 hooks: a hanging pre-tool hook is killed at its timeout and the call is blocked', async () => {
  const { runner, seen, signal } = setup({ pre_tool: [{ command: 'sleep 30', timeout_ms: 150 }] });
  const verdict = await runner.beforeCall(call, signal);
  assert.equal(verdict.kind, 'blocked');
  assert.match(verdict.kind === 'blocked' ? verdict.reason : '', /`sleep 30` failed: timed out after 150 ms and was killed/);
  assert.ok(seen.some((event) => event.type === 'notice' && event.level === 'error' && /timed out/.test(event.text)));
});

test('§9 hooks: a pre-tool hook that cannot start blocks the call and says so', async () => {
  const { env, signal } = setup({ pre_tool: [{ command: 'true' }] });
  const events = new EventBus();
  const seen: ZunoEvent[] = [];
  events.on((event) => seen.push(event));
  const runner = new HookRunner({ ...env, workspaceRoot: join(env.workspaceRoot, 'missing') }, events);
  const verdict = await runner.beforeCall(call, signal);
  assert.equal(verdict.kind, 'blocked');
  assert.match(verdict.kind === 'blocked' ? verdict.reason : '', /pre-tool hook `true` failed: could not be run/);
  assert.ok(seen.some((event) => event.type === 'notice' && event.level === 'error'));
});

test('§9 hooks: hooks run in config order, and the first that blocks stops the rest', async () => {
  const { env, runner, signal } = setup({
    pre_tool: [{ command: 'echo one >> order.txt' }, { command: 'echo two >> order.txt; exit 2' }, { command: 'echo three >> order.txt' }],
  });
  assert.equal((await runner.beforeCall(call, signal)).kind, 'blocked');
  assert.equal(readFileSync(join(env.workspaceRoot, 'order.txt'), 'utf8'), 'one\ntwo\n');
});

test('§9 hooks: a hook limited to some tools runs only for those', async () => {
  const { runner, signal } = setup({ pre_tool: [{ command: 'exit 2', tools: ['write'] }] });
  assert.deepEqual(await runner.beforeCall(call, signal), { kind: 'continue' });
  assert.equal((await runner.beforeCall({ ...call, tool: 'write' }, signal)).kind, 'blocked');
});

test('§9 hooks: cancelling the turn stops a running pre-tool hook and reports cancellation, not a block', async () => {
  const { env, runner, seen } = setup({ pre_tool: [{ command: 'echo started > started.txt; sleep 30', timeout_ms: 60_000 }] });
  const controller = new AbortController();
  const verdict = runner.beforeCall(call, controller.signal);
  // Abort only once the hook is really running.
  while (!existsSync(join(env.workspaceRoot, 'started.txt'))) await new Promise((resolve) => setTimeout(resolve, 10));
  controller.abort();
  assert.deepEqual(await verdict, { kind: 'cancelled' });
  assert.equal(seen.filter((event) => event.type === 'notice').length, 0);
});

test('§9 hooks: a post-tool hook observes the result as JSON on stdin', async () => {
  const { env, runner, seen, signal } = setup({ post_tool: [{ command: 'cat > result.json' }] });
  await runner.afterCall(call, { outcome: 'error', output: 'exit code 1' }, signal);
  const payload: unknown = JSON.parse(readFileSync(join(env.workspaceRoot, 'result.json'), 'utf8'));
  assert.deepEqual(payload, {
    event: 'post_tool',
    session_id: 'session-1',
    call_id: 'call-1',
    tool: 'shell',
    arguments: { command: 'npm test' },
    effect: 'SideEffecting',
    replay: 'Never',
    concurrency: 'Exclusive',
    outcome: 'error',
    output: 'exit code 1',
  });
  assert.deepEqual(seen, []);
});

test('§9 hooks: a failing post-tool hook only warns, naming the hook', async () => {
  const { runner, seen, signal } = setup({ post_tool: [{ command: 'echo nope >&2; exit 1' }, { command: 'sleep 30', timeout_ms: 100 }] });
  await runner.afterCall(call, { outcome: 'ok', output: '' }, signal);
  const notices = seen.flatMap((event) => (event.type === 'notice' ? [event] : []));
  assert.deepEqual(
    notices.map((notice) => notice.level),
    ['warning', 'warning'],
  );
  assert.match(notices[0]?.text ?? '', /post-tool hook `echo nope >&2; exit 1` failed for call call-1 \(shell\): exited with code 1: nope/);
  assert.match(notices[1]?.text ?? '', /`sleep 30` failed .*timed out after 100 ms/);
});
