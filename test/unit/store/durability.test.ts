// Durability without O(size) writes: the journal, its replay, snapshots and their crash
// windows, and how damaged files are reported. The real kill -9 tests are in
// test/integration/store/process.test.ts; here the files are damaged by hand, exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, cpSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCHEMA_VERSION, Store, StoreCorruptError, StoreStartupError } from '../../../src/store/store';
import type { StoreOptions } from '../../../src/store/store';
import { callFinish, callStart, journalLength, journalText, temporaryDirectory } from '../../support/store-fixtures';
import { RESERVE_BYTES } from '../../../src/store/journal';

// Issue 9: each session has its own journal and snapshot, in sessions/<id>/.
const journalOf = (stateDir: string): string => join(stateDir, 'sessions', 's1', 'journal.jsonl');
const snapshotOf = (stateDir: string): string => join(stateDir, 'sessions', 's1', 'snapshot.sqlite');
const neverCompact = { minJournalBytes: Number.MAX_SAFE_INTEGER, journalToSnapshotRatio: 1 };
const alwaysCompact = { minJournalBytes: 0, journalToSnapshotRatio: 0 };

async function withStore(options: StoreOptions, use: (store: Store) => Promise<void> | void): Promise<void> {
  const store = await Store.open(options);
  try {
    await use(store);
  } finally {
    await store.close();
  }
}

async function writeMessages(stateDir: string, from: number, to: number, compaction = neverCompact): Promise<void> {
  await withStore({ stateDir, compaction }, (store) => {
    if (!store.getSession('s1')) store.createSession({ id: 's1', workspace: '/w' });
    for (let index = from; index <= to; index++) store.appendMessage('s1', { role: 'user', content: `m${index}` });
  });
}

async function contents(stateDir: string, onWarning: (message: string) => void = () => undefined): Promise<string[]> {
  let result: string[] = [];
  await withStore({ stateDir, readOnly: true, onWarning }, (store) => {
    result = store.messages('s1').map((message) => message.content);
  });
  return result;
}

/** Opening the store reads no session; the session's files are read when it is shown or written. */
async function openSession(options: StoreOptions): Promise<void> {
  await withStore(options, (store) => {
    if (options.readOnly) store.messages('s1');
    else store.appendMessage('s1', { role: 'user', content: 'one more' });
  });
}

const range = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, index) => `m${from + index}`);

test('issue 2 §8: a write appends one journal line and never rewrites the snapshot below the compaction threshold', async (context) => {
  const stateDir = temporaryDirectory(context);
  await writeMessages(stateDir, 1, 3);
  const before = statSync(journalOf(stateDir)).size;
  await writeMessages(stateDir, 4, 4);
  const lines = readFileSync(journalOf(stateDir), 'utf8').split('\n').filter(Boolean);
  assert.equal(existsSync(snapshotOf(stateDir)), false);
  const last = JSON.parse(lines.at(-1) ?? '') as { seq: number; ops: [string, unknown[]][] };
  assert.equal(last.seq, lines.length, 'sequence numbers count the lines');
  assert.match(last.ops[0]?.[0] ?? '', /^INSERT INTO messages/);
  assert.ok(statSync(journalOf(stateDir)).size - before < 400, 'one small line per write');
});

test('issue 2 §8: compaction folds the journal into a snapshot; reopening replays snapshot then journal', async (context) => {
  const stateDir = temporaryDirectory(context);
  await writeMessages(stateDir, 1, 20, alwaysCompact);
  assert.ok(existsSync(snapshotOf(stateDir)));
  assert.equal(statSync(journalOf(stateDir)).size, 0, 'the journal starts afresh after a snapshot');
  await writeMessages(stateDir, 21, 25);
  assert.ok(statSync(journalOf(stateDir)).size > 0);
  assert.deepEqual(await contents(stateDir), range(1, 25));
});

test("issue 2 §8, issue 9: journal growth stays within the compaction policy (amortised O(1) per write), folded on a write's path only when writes never pause", async (context) => {
  const stateDir = temporaryDirectory(context);
  const policy = { minJournalBytes: 4096, journalToSnapshotRatio: 1 };
  await withStore({ stateDir, compaction: policy }, (store) => {
    store.createSession({ id: 's1', workspace: '/w' });
    for (let index = 1; index <= 400; index++) {
      store.appendMessage('s1', { role: 'user', content: `m${index} ${'x'.repeat(100)}` });
      const journalBytes = journalLength(journalOf(stateDir));
      const snapshotBytes = existsSync(snapshotOf(stateDir)) ? statSync(snapshotOf(stateDir)).size : 0;
      assert.ok(
        journalBytes <= 2 * Math.max(policy.minJournalBytes, snapshotBytes),
        `write ${index}: journal ${journalBytes} B, snapshot ${snapshotBytes} B`,
      );
    }
  });
  assert.ok(existsSync(snapshotOf(stateDir)));
});

test('issue 9: a journal past the threshold is folded once the writes pause, not by the write that crossed it', async (context) => {
  const stateDir = temporaryDirectory(context);
  const policy = { minJournalBytes: 4096, journalToSnapshotRatio: 1 };
  let index = 0;
  await withStore({ stateDir, compaction: policy }, async (store) => {
    store.createSession({ id: 's1', workspace: '/w' });
    while (journalLength(journalOf(stateDir)) <= policy.minJournalBytes) {
      index++;
      store.appendMessage('s1', { role: 'user', content: `m${index} ${'x'.repeat(100)}` });
    }
    assert.equal(existsSync(snapshotOf(stateDir)), false, 'the write that crossed the threshold did not fold');
    for (let waited = 0; journalLength(journalOf(stateDir)) > 0; waited += 10) {
      if (waited > 5000) assert.fail('the journal was not folded in a pause of 5 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.ok(existsSync(snapshotOf(stateDir)));
    assert.equal(store.messages('s1').length, index);
  });
  assert.equal((await contents(stateDir)).length, index, 'every message read back after the fold');
});

test('issue 2 §8: a crash between the new snapshot and the journal reset: lines already in the snapshot are skipped, not applied twice', async (context) => {
  const stateDir = temporaryDirectory(context);
  await writeMessages(stateDir, 1, 10);
  const oldJournal = join(stateDir, 'old-journal');
  copyFileSync(journalOf(stateDir), oldJournal);
  await writeMessages(stateDir, 11, 11, alwaysCompact);
  // Put back the journal the snapshot already contains, as if the reset never happened.
  copyFileSync(oldJournal, journalOf(stateDir));
  assert.deepEqual(await contents(stateDir), range(1, 11));
  await writeMessages(stateDir, 12, 13);
  assert.deepEqual(await contents(stateDir), range(1, 13));
});

test('issue 2 §8: a leftover snapshot.sqlite.tmp from a crashed compaction is ignored and removed', async (context) => {
  const stateDir = temporaryDirectory(context);
  await writeMessages(stateDir, 1, 3);
  writeFileSync(`${snapshotOf(stateDir)}.tmp`, 'half a snapshot');
  await writeMessages(stateDir, 4, 4);
  assert.equal(existsSync(`${snapshotOf(stateDir)}.tmp`), false);
  assert.deepEqual(await contents(stateDir), range(1, 4));
});

test('issue 2 §8: a torn final journal line (crash mid-append) is ignored with a warning, cut off, and kept aside', async (context) => {
  const stateDir = temporaryDirectory(context);
  await writeMessages(stateDir, 1, 5);
  const lineCount = readFileSync(journalOf(stateDir), 'utf8').split('\n').length;
  appendFileSync(journalOf(stateDir), '{"seq":99,"ops":[["INSERT INTO mess');

  const readerWarnings: string[] = [];
  assert.deepEqual(await contents(stateDir, (message) => readerWarnings.push(message)), range(1, 5));
  assert.match(readerWarnings.join('\n'), new RegExp(`unfinished last line of .*journal\\.jsonl \\(line ${lineCount}\\)`));

  const writerWarnings: string[] = [];
  await withStore({ stateDir, onWarning: (message) => writerWarnings.push(message) }, (store) => {
    store.appendMessage('s1', { role: 'user', content: 'm6' });
  });
  assert.match(writerWarnings.join('\n'), new RegExp(`line ${lineCount}, 35 bytes\\) was cut short by a crash`));
  assert.equal(readFileSync(`${journalOf(stateDir)}.torn`, 'utf8'), '{"seq":99,"ops":[["INSERT INTO mess');
  assert.deepEqual(await contents(stateDir), range(1, 6), 'the next line was not glued to the fragment');
});

test('issue 9: in a pause the writer writes zeros ahead of the journal, records overwrite them without growing the file, a reader sees every record, and close cuts the zeros off', async (context) => {
  const stateDir = temporaryDirectory(context);
  const journal = journalOf(stateDir);
  const store = await Store.open({ stateDir, compaction: neverCompact });
  try {
    store.createSession({ id: 's1', workspace: '/w' });
    for (let waited = 0; statSync(journal).size < journalLength(journal) + RESERVE_BYTES; waited += 10) {
      if (waited > 5000) assert.fail('no reserve was written in a pause of 5 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const fileBytes = statSync(journal).size;
    const journalBefore = journalLength(journal);
    for (let index = 1; index <= 5; index++) {
      await store.recordStart(callStart('s1', `c${index}`));
      await store.recordFinish(callFinish('s1', `c${index}`, { output: `output ${index} ${'y'.repeat(3000)}` }));
    }
    assert.equal(statSync(journal).size, fileBytes, 'the records went into the zeros');
    assert.ok(journalLength(journal) > journalBefore + 5 * 3000, 'the journal holds the records');
    await withStore({ stateDir, readOnly: true }, (reader) => {
      assert.deepEqual(
        reader.calls('s1').map((call) => [call.callId, call.status, call.output]),
        [1, 2, 3, 4, 5].map((index) => [`c${index}`, 'ok', `output ${index} ${'y'.repeat(3000)}`]),
      );
      const sessionFile = statSync(join(stateDir, 'sessions', 's1', 'session.json')).size;
      assert.equal(reader.listSummaries()[0]?.bytes, journalLength(journal) + sessionFile, 'a listing leaves the zeros out');
    });
  } finally {
    await store.close();
  }
  assert.equal(statSync(journal).size, journalLength(journal), 'a closed journal keeps no zeros');
  await withStore({ stateDir, readOnly: true }, (reader) => assert.equal(reader.calls('s1').length, 5));
});

test('issue 9: a journal ends at its first NUL: zeros left by a killed writer, and pages of lines never acknowledged after them (a power loss), are ignored by readers and cut off by the next writer', async (context) => {
  const stateDir = temporaryDirectory(context);
  await writeMessages(stateDir, 1, 3);
  const ghost = `${JSON.stringify({ seq: 1000, ops: [['UPDATE sessions SET title = ? WHERE id = ?', ['ghost', 's1']]] })}\n`;
  appendFileSync(journalOf(stateDir), Buffer.concat([Buffer.alloc(5000), Buffer.from(ghost), Buffer.alloc(3000)]));

  const warnings: string[] = [];
  assert.deepEqual(await contents(stateDir, (message) => warnings.push(message)), range(1, 3), 'a reader stops at the first NUL');
  await withStore({ stateDir, compaction: neverCompact, onWarning: (message) => warnings.push(message) }, (store) => {
    for (let index = 4; index <= 6; index++) store.appendMessage('s1', { role: 'user', content: `m${index}` });
    assert.notEqual(store.getSession('s1')?.title, 'ghost');
  });
  assert.deepEqual(warnings, [], 'nothing that was acknowledged is missing, so nothing to warn about');
  assert.deepEqual(await contents(stateDir), range(1, 6));
  assert.equal(readFileSync(journalOf(stateDir)).includes(0), false, 'the writer cut off what followed the journal');
  assert.doesNotMatch(readFileSync(journalOf(stateDir), 'utf8'), /ghost/);
});

test('issue 9: a line torn by a crash while it overwrote the zeros is set aside alone, without the zeros after it', async (context) => {
  const stateDir = temporaryDirectory(context);
  await writeMessages(stateDir, 1, 3);
  const lineCount = journalText(journalOf(stateDir)).split('\n').length;
  const fragment = '{"seq":99,"ops":[["INSERT INTO mess';
  appendFileSync(journalOf(stateDir), Buffer.concat([Buffer.from(fragment), Buffer.alloc(RESERVE_BYTES)]));

  const warnings: string[] = [];
  assert.deepEqual(await contents(stateDir), range(1, 3));
  await withStore({ stateDir, onWarning: (message) => warnings.push(message) }, (store) => {
    store.appendMessage('s1', { role: 'user', content: 'm4' });
  });
  assert.match(warnings.join('\n'), new RegExp(`line ${lineCount}, ${fragment.length} bytes\\) was cut short by a crash`));
  assert.equal(readFileSync(`${journalOf(stateDir)}.torn`, 'utf8'), fragment);
  assert.deepEqual(await contents(stateDir), range(1, 4));
});

test('issue 2 §8: a damaged line in the middle of the journal is a clear error naming the file and the line', async (context) => {
  const stateDir = temporaryDirectory(context);
  await writeMessages(stateDir, 1, 5);
  const lines = readFileSync(journalOf(stateDir), 'utf8').split('\n');
  lines[3] = '{"seq":4,"ops":[["INSERT INTO messages';
  writeFileSync(journalOf(stateDir), lines.join('\n'));
  const expected = (error: unknown): boolean =>
    error instanceof StoreCorruptError &&
    error.message.includes(`The journal ${journalOf(stateDir)} is damaged at line 4: it is not valid JSON`);
  await assert.rejects(openSession({ stateDir }), expected);
  await assert.rejects(openSession({ stateDir, readOnly: true }), expected);
  assert.equal(existsSync(join(stateDir, 'sessions', 's1', 'lock')), false, 'a failed open releases the lock');
});

test('issue 2 §8: a line that is JSON but not a journal entry, or that cannot be applied, names its line', async (context) => {
  const stateDir = temporaryDirectory(context);
  await writeMessages(stateDir, 1, 2);
  const count = readFileSync(journalOf(stateDir), 'utf8').split('\n').filter(Boolean).length;
  const original = readFileSync(journalOf(stateDir));
  appendFileSync(journalOf(stateDir), '{"seq":"x","ops":[]}\n');
  await assert.rejects(openSession({ stateDir }), new RegExp(`line ${count + 1}: its "seq" is not a positive integer`));
  writeFileSync(journalOf(stateDir), original);
  appendFileSync(journalOf(stateDir), `${JSON.stringify({ seq: count + 1, ops: [['INSERT INTO nowhere VALUES (?)', [1]]] })}\n`);
  await assert.rejects(
    openSession({ stateDir }),
    new RegExp(`line ${count + 1} \\(sequence ${count + 1}\\) cannot be applied: no such table: nowhere`),
  );
});

test('issue 2 §8: missing journal lines (a gap in the sequence) are reported instead of silently dropped', async (context) => {
  const stateDir = temporaryDirectory(context);
  await writeMessages(stateDir, 1, 5);
  const lines = readFileSync(journalOf(stateDir), 'utf8').split('\n');
  lines.splice(3, 1);
  writeFileSync(journalOf(stateDir), lines.join('\n'));
  await assert.rejects(openSession({ stateDir }), /line 4 has sequence 5, but 4 was expected: the lines in between are missing/);
});

test('issue 9: a snapshot that is not a database is a clear error naming it, and affects its session only', async (context) => {
  const stateDir = temporaryDirectory(context);
  await writeMessages(stateDir, 1, 1);
  await withStore({ stateDir }, (store) => {
    store.createSession({ id: 's2', workspace: '/w' });
  });
  writeFileSync(
    snapshotOf(stateDir),
    'this is not sqlite, but it is long enough to look like a header...........................................',
  );
  rmSync(join(stateDir, 'sessions', 's1', 'session.json'));
  const expected = (error: unknown): boolean =>
    error instanceof StoreCorruptError && error.message.includes(`The snapshot ${snapshotOf(stateDir)} is not a readable Zuno store`);
  await assert.rejects(openSession({ stateDir }), expected);
  await assert.rejects(openSession({ stateDir, readOnly: true }), expected);
  const warnings: string[] = [];
  await withStore({ stateDir, onWarning: (message) => warnings.push(message) }, (store) => {
    assert.deepEqual(
      store.listSessions().map((session) => session.id),
      ['s2'],
      'the other session is listed',
    );
    store.appendMessage('s2', { role: 'user', content: 'still works' });
  });
  assert.match(
    warnings.join('\n'),
    new RegExp(
      `Leaving out the session in .*sessions/s1: The snapshot .*snapshot\\.sqlite is not a readable Zuno store.*move .*sessions/s1 aside`,
    ),
  );
});

test('issue 2 §8: a store written by a newer schema is refused with both versions named', async (context) => {
  const stateDir = temporaryDirectory(context);
  await writeMessages(stateDir, 1, 1);
  const count = readFileSync(journalOf(stateDir), 'utf8').split('\n').filter(Boolean).length;
  appendFileSync(journalOf(stateDir), `${JSON.stringify({ seq: count + 1, ops: [['PRAGMA user_version = 99', []]] })}\n`);
  await assert.rejects(
    openSession({ stateDir }),
    new RegExp(`written by a newer Zuno \\(schema version 99; this one knows up to ${SCHEMA_VERSION}\\)`),
  );
});

test('issue 2 §8: a missing SQLite engine (wasm) is a clear startup error naming where it looked', async (context) => {
  const stateDir = temporaryDirectory(context);
  const wasmPath = join(stateDir, 'no-such.wasm');
  await assert.rejects(
    Store.open({ stateDir, wasmPath }),
    (error: unknown) => error instanceof StoreStartupError && error.message.includes(`Looked at: ${wasmPath}`),
  );
});

test('R3: a call start written just before a crash is replayed as running', async (context) => {
  const stateDir = temporaryDirectory(context);
  const store = await Store.open({ stateDir });
  store.createSession({ id: 's1', workspace: '/w' });
  await store.recordStart(callStart('s1', 'c1'));
  // No close: the journal is all there is, as after a crash.
  const copy = temporaryDirectory(context);
  cpSync(join(stateDir, 'sessions'), join(copy, 'sessions'), { recursive: true, filter: (source) => !source.endsWith('lock') });
  await store.close();
  await withStore({ stateDir: copy }, (reopened) => {
    assert.equal(reopened.calls('s1')[0]?.status, 'running');
  });
});

const lineCount = (stateDir: string): number => readFileSync(journalOf(stateDir), 'utf8').split('\n').filter(Boolean).length;

test('R3, issue 9: a durable record whose statements fail after its line was written cuts the line off again; the next record takes the next sequence and a reopen holds exactly the acknowledged records', async (context) => {
  const stateDir = temporaryDirectory(context);
  await writeMessages(stateDir, 1, 1);
  // An attempt row without its call: recordStart's check of the calls table passes, then inserting the attempt fails.
  const count = lineCount(stateDir);
  appendFileSync(
    journalOf(stateDir),
    `${JSON.stringify({ seq: count + 1, ops: [[`INSERT INTO call_attempts (session_id, call_id, attempt, status, started_at) VALUES (?, ?, 1, 'running', 1)`, ['s1', 'c9']]] })}\n`,
  );
  const warnings: string[] = [];
  await withStore({ stateDir, onWarning: (message) => warnings.push(message) }, async (store) => {
    store.appendMessage('s1', { role: 'user', content: 'opens the writer' });
    const before = readFileSync(journalOf(stateDir));
    await assert.rejects(store.recordStart(callStart('s1', 'c9')), /UNIQUE constraint failed: call_attempts/);
    assert.deepEqual(readFileSync(journalOf(stateDir)), before, 'the line written before the statements is cut off again');
    assert.equal(store.getCall('s1', 'c9'), undefined, 'and the in-memory transaction rolled back');
    await store.recordStart(callStart('s1', 'c10'));
    const last = JSON.parse(readFileSync(journalOf(stateDir), 'utf8').trimEnd().split('\n').at(-1) ?? '') as {
      seq: number;
      applied?: string;
    };
    assert.deepEqual([last.seq, last.applied], [count + 3, 'after'], 'the next record reuses the sequence and says it was applied after');
  });
  await withStore({ stateDir, readOnly: true, onWarning: (message) => warnings.push(message) }, (store) => {
    assert.deepEqual(
      store.calls('s1').map((call) => [call.callId, call.status]),
      [['c10', 'running']],
    );
  });
  assert.deepEqual(warnings, [], 'nothing to set aside');
});

test('R3, issue 9: a last line written before its statements that cannot be applied (a crash before it was cut off) is set aside, naming the file; elsewhere in the journal it is still refused', async (context) => {
  const stateDir = temporaryDirectory(context);
  await writeMessages(stateDir, 1, 2);
  const count = lineCount(stateDir);
  const original = readFileSync(journalOf(stateDir));
  const unapplicable = `${JSON.stringify({ seq: count + 1, ops: [['INSERT INTO nowhere VALUES (?)', [1]]], applied: 'after' })}\n`;
  appendFileSync(journalOf(stateDir), unapplicable);

  const warnings: string[] = [];
  assert.deepEqual(await contents(stateDir, (message) => warnings.push(message)), ['m1', 'm2'], 'a reader leaves it out');
  assert.match(
    warnings.join('\n'),
    new RegExp(`Ignoring the last line of ${journalOf(stateDir)} \\(line ${count + 1}\\), which cannot be applied: no such table: nowhere`),
  );

  warnings.length = 0;
  await withStore({ stateDir, onWarning: (message) => warnings.push(message) }, (store) => {
    store.appendMessage('s1', { role: 'user', content: 'm3' });
  });
  assert.match(
    warnings.join('\n'),
    new RegExp(
      `The last line of ${journalOf(stateDir)} \\(line ${count + 1}, sequence ${count + 1}\\) cannot be applied \\(no such table: nowhere\\); .*never acknowledged\\. It has been removed \\(kept in ${journalOf(stateDir)}\\.torn\\)`,
    ),
  );
  assert.equal(readFileSync(`${journalOf(stateDir)}.torn`, 'utf8'), unapplicable);
  assert.equal(lineCount(stateDir), count + 1, 'the writer took its sequence');
  assert.deepEqual(await contents(stateDir), ['m1', 'm2', 'm3']);

  // Followed by another line it cannot be a write cut off by a crash: the journal is damaged.
  writeFileSync(journalOf(stateDir), original);
  appendFileSync(journalOf(stateDir), unapplicable);
  appendFileSync(
    journalOf(stateDir),
    `${JSON.stringify({ seq: count + 2, ops: [['UPDATE sessions SET title = ? WHERE id = ?', ['t', 's1']]] })}\n`,
  );
  await assert.rejects(
    openSession({ stateDir }),
    new RegExp(`line ${count + 1} \\(sequence ${count + 1}\\) cannot be applied: no such table: nowhere`),
  );
});
