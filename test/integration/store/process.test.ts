// The store across real processes: a real kill -9 in the middle of a call or of a burst of
// writes, a real second writer, and a lock left behind by a process that really died.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { INTERRUPTED_OUTPUT, StateDirInUseError, Store, recoveryNoticeText } from '../../../src/store/store';
import { journalLength, killHard, startStoreChild, temporaryDirectory, turnOutput } from '../../support/store-fixtures';

test('R3: a call whose start was recorded survives kill -9 as running, and recovery makes it indeterminate with a notice', async (context) => {
  const stateDir = temporaryDirectory(context);
  const child = startStoreChild(context, [stateDir, 'start-call', 'session-crash']);
  await child.waitForLine((line) => line === 'started');
  await killHard(child);

  const store = await Store.open({ stateDir });
  context.after(() => store.close());
  const [running] = store.calls('session-crash');
  assert.equal(running?.status, 'running', 'the durable start record is there after the crash');

  const recovered = store.recoverInterrupted('session-crash');
  assert.deepEqual(
    recovered.map((call) => [call.callId, call.status, call.output]),
    [['call-1', 'indeterminate', INTERRUPTED_OUTPUT]],
  );
  assert.equal(store.callAttempts('session-crash', 'call-1')[0]?.status, 'indeterminate');
  const notices = store.pendingRecoveryNotices('session-crash');
  assert.deepEqual(
    notices.map((notice) => [notice.callId, notice.tool, notice.attempt, notice.argumentSummary]),
    [['call-1', 'shell', 1, 'command="npm publish", timeout_ms=600000']],
  );
  const text = recoveryNoticeText(notices);
  assert.match(text, /call call-1: tool "shell" with command="npm publish"/);
  assert.match(text, /attempt 1/);
  assert.match(text, /INDETERMINATE/);
  assert.match(text, /check the authoritative state/);
  assert.equal(store.recoverInterrupted('session-crash').length, 0, 'recovery runs once per interrupted call');
});

test('R3: a process killed at arbitrary points while writing and compacting leaves a store holding every acknowledged write', async (context) => {
  const stateDir = temporaryDirectory(context);
  const warnings: string[] = [];
  let acknowledged = 0;
  for (let round = 1; round <= 2; round++) {
    const child = startStoreChild(context, [stateDir, 'write-loop', 'session-burst']);
    // Let it run past several compactions (one about every 20 writes), then kill it wherever it is.
    const target = acknowledged + 150 + round * 37;
    await child.waitForLine((line) => line === `acked ${target}`);
    await killHard(child);
    acknowledged = Math.max(...child.lines.map((line) => Number(/^acked (\d+)$/.exec(line)?.[1] ?? 0)));

    const store = await Store.open({ stateDir, onWarning: (message) => warnings.push(message) });
    const contents = store.messages('session-burst').map((message) => message.content);
    await store.close();
    assert.ok(contents.length >= acknowledged, `round ${round}: ${contents.length} messages stored, ${acknowledged} acknowledged`);
    contents.forEach((content, index) =>
      assert.ok(content.startsWith(`message ${index + 1} `), `round ${round}: message ${index + 1} is intact`),
    );
    acknowledged = contents.length;
  }
  assert.ok(existsSync(join(stateDir, 'sessions', 'session-burst', 'snapshot.sqlite')), 'compaction ran during the bursts');
  for (const warning of warnings) assert.match(warning, /cut short by a crash/);
});

test('issue 9, R3: a writer killed -9 while its records overwrite the zeros it wrote ahead of the journal leaves every acknowledged record', async (context) => {
  const stateDir = temporaryDirectory(context);
  const journal = join(stateDir, 'sessions', 'session-turns', 'journal.jsonl');
  const acknowledged = new Set<number>();
  for (let round = 1; round <= 2; round++) {
    const child = startStoreChild(context, [stateDir, 'record-turns', 'session-turns']);
    // Past several turns, pauses and folds, then killed mid-turn.
    const target = Math.max(0, ...acknowledged) + 40 + round * 3;
    await child.waitForLine((line) => line === `acked ${target}`);
    await killHard(child);
    for (const line of child.lines) {
      const index = /^acked (\d+)$/.exec(line)?.[1];
      if (index !== undefined) acknowledged.add(Number(index));
    }
    assert.ok(statSync(journal).size > journalLength(journal), `round ${round}: the killed writer had zeros ahead of its journal`);

    const store = await Store.open({ stateDir });
    const calls = new Map(store.calls('session-turns').map((call) => [call.callId, call]));
    await store.close();
    for (const index of acknowledged) {
      const call = calls.get(`call-${index}`);
      assert.equal(call?.status, 'ok', `round ${round}: call-${index} was acknowledged finished`);
      assert.equal(call.output, turnOutput(index), `round ${round}: call-${index}'s output is intact`);
    }
  }
});

test('issue 9: one writer per session: a second process is refused that session with the owner pid, and may write another', async (context) => {
  const stateDir = temporaryDirectory(context);
  const holder = startStoreChild(context, [stateDir, 'hold', 'held']);
  await holder.waitForLine((line) => line === 'ready');
  const store = await Store.open({ stateDir });
  context.after(() => store.close());
  assert.throws(
    () => store.appendMessage('held', { role: 'user', content: 'a second writer' }),
    (error: unknown) =>
      error instanceof StateDirInUseError &&
      error.ownerPid === holder.process.pid &&
      error.message.includes(`The session held in the state dir ${stateDir} is in use by pid ${holder.process.pid}`),
  );
  store.createSession({ id: 'other', workspace: '/workspace' });
  store.appendMessage('other', { role: 'user', content: 'while the other process holds its session' });
  const reader = await Store.open({ stateDir, readOnly: true });
  assert.deepEqual(
    reader
      .listSessions()
      .map((session) => session.id)
      .sort(),
    ['held', 'other'],
    'a reader needs no lock',
  );
  await reader.close();
});

test('issue 2 §8: one writer: a lock left by a process that died (kill -9) is taken over', async (context) => {
  const stateDir = temporaryDirectory(context);
  const holder = startStoreChild(context, [stateDir, 'hold', 'held']);
  await holder.waitForLine((line) => line === 'ready');
  await killHard(holder);
  const lockPath = join(stateDir, 'sessions', 'held', 'lock');
  assert.equal((JSON.parse(readFileSync(lockPath, 'utf8')) as { pid: number }).pid, holder.process.pid, 'the dead owner left its lock');

  const store = await Store.open({ stateDir });
  store.appendMessage('held', { role: 'user', content: 'taken over' });
  assert.equal((JSON.parse(readFileSync(lockPath, 'utf8')) as { pid: number }).pid, process.pid);
  await store.close();
  assert.equal(existsSync(lockPath), false, 'close releases the lock');
});

test('issue 2 §8: a damaged SQLite engine (wasm) fails the open with a startup error naming the file, not a crash', async (context) => {
  const stateDir = temporaryDirectory(context);
  const wasmPath = join(stateDir, 'damaged.wasm');
  writeFileSync(wasmPath, 'not webassembly');
  const child = startStoreChild(context, [stateDir, 'open-wasm', wasmPath]);
  const { code } = await child.exited;
  assert.equal(code, 1);
  assert.ok(child.stderr().includes(`StoreStartupError: The SQLite engine at ${wasmPath} failed to load: CompileError`), child.stderr());
  assert.equal(existsSync(join(stateDir, 'lock')), false, 'nothing was left locked');
  assert.deepEqual(child.lines, []);
});

test('issue 9: a writer killed -9 leaves its session without a current search index; the next search indexes that session once, and finds what was acknowledged', async (context) => {
  const stateDir = temporaryDirectory(context);
  const kill = async (after: number): Promise<void> => {
    const child = startStoreChild(context, [stateDir, 'write-loop', 'session-killed']);
    await child.waitForLine((line) => line === `acked ${after}`);
    await killHard(child);
  };
  await kill(30);
  const store = await Store.open({ stateDir });
  context.after(() => store.close());
  assert.equal(store.searchIndexState('session-killed'), 'missing');
  const indexedBy = (query: string): { ids: string[]; indexed: number } => {
    let indexed = 0;
    const ids = store.searchSessions(query, { limit: 5, onProgress: () => void indexed++ }).map((hit) => hit.sessionId);
    return { ids, indexed };
  };
  assert.deepEqual(indexedBy('message 30'), { ids: ['session-killed'], indexed: 1 });
  assert.equal(store.searchIndexState('session-killed'), 'current');
  assert.deepEqual(indexedBy('message 30'), { ids: ['session-killed'], indexed: 0 });

  // Killed again after more writes: the index is behind, and is caught up from where it stopped.
  await kill(80);
  assert.equal(store.searchIndexState('session-killed'), 'behind');
  assert.deepEqual(indexedBy('message 80'), { ids: ['session-killed'], indexed: 1 });
  assert.equal(store.searchIndexState('session-killed'), 'current');
});
