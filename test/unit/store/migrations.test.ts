// Migrations: a store written at schema version 1 (snapshot and journal, as that version wrote
// them) opens with today's code, keeps every row, and gains the newer tables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../src/store/schema';
import { loadSqlJs } from '../../../src/store/sqljs';
import { Store } from '../../../src/store/store';
import { temporaryDirectory } from '../../support/store-fixtures';

/**
 * Writes what a version-1 store looks like on disk: a snapshot holding journal lines up to 3
 * (schema v1, a session, a finished call), and a journal with lines 4 and 5 (a message and a
 * call left running by a crash).
 */
async function writeVersionOneStore(stateDir: string): Promise<void> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  const [first] = MIGRATIONS;
  assert.equal(first?.version, 1);
  for (const statement of first.statements) db.run(statement);
  db.run('PRAGMA user_version = 1');
  db.run(`INSERT INTO sessions (id, workspace, title, created_at, updated_at, status) VALUES ('old', '/w', 'from v1', 1, 1, 'active')`);
  db.run(
    `INSERT INTO calls (session_id, call_id, ordinal, turn, position, tool, arguments_json, effect, replay, concurrency, attempt, status, output, truncated, started_at, finished_at, duration_ms)
     VALUES ('old', 'c1', 1, 1, 0, 'read', '{"path":"a"}', 'ReadOnly', 'Safe', 'ParallelSafe', 1, 'ok', 'text', 0, 10, 20, 10)`,
  );
  db.run(`INSERT INTO store_meta (key, value) VALUES ('journal_seq', '3')`);
  writeFileSync(join(stateDir, 'snapshot.sqlite'), db.export());
  db.close();
  const lines = [
    {
      seq: 4,
      ops: [
        [
          'INSERT INTO messages (session_id, seq, json) VALUES (?, ?, ?)',
          ['old', 1, JSON.stringify({ role: 'user', content: 'written at v1' })],
        ],
      ],
    },
    {
      seq: 5,
      ops: [
        [
          `INSERT INTO calls (session_id, call_id, ordinal, turn, position, tool, arguments_json, effect, replay, concurrency, attempt, status, truncated, started_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', 0, ?)`,
          ['old', 'c2', 2, 2, 0, 'shell', '{"command":"make"}', 'SideEffecting', 'Never', 'Exclusive', 1, 30],
        ],
        [
          `INSERT INTO call_attempts (session_id, call_id, attempt, status, started_at) VALUES (?, ?, ?, 'running', ?)`,
          ['old', 'c2', 1, 30],
        ],
      ],
    },
  ];
  writeFileSync(join(stateDir, 'journal.jsonl'), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
}

test('issue 2 §8: the migrations are numbered 1, 2, … and SCHEMA_VERSION is the last', () => {
  assert.deepEqual(
    MIGRATIONS.map((migration) => migration.version),
    MIGRATIONS.map((_, index) => index + 1),
  );
  assert.equal(SCHEMA_VERSION, MIGRATIONS.length);
});

test('issue 9: a version-1 store opens with every row kept, is split into one folder per session at the current version, and stays consistent across reopens', async (context) => {
  const stateDir = temporaryDirectory(context);
  await writeVersionOneStore(stateDir);

  const store = await Store.open({ stateDir });
  assert.equal(store.getSession('old')?.title, 'from v1');
  assert.deepEqual(store.messages('old'), [{ role: 'user', content: 'written at v1' }]);
  assert.deepEqual(
    store.calls('old').map((call) => [call.callId, call.status]),
    [
      ['c1', 'ok'],
      ['c2', 'running'],
    ],
  );
  // The tables version 2 added are there and usable.
  store.setPlan('old', 'finish the migration');
  store.setTodos('old', [{ id: 't1', content: 'check', status: 'pending' }]);
  store.proposeMemory('v2 tables work');
  // The table version 3 added (issue 10 item 1) is there and usable.
  store.recordModelRequest('old', { model: 'm', inputTokens: 120, outputTokens: 7, cachedTokens: 100, contextWindow: 32_768 });
  assert.equal(store.recoverInterrupted('old')[0]?.callId, 'c2');
  await store.close();

  // Issue 9: the one-file store was split into a folder per session; the old files were renamed, not deleted.
  const day = new Date().toISOString().slice(0, 10);
  assert.ok(
    existsSync(join(stateDir, `snapshot.sqlite.migrated-${day}`)) && existsSync(join(stateDir, `journal.jsonl.migrated-${day}`)),
    readdirSync(stateDir).join(', '),
  );
  assert.equal(existsSync(join(stateDir, 'journal.jsonl')), false);
  assert.ok(existsSync(join(stateDir, 'sessions', 'old', 'snapshot.sqlite')));
  assert.equal(SCHEMA_VERSION, 5);

  const reopened = await Store.open({ stateDir, readOnly: true });
  context.after(() => reopened.close());
  assert.equal(reopened.getPlan('old'), 'finish the migration');
  assert.deepEqual(reopened.getTodos('old'), [{ id: 't1', content: 'check', status: 'pending' }]);
  assert.equal(reopened.listMemories()[0]?.text, 'v2 tables work');
  assert.deepEqual(
    reopened
      .modelRequests('old')
      .map((row) => [
        row.seq,
        row.model,
        row.inputTokens,
        row.outputTokens,
        row.cachedTokens,
        row.cacheWriteTokens,
        row.estimated,
        row.contextWindow,
      ]),
    [[1, 'm', 120, 7, 100, 0, false, 32_768]],
  );
  assert.equal(reopened.calls('old')[1]?.status, 'indeterminate');
});

test('issue 2 §8: a read-only open of a version-1 store migrates in memory only and leaves the files untouched', async (context) => {
  const stateDir = temporaryDirectory(context);
  await writeVersionOneStore(stateDir);
  const before = [readFileSync(join(stateDir, 'snapshot.sqlite')), readFileSync(join(stateDir, 'journal.jsonl'))];
  const reader = await Store.open({ stateDir, readOnly: true });
  assert.deepEqual(
    reader.calls('old').map((call) => call.callId),
    ['c1', 'c2'],
  );
  assert.equal(reader.getPlan('old'), undefined, 'the version-2 tables exist, empty');
  assert.deepEqual(reader.modelRequests('old'), [], 'the version-3 table exists, empty');
  await reader.close();
  assert.deepEqual([readFileSync(join(stateDir, 'snapshot.sqlite')), readFileSync(join(stateDir, 'journal.jsonl'))], before);
});
