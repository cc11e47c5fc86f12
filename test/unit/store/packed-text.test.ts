// Issue 9: outputs and transcript messages of 1 KiB or more are kept deflated (packed-text.ts), so
// the state on disk and the session's in-memory database hold about a third of the text's bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { StoreCorruptError } from '../../../src/store/errors';
import { PACK_MIN_BYTES, packText, REPACK_CALL_OUTPUT, unpackText, withStoredContent } from '../../../src/store/packed-text';
import { loadDatabase, SessionDb } from '../../../src/store/session-db';
import { loadSqlJs } from '../../../src/store/sqljs';
import { Store } from '../../../src/store/store';
import { callFinish, callStart, journalLength, temporaryDirectory } from '../../support/store-fixtures';

/** Text as outputs carry it: Zuno's own source, in pieces of 8 KB. */
const source = readFileSync(join(__dirname, '../../../src/store/session-db.ts'), 'utf8');
const sourceText = (index: number): string => `// piece ${index}\n${source.slice((index * 997) % 8000, ((index * 997) % 8000) + 8192)}`;

test('issue 9: text under the threshold stays text; longer text packs to one format byte and a deflate stream, and unpacks to the same text', () => {
  const short = 'x'.repeat(PACK_MIN_BYTES - 1);
  assert.equal(packText(short), short);
  const long = `naïve 😀 ${source.slice(0, 8192)}`;
  const packed = packText(long);
  assert.ok(packed instanceof Uint8Array);
  assert.equal(packed[0], 1, 'format byte: raw deflate');
  assert.ok(packed.length < Buffer.byteLength(long) / 2, `source text packs to ${packed.length} of ${Buffer.byteLength(long)} bytes`);
  assert.equal(unpackText(packed, 'the output'), long);
  assert.equal(unpackText('plain', 'the output'), 'plain');
});

test('issue 9: a packed value in an unknown format or with a damaged stream is refused, naming the value', () => {
  const packed = packText(source.slice(0, 4096));
  assert.ok(packed instanceof Uint8Array);
  const newer = Uint8Array.from(packed);
  newer[0] = 7;
  assert.throws(
    () => unpackText(newer, 'The output of call c1'),
    (error: unknown) => error instanceof StoreCorruptError && /The output of call c1 .*unknown format.*newer Zuno/.test(error.message),
  );
  const damaged = Uint8Array.from(packed.subarray(0, 40));
  assert.throws(
    () => unpackText(damaged, 'The output of call c2'),
    (error: unknown) => error instanceof StoreCorruptError && /The output of call c2 is damaged/.test(error.message),
  );
});

test("issue 9: closing a writer folds its journal into a snapshot with the outputs packed; everything reads back, a retried attempt's output too", async (context) => {
  const stateDir = temporaryDirectory(context);
  const store = await Store.open({ stateDir });
  store.createSession({ id: 's', workspace: '/w' });
  let held = 0;
  for (let index = 0; index < 60; index++) {
    await store.recordStart(callStart('s', `c${index}`));
    await store.recordFinish(callFinish('s', `c${index}`, { output: sourceText(index) }));
    store.appendMessage('s', { role: 'tool', callId: `c${index}`, toolName: 'shell', content: sourceText(index) });
    store.appendMessage('s', { role: 'assistant', content: `answer ${index}: ${sourceText(index + 1)}` });
    held += 2 * Buffer.byteLength(sourceText(index));
  }
  // A Safe call tried again: the first attempt's output moves to its attempt row, still packed.
  const safe = { tool: 'webfetch', declarations: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' } } as const;
  await store.recordStart(callStart('s', 'fetch', safe));
  await store.recordFinish(callFinish('s', 'fetch', { outcome: 'error', output: sourceText(100) }));
  await store.recordStart(callStart('s', 'fetch', { ...safe, attempt: 2 }));
  await store.recordFinish(callFinish('s', 'fetch', { attempt: 2, output: sourceText(101) }));
  const dir = join(stateDir, 'sessions', 's');
  assert.ok(journalLength(join(dir, 'journal.jsonl')) > held, 'the journal holds the text as it is');
  await store.close();

  assert.equal(statSync(join(dir, 'journal.jsonl')).size, 0, 'folded at close');
  const snapshotBytes = statSync(join(dir, 'snapshot.sqlite')).size;
  // Unpacked, the same rows took 1.2× the text (page overhead); packed, about 0.6× (2 KB of pages per 3 KB row).
  assert.ok(snapshotBytes < held * 0.75, `the snapshot takes ${snapshotBytes} bytes for ${held} bytes of text`);
  const loaded = loadDatabase(await loadSqlJs(), dir, true);
  try {
    const types = loaded.db.exec(`SELECT typeof(output), count(*) FROM calls GROUP BY 1`)[0]?.values;
    assert.deepEqual(types, [['blob', 61]]);
  } finally {
    loaded.db.close();
  }

  const reader = await Store.open({ stateDir, readOnly: true });
  context.after(() => reader.close());
  assert.equal(reader.getCall('s', 'c7')?.output, sourceText(7));
  const messages = reader.messages('s');
  assert.equal(messages[0]?.role === 'tool' ? messages[0].content : undefined, sourceText(0));
  assert.equal(messages[1]?.content, `answer 0: ${sourceText(1)}`);
  assert.deepEqual(
    reader.callAttempts('s', 'fetch').map((attempt) => [attempt.attempt, attempt.status, attempt.output]),
    [
      [1, 'error', sourceText(100)],
      [2, 'ok', sourceText(101)],
    ],
  );
});

test("issue 9: a tool result's packed content is inflated on first read only (a resumed session never reads its compacted outputs), and copies and JSON carry it", () => {
  const text = source.slice(0, 8192);
  const packed = packText(text);
  assert.ok(packed instanceof Uint8Array);
  const message = withStoredContent({ role: 'tool' as const, callId: 'c1', toolName: 'shell' }, packed, 'The output of call c1');
  assert.equal(message.content, text);
  assert.deepEqual({ ...message }, { role: 'tool', callId: 'c1', toolName: 'shell', content: text });
  assert.equal((JSON.parse(JSON.stringify(message)) as { content: string }).content, text);

  // Damage shows only when the content is read: building the transcript does not inflate.
  const damaged = withStoredContent(
    { role: 'tool' as const, callId: 'c2', toolName: 'shell' },
    packed.subarray(0, 40),
    'The output of call c2',
  );
  assert.equal(damaged.callId, 'c2');
  assert.throws(() => damaged.content, /The output of call c2 is damaged/);
  assert.deepEqual(withStoredContent({ role: 'tool' as const }, 'plain', 'x'), { role: 'tool', content: 'plain' });
});

test("issue 9: a record stores its output as text and the writer packs it off the record's path, in memory, without a journal line; a retried call's new output is not overwritten", async (context) => {
  const dir = temporaryDirectory(context);
  const warnings: string[] = [];
  const db = SessionDb.open(await loadSqlJs(), {
    dir,
    readOnly: false,
    warn: (message) => warnings.push(message),
    compaction: { minJournalBytes: Number.MAX_SAFE_INTEGER, journalToSnapshotRatio: 1 },
  });
  context.after(() => db.close());
  // The test reads the writer's own in-memory database: packing is invisible through the API.
  const typeOf = (callId: string): unknown =>
    (db as unknown as { one(sql: string, parameters: string[]): Record<string, unknown> | undefined }).one(
      'SELECT typeof(output) AS type FROM calls WHERE call_id = ?',
      [callId],
    )?.['type'];
  const waitForType = async (callId: string, type: string): Promise<void> => {
    for (let tries = 0; typeOf(callId) !== type; tries++) {
      if (tries > 500) assert.fail(`call ${callId} is still ${String(typeOf(callId))}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  db.createSession({ id: 's', workspace: '/w' });
  await db.recordStart(callStart('s', 'c1'));
  const journalBefore = journalLength(join(dir, 'journal.jsonl'));
  await db.recordFinish(callFinish('s', 'c1', { output: sourceText(1) }));
  const journalAfter = journalLength(join(dir, 'journal.jsonl'));
  await waitForType('c1', 'blob');
  assert.equal(journalLength(join(dir, 'journal.jsonl')), journalAfter, 'packing writes no journal line');
  assert.ok(journalAfter - journalBefore > Buffer.byteLength(sourceText(1)), 'the journal holds the text');
  assert.equal(db.getCall('s', 'c1')?.output, sourceText(1));

  // A Safe call tried again: each attempt's output reads back whole.
  const safe = { tool: 'webfetch', declarations: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' } } as const;
  await db.recordStart(callStart('s', 'f', safe));
  await db.recordFinish(callFinish('s', 'f', { outcome: 'error', output: sourceText(2) }));
  await db.recordStart(callStart('s', 'f', { ...safe, attempt: 2 }));
  await db.recordFinish(callFinish('s', 'f', { attempt: 2, output: sourceText(3) }));
  await waitForType('f', 'blob');
  assert.equal(db.getCall('s', 'f')?.output, sourceText(3));
  assert.deepEqual(
    db.callAttempts('s', 'f').map((attempt) => attempt.output),
    [sourceText(2), sourceText(3)],
  );
  // A pack of attempt 1's text that lands after attempt 2 finished finds another text in the row and leaves it.
  const late = packText(sourceText(2));
  assert.ok(late instanceof Uint8Array);
  (db as unknown as { run(sql: string, parameters: (string | Uint8Array)[]): void }).run(REPACK_CALL_OUTPUT, [
    late,
    's',
    'f',
    sourceText(2),
  ]);
  assert.equal(db.getCall('s', 'f')?.output, sourceText(3));
  assert.deepEqual(warnings, []);
});
