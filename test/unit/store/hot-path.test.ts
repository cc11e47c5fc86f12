// Issue 9: the durable record's hot path binds long texts as UTF-8 bytes (CAST(? AS TEXT)); what
// is stored must still be text (or that text packed, packed-text.ts), equal to what was written,
// live, after replay and after a snapshot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { unpackText } from '../../../src/store/packed-text';
import { loadDatabase } from '../../../src/store/session-db';
import { bindable } from '../../../src/store/session-engine';
import { loadSqlJs } from '../../../src/store/sqljs';
import { Store } from '../../../src/store/store';
import { callFinish, callStart, temporaryDirectory } from '../../support/store-fixtures';

// Multi-byte characters, an emoji (a surrogate pair), a quote, a newline and a NUL-free long tail.
const output = `naïve “quoted” 😀 'single' \n${'ünïcode '.repeat(2000)}`;

test('issue 9: bindable turns only CAST(? AS TEXT) string parameters into bytes, skipping question marks in literals', () => {
  const bound = bindable(`UPDATE t SET a = ?, b = CAST(? AS TEXT), c = '?', d = cast( ?  as text ) WHERE e = ?`, ['x', 'y', 'z', 'w']);
  assert.equal(bound[0], 'x');
  assert.ok(bound[1] instanceof Uint8Array && Buffer.from(bound[1]).toString('utf8') === 'y');
  assert.ok(
    bound[2] instanceof Uint8Array && Buffer.from(bound[2]).toString('utf8') === 'z',
    'the third ? is the third parameter: the quoted one is not counted',
  );
  assert.equal(bound[3], 'w');
  assert.deepEqual(bindable('SELECT ? AS TEXT', ['plain']), ['plain'], 'AS TEXT outside a CAST binds as it is');
  assert.deepEqual(bindable('INSERT INTO t VALUES (CAST(? AS TEXT))', [null]), [null], 'NULL stays NULL');
});

test('issue 9: an output bound as bytes is stored as text, packed in a live write, and reads back unchanged, live, after replay and after a snapshot', async (context) => {
  const stateDir = temporaryDirectory(context);
  const SQL = await loadSqlJs();
  for (const compaction of [
    { minJournalBytes: Number.MAX_SAFE_INTEGER, journalToSnapshotRatio: 1 },
    { minJournalBytes: 0, journalToSnapshotRatio: 0 },
  ]) {
    const id = `s${compaction.minJournalBytes}`;
    const store = await Store.open({ stateDir, compaction });
    store.createSession({ id, workspace: '/w' });
    await store.recordStart(callStart(id, 'c1', { argumentsJson: JSON.stringify({ content: output }) }));
    await store.recordFinish({
      sessionId: id,
      callId: 'c1',
      outcome: 'ok',
      output,
      truncated: false,
      attempt: 1,
      finishedAt: 2,
      durationMs: 1,
    });
    store.appendMessage(id, { role: 'assistant', content: output });
    assert.equal(store.getCall(id, 'c1')?.output, output, 'live');
    await store.close();

    const loaded = loadDatabase(SQL, join(stateDir, 'sessions', id), true);
    try {
      // The snapshot holds what the live writes stored, packed; a replay stores the journal's text as it is.
      const fromSnapshot = compaction.minJournalBytes === 0;
      const stored = fromSnapshot ? 'blob' : 'text';
      const [row] = loaded.db.exec(`SELECT typeof(output), typeof(arguments_json), output FROM calls`)[0]?.values ?? [];
      assert.deepEqual(row?.slice(0, 2), [stored, 'text'], fromSnapshot ? 'from the snapshot' : 'replayed from the journal');
      const value = row?.[2];
      assert.ok(typeof value === 'string' || value instanceof Uint8Array);
      assert.equal(unpackText(value, 'the output'), output);
      if (value instanceof Uint8Array) assert.ok(value.length < Buffer.byteLength(output) / 4, `packed to ${value.length} bytes`);
      assert.deepEqual(loaded.db.exec(`SELECT typeof(json) FROM messages`)[0]?.values, [[stored]]);
    } finally {
      loaded.db.close();
    }
    const reader = await Store.open({ stateDir, readOnly: true });
    assert.equal(reader.getCall(id, 'c1')?.output, output);
    assert.equal((JSON.parse(reader.getCall(id, 'c1')?.argumentsJson ?? '{}') as { content?: string }).content, output);
    assert.equal(reader.messages(id)[0]?.content, output);
    await reader.close();
  }
});

test('issue 9, C2: sequences kept in memory by the writer continue the stored ones after a reopen, and a refused write does not advance them', async (context) => {
  const stateDir = temporaryDirectory(context);
  const withoutTurn = (callId: string): ReturnType<typeof callStart> => {
    const { turn: _turn, ...start } = callStart('s', callId);
    return start;
  };
  let store = await Store.open({ stateDir });
  store.createSession({ id: 's', workspace: '/w' });
  store.appendMessage('s', { role: 'user', content: 'one' });
  store.appendMessage('s', { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'shell', arguments: '{}' }] });
  await store.recordStart(withoutTurn('c1'));
  await assert.rejects(store.recordStart(withoutTurn('c1')), /already recorded/);
  await store.close();

  store = await Store.open({ stateDir });
  context.after(() => store.close());
  store.appendMessage('s', { role: 'assistant', content: '', toolCalls: [{ id: 'c2', name: 'shell', arguments: '{}' }] });
  await store.recordStart(withoutTurn('c2'));
  assert.deepEqual(
    store.calls('s').map((call) => [call.callId, call.turn]),
    [
      ['c1', 2],
      ['c2', 3],
    ],
    'each call takes the seq of the message before it, across the reopen',
  );
  assert.deepEqual(
    store.messages('s').map((message) => message.role),
    ['user', 'assistant', 'assistant'],
  );
  store.recordEvent({ type: 'notice', level: 'info', text: 'x', ts: 1, session_id: 's' });
  store.recordEvent({ type: 'notice', level: 'info', text: 'y', ts: 2, session_id: 's' });
  assert.equal(store.events('s').length, 2, 'two events, numbered without a collision');
});

test('issue 9, R3: a call started by this writer is finished against the attempt it started, without reading its row back; a wrong attempt or a second finish is refused as before', async (context) => {
  const stateDir = temporaryDirectory(context);
  const store = await Store.open({ stateDir });
  store.createSession({ id: 's', workspace: '/w' });
  await store.recordStart(callStart('s', 'c1'));
  await assert.rejects(store.recordFinish(callFinish('s', 'c1', { attempt: 2 })), /cannot finish attempt 2: it is running at attempt 1/);
  await store.recordFinish(callFinish('s', 'c1'));
  await assert.rejects(store.recordFinish(callFinish('s', 'c1')), /cannot finish attempt 1: it is ok at attempt 1/);

  // R2: the scheduler starts attempt 2 of a Safe call while attempt 1 is still running here; only attempt 2 may finish.
  const safe = { tool: 'webfetch', declarations: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' } } as const;
  await store.recordStart(callStart('s', 'fetch', safe));
  await store.recordStart(callStart('s', 'fetch', { ...safe, attempt: 2 }));
  await assert.rejects(store.recordFinish(callFinish('s', 'fetch')), /cannot finish attempt 1: it is running at attempt 2/);
  await store.recordFinish(callFinish('s', 'fetch', { attempt: 2, output: 'second try' }));
  assert.deepEqual(
    store.callAttempts('s', 'fetch').map((attempt) => [attempt.attempt, attempt.status]),
    [
      [1, 'error'],
      [2, 'ok'],
    ],
  );

  // A call this writer did not start (left running by a process that died) is checked from the database.
  await store.recordStart(callStart('s', 'left'));
  const copy = temporaryDirectory(context);
  cpSync(join(stateDir, 'sessions'), join(copy, 'sessions'), { recursive: true, filter: (source) => !source.endsWith('lock') });
  await store.close();
  const other = await Store.open({ stateDir: copy });
  context.after(() => other.close());
  await assert.rejects(other.recordFinish(callFinish('s', 'left', { attempt: 2 })), /cannot finish attempt 2: it is running at attempt 1/);
  await other.recordFinish(callFinish('s', 'left'));
  assert.equal(other.getCall('s', 'left')?.status, 'ok');
});
