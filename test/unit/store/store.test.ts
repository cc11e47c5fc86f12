// The store's behaviour within one process: sessions, transcript, events, the call ledger and
// its at-most-once rules, read-only opening, and reopening (journal replay).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Store, StoreUsageError, StateDirInUseError } from '../../../src/store/store';
import type { ZunoEvent } from '../../../src/core/events';
import { callFinish, callStart, temporaryDirectory } from '../../support/store-fixtures';

async function openStore(context: Parameters<typeof temporaryDirectory>[0], stateDir = temporaryDirectory(context)): Promise<Store> {
  const store = await Store.open({ stateDir });
  context.after(() => store.close());
  return store;
}

test('issue 2 §8: sessions: created active, listed, status changed, duplicate ids refused', async (context) => {
  const store = await openStore(context);
  const first = store.createSession({ id: 's1', workspace: '/w', title: 'first' });
  assert.deepEqual([first.id, first.workspace, first.title, first.status], ['s1', '/w', 'first', 'active']);
  const generated = store.createSession({ workspace: '/w' });
  assert.match(generated.id, /^[0-9a-f-]{36}$/);
  store.setSessionStatus('s1', 'done');
  assert.equal(store.getSession('s1')?.status, 'done');
  assert.deepEqual(
    store
      .listSessions()
      .map((session) => session.id)
      .sort(),
    ['s1', generated.id].sort(),
  );
  assert.throws(() => store.createSession({ id: 's1', workspace: '/w' }), /A session "s1" already exists/);
  assert.throws(() => store.setSessionStatus('nope', 'done'), /There is no session "nope"/);
  assert.equal(store.getSession('nope'), undefined);
});

test('issue 2 §8: transcript and events keep their order and survive a reopen (journal replay)', async (context) => {
  const stateDir = temporaryDirectory(context);
  const store = await Store.open({ stateDir });
  store.createSession({ id: 's1', workspace: '/w' });
  store.appendMessage('s1', { role: 'user', content: 'hello' });
  store.appendMessage('s1', { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read', arguments: '{"path":"a"}' }] });
  store.appendMessage('s1', { role: 'tool', callId: 'c1', toolName: 'read', content: '1: a' });
  const events: ZunoEvent[] = [
    { type: 'session-started', ts: 1, session_id: 's1' },
    { type: 'tool-call-finished', call_id: 'c1', tool: 'read', outcome: 'ok', duration_ms: 3, truncated: false, ts: 2, session_id: 's1' },
  ];
  for (const event of events) store.recordEvent(event);
  assert.throws(() => store.appendMessage('other', { role: 'user', content: 'x' }), /There is no session "other"/);
  await store.close();

  const reopened = await openStore(context, stateDir);
  assert.deepEqual(reopened.messages('s1'), [
    { role: 'user', content: 'hello' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read', arguments: '{"path":"a"}' }] },
    { role: 'tool', callId: 'c1', toolName: 'read', content: '1: a' },
  ]);
  assert.deepEqual(reopened.events('s1'), events);
  reopened.appendMessage('s1', { role: 'user', content: 'after reopen' });
  assert.equal(reopened.messages('s1').at(-1)?.content, 'after reopen');
});

test('I5/B2: each call keeps one outcome with its declarations, blocked category and timestamps; a never-started call is recorded in one step', async (context) => {
  const store = await openStore(context);
  store.createSession({ id: 's1', workspace: '/w' });
  await store.recordStart(
    callStart('s1', 'ok-call', { tool: 'read', declarations: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' } }),
  );
  await store.recordFinish(callFinish('s1', 'ok-call', { metadata: { lines: 3 }, truncated: true }));
  await store.recordBlocked(
    callStart('s1', 'denied-call', { position: 1 }),
    callFinish('s1', 'denied-call', { outcome: 'blocked', category: 'denied', output: 'BLOCKED (denied)' }),
  );
  const [ok, blocked] = store.calls('s1');
  assert.deepEqual(
    {
      status: ok?.status,
      effect: ok?.effect,
      replay: ok?.replay,
      concurrency: ok?.concurrency,
      metadata: ok?.metadata,
      truncated: ok?.truncated,
      startedAt: ok?.startedAt,
      finishedAt: ok?.finishedAt,
      durationMs: ok?.durationMs,
    },
    {
      status: 'ok',
      effect: 'ReadOnly',
      replay: 'Safe',
      concurrency: 'ParallelSafe',
      metadata: { lines: 3 },
      truncated: true,
      startedAt: 1000,
      finishedAt: 2000,
      durationMs: 1000,
    },
  );
  assert.deepEqual([blocked?.status, blocked?.category, blocked?.output], ['blocked', 'denied', 'BLOCKED (denied)']);
  assert.deepEqual(store.callAttempts('s1', 'denied-call'), [], 'a blocked call never started, so it has no attempt');
  await assert.rejects(store.recordFinish(callFinish('s1', 'ok-call')), /cannot finish attempt 1: it is ok/);
  await assert.rejects(
    store.recordBlocked(callStart('s1', 'x'), callFinish('s1', 'x', { outcome: 'ok' })),
    /never started, so it can only be recorded as blocked \(with a category\), cancelled or error; got ok/,
  );
  await assert.rejects(store.recordBlocked(callStart('s1', 'x'), callFinish('s1', 'x', { outcome: 'blocked' })), /got blocked\./);
  await store.recordBlocked(
    callStart('s1', 'cancelled-call', { position: 2 }),
    callFinish('s1', 'cancelled-call', { outcome: 'cancelled', output: 'CANCELLED' }),
  );
  assert.deepEqual([store.calls('s1')[2]?.status, store.callAttempts('s1', 'cancelled-call')], ['cancelled', []]);
  await assert.rejects(store.recordFinish(callFinish('s1', 'never-started')), /was never started/);
});

test('C2: calls come back in model order (turn, then position) even when a blocked call is recorded first', async (context) => {
  const store = await openStore(context);
  store.createSession({ id: 's1', workspace: '/w' });
  // Turn 1: preflight blocks position 1 before positions 0 and 2 start; they finish out of order.
  await store.recordBlocked(
    callStart('s1', 't1-p1', { turn: 1, position: 1 }),
    callFinish('s1', 't1-p1', { outcome: 'blocked', category: 'invalid_arguments' }),
  );
  await store.recordStart(callStart('s1', 't1-p2', { turn: 1, position: 2 }));
  await store.recordStart(callStart('s1', 't1-p0', { turn: 1, position: 0 }));
  await store.recordFinish(callFinish('s1', 't1-p2'));
  await store.recordFinish(callFinish('s1', 't1-p0'));
  await store.recordStart(callStart('s1', 't2-p0', { turn: 2, position: 0 }));
  assert.deepEqual(
    store.calls('s1').map((call) => call.callId),
    ['t1-p0', 't1-p1', 't1-p2', 't2-p0'],
  );
});

test("C2: without a turn, the transcript gives it: each assistant message's calls by position, across resumed runs", async (context) => {
  const stateDir = temporaryDirectory(context);
  const untimed = (callId: string, position: number) => {
    const { turn: _turn, ...start } = callStart('s1', callId, { position });
    return start;
  };
  const first = await Store.open({ stateDir });
  first.createSession({ id: 's1', workspace: '/w' });
  first.appendMessage('s1', { role: 'user', content: 'go' });
  first.appendMessage('s1', {
    role: 'assistant',
    content: '',
    toolCalls: [
      { id: 'a0', name: 'read', arguments: '{}' },
      { id: 'a1', name: 'shell', arguments: '{}' },
      { id: 'a2', name: 'read', arguments: '{}' },
    ],
  });
  // The scheduler starts positions 0 and 2, and records the blocked position 1 last.
  await first.recordStart(untimed('a0', 0));
  await first.recordStart(untimed('a2', 2));
  await first.recordBlocked(untimed('a1', 1), callFinish('s1', 'a1', { outcome: 'blocked', category: 'denied' }));
  await first.close();

  const resumed = await openStore(context, stateDir);
  resumed.appendMessage('s1', { role: 'assistant', content: '', toolCalls: [{ id: 'b0', name: 'read', arguments: '{}' }] });
  await resumed.recordStart(untimed('b0', 0));
  assert.deepEqual(
    resumed.calls('s1').map((call) => [call.callId, call.turn]),
    [
      ['a0', 2],
      ['a1', 2],
      ['a2', 2],
      ['b0', 3],
    ],
  );
});

test('C2: with neither a turn nor a transcript, calls come back in the order they were first recorded', async (context) => {
  const store = await openStore(context);
  store.createSession({ id: 's1', workspace: '/w' });
  for (const [callId, position] of [
    ['a', 0],
    ['b', 1],
    ['c', 0],
  ] as const) {
    const { turn: _turn, ...start } = callStart('s1', callId, { position });
    await store.recordStart(start);
  }
  assert.deepEqual(
    store.calls('s1').map((call) => call.callId),
    ['a', 'b', 'c'],
  );
});

test('R1/R3: the ledger refuses to start a call twice, or to restart one that did not end in error', async (context) => {
  const store = await openStore(context);
  store.createSession({ id: 's1', workspace: '/w' });
  await store.recordStart(callStart('s1', 'c1'));
  await assert.rejects(
    store.recordStart(callStart('s1', 'c1')),
    (error: unknown) =>
      error instanceof StoreUsageError && /Refusing to start call c1 \(attempt 1\).*running at attempt 1/.test(error.message),
  );
  await assert.rejects(store.recordStart(callStart('s1', 'c1', { attempt: 2 })), /already recorded as running/);
  await store.recordFinish(callFinish('s1', 'c1', { outcome: 'indeterminate' }));
  await assert.rejects(store.recordStart(callStart('s1', 'c1', { attempt: 2 })), /already recorded as indeterminate/);
  await assert.rejects(store.recordStart(callStart('nope', 'c1')), /There is no session "nope"/);
});

test('R2: a Safe call retried while its attempt still runs (a transient failure) closes that attempt as failed', async (context) => {
  const store = await openStore(context);
  store.createSession({ id: 's1', workspace: '/w' });
  const safe = { tool: 'webfetch', declarations: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' } } as const;
  await store.recordStart(callStart('s1', 'fetch', { ...safe, startedAt: 10 }));
  await store.recordStart(callStart('s1', 'fetch', { ...safe, attempt: 2, startedAt: 30 }));
  await store.recordFinish(callFinish('s1', 'fetch', { attempt: 2, finishedAt: 40 }));
  assert.deepEqual(
    store.callAttempts('s1', 'fetch').map((attempt) => [attempt.attempt, attempt.status, attempt.output, attempt.finishedAt]),
    [
      [1, 'error', 'This attempt failed; the call was tried again as attempt 2.', 30],
      [2, 'ok', 'output of fetch', 40],
    ],
  );
});

test('R1: a Never call never gets a second attempt, even after an error; a running call from an earlier process is not retried', async (context) => {
  const stateDir = temporaryDirectory(context);
  const first = await Store.open({ stateDir });
  first.createSession({ id: 's1', workspace: '/w' });
  await first.recordStart(callStart('s1', 'shell-call'));
  await first.recordFinish(callFinish('s1', 'shell-call', { outcome: 'error' }));
  await assert.rejects(
    first.recordStart(callStart('s1', 'shell-call', { attempt: 2 })),
    /already recorded as error at attempt 1 \(replay Never\)/,
  );
  const safe = { tool: 'webfetch', declarations: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' } } as const;
  await first.recordStart(callStart('s1', 'fetch', { ...safe, position: 1 }));
  await first.close();

  const store = await openStore(context, stateDir);
  await assert.rejects(
    store.recordStart(callStart('s1', 'fetch', { ...safe, position: 1, attempt: 2 })),
    /already recorded as running at attempt 1/,
  );
});

test('R2: every attempt of a retried Safe call is recorded, and the call keeps the last outcome', async (context) => {
  const store = await openStore(context);
  store.createSession({ id: 's1', workspace: '/w' });
  const safe = { tool: 'webfetch', declarations: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' } } as const;
  await store.recordStart(callStart('s1', 'fetch', { ...safe, startedAt: 10 }));
  await store.recordFinish(callFinish('s1', 'fetch', { outcome: 'error', output: 'connection reset', finishedAt: 20, durationMs: 10 }));
  await assert.rejects(store.recordStart(callStart('s1', 'fetch', { ...safe, attempt: 1 })), /higher attempt number/);
  await store.recordStart(callStart('s1', 'fetch', { ...safe, attempt: 2, startedAt: 30 }));
  await store.recordFinish(callFinish('s1', 'fetch', { attempt: 2, output: '<html>', finishedAt: 45, durationMs: 15 }));
  assert.deepEqual(
    store
      .callAttempts('s1', 'fetch')
      .map((attempt) => [attempt.attempt, attempt.status, attempt.output, attempt.startedAt, attempt.durationMs]),
    [
      [1, 'error', 'connection reset', 10, 10],
      [2, 'ok', '<html>', 30, 15],
    ],
  );
  const [call] = store.calls('s1');
  assert.deepEqual([call?.status, call?.attempt, call?.output, call?.startedAt, call?.finishedAt], ['ok', 2, '<html>', 10, 45]);
});

test('R3: recovery leaves alone the calls this process is running, and touches only the given session', async (context) => {
  const stateDir = temporaryDirectory(context);
  const first = await Store.open({ stateDir });
  first.createSession({ id: 's1', workspace: '/w' });
  first.createSession({ id: 's2', workspace: '/w' });
  await first.recordStart(callStart('s1', 'old'));
  await first.recordStart(callStart('s2', 'other-session'));
  await first.close(); // the process "ends" with both calls running

  const store = await openStore(context, stateDir);
  await store.recordStart(callStart('s1', 'mine', { position: 1 }));
  assert.deepEqual(
    store.recoverInterrupted('s1').map((call) => call.callId),
    ['old'],
  );
  assert.deepEqual(
    store.calls('s1').map((call) => [call.callId, call.status]),
    [
      ['old', 'indeterminate'],
      ['mine', 'running'],
    ],
  );
  assert.equal(store.calls('s2')[0]?.status, 'running');
  await store.recordFinish(callFinish('s1', 'mine'));
});

test('R3: recovery notices stay pending until marked delivered, and survive a reopen', async (context) => {
  const stateDir = temporaryDirectory(context);
  const first = await Store.open({ stateDir });
  first.createSession({ id: 's1', workspace: '/w' });
  await first.recordStart(callStart('s1', 'c1', { position: 0 }));
  await first.recordStart(callStart('s1', 'c2', { position: 1, tool: 'write', argumentsJson: '{"path":"a.txt","content":"hi"}' }));
  await first.close();

  const second = await Store.open({ stateDir });
  second.recoverInterrupted('s1');
  await second.close();

  const store = await openStore(context, stateDir);
  const pending = store.pendingRecoveryNotices('s1');
  assert.deepEqual(
    pending.map((notice) => [notice.callId, notice.tool, notice.argumentSummary]),
    [
      ['c1', 'shell', 'command="echo c1"'],
      ['c2', 'write', 'path="a.txt", content="hi"'],
    ],
  );
  store.markNoticesDelivered(pending.slice(0, 1));
  assert.deepEqual(
    store.pendingRecoveryNotices('s1').map((notice) => notice.callId),
    ['c2'],
  );
});

test("issue 2 §8: a read-only store sees a live writer's data without the lock, and refuses to write", async (context) => {
  const stateDir = temporaryDirectory(context);
  const writer = await openStore(context, stateDir);
  writer.createSession({ id: 's1', workspace: '/w' });
  await writer.recordStart(callStart('s1', 'c1'));
  const reader = await Store.open({ stateDir, readOnly: true });
  context.after(() => reader.close());
  assert.equal(reader.calls('s1')[0]?.status, 'running');
  assert.throws(() => reader.createSession({ workspace: '/w' }), /opened read-only/);
  assert.throws(() => reader.recoverInterrupted('s1'), /opened read-only/);
  assert.equal(writer.calls('s1')[0]?.status, 'running', 'the reader changed nothing');
});

test('issue 9: one writer per session: a second store writing the same session is refused; another session is not', async (context) => {
  const stateDir = temporaryDirectory(context);
  const first = await openStore(context, stateDir);
  first.createSession({ id: 's1', workspace: '/w' });
  const second = await Store.open({ stateDir });
  context.after(() => second.close());
  assert.throws(
    () => second.appendMessage('s1', { role: 'user', content: 'second writer' }),
    (error: unknown) =>
      error instanceof StateDirInUseError &&
      /The session s1 in the state dir .* is in use by pid \d+ \(this process/.test(error.message) &&
      error.message.includes(join(stateDir, 'sessions', 's1', 'lock')),
  );
  second.createSession({ id: 's2', workspace: '/w' });
  second.appendMessage('s2', { role: 'user', content: 'a different session' });
  assert.deepEqual(first.messages('s2'), [{ role: 'user', content: 'a different session' }], 'each sees the other session');
  assert.deepEqual(
    first
      .listSessions()
      .map((session) => session.id)
      .sort(),
    ['s1', 's2'],
  );
});

test('issue 2 §8: read-only opening of a dir with no store is a clear error; a closed store refuses use', async (context) => {
  const stateDir = temporaryDirectory(context);
  await assert.rejects(
    Store.open({ stateDir: `${stateDir}/missing`, readOnly: true }),
    /There is no Zuno state in .*missing: the directory does not exist/,
  );
  const store = await Store.open({ stateDir });
  await store.close();
  await store.close();
  assert.throws(() => store.listSessions(), /is closed/);
});

test('issue 8 B2: a started call that permission stopped midway finishes blocked with its category; without one it is refused', async (context) => {
  const store = await openStore(context);
  store.createSession({ id: 's1', workspace: '/w' });
  await store.recordStart(callStart('s1', 'hop', { tool: 'webfetch' }));
  await assert.rejects(store.recordFinish(callFinish('s1', 'hop', { outcome: 'blocked' })), /cannot finish as blocked without a category/);
  await store.recordFinish(callFinish('s1', 'hop', { outcome: 'blocked', category: 'denied', output: 'BLOCKED (denied): redirect 1' }));
  const call = store.getCall('s1', 'hop');
  assert.deepEqual([call?.status, call?.category, call?.output], ['blocked', 'denied', 'BLOCKED (denied): redirect 1']);
  assert.deepEqual(
    store.callAttempts('s1', 'hop').map((attempt) => attempt.status),
    ['blocked'],
    'the attempt that ran is kept, ending blocked',
  );
});
