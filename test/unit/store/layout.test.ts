// Issue 9: the per-session layout. Opening reads no session, each session has its own files and
// lock, the index (session.json) and the databases survive a crash between them, a damaged or
// missing session is named with its path and affects that session only, and a pre-issue-9
// store (the 0.1.0 fixture) is split by copy, verify and rename.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_OPEN_SESSIONS, StateDirInUseError, Store, StoreCorruptError, StoreUsageError } from '../../../src/store/store';
import { FIXTURE_0_1_0, FIXTURE_SESSIONS } from '../../support/make-store-fixture';
import { callFinish, callStart, temporaryDirectory } from '../../support/store-fixtures';

type Context = Parameters<typeof temporaryDirectory>[0];

async function openStore(context: Context, stateDir: string, onWarning: (message: string) => void = () => undefined): Promise<Store> {
  const store = await Store.open({ stateDir, onWarning });
  context.after(() => store.close());
  return store;
}

async function withSessions(stateDir: string, ids: readonly string[]): Promise<void> {
  const store = await Store.open({ stateDir });
  for (const id of ids) {
    store.createSession({ id, workspace: '/w', title: `title ${id}` });
    store.appendMessage(id, { role: 'user', content: `hello ${id}` });
    await store.recordStart(callStart(id, 'c1'));
    await store.recordFinish(callFinish(id, 'c1'));
  }
  await store.close();
}

const sessionFolder = (stateDir: string, id: string): string => join(stateDir, 'sessions', id);

test('issue 9: opening the store and starting a session read no other session (their databases may even be garbage)', async (context) => {
  const stateDir = temporaryDirectory(context);
  await withSessions(stateDir, ['old-1', 'old-2']);
  for (const id of ['old-1', 'old-2']) writeFileSync(join(sessionFolder(stateDir, id), 'journal.jsonl'), 'not a journal at all\n');
  const store = await openStore(context, stateDir);
  store.createSession({ id: 'new', workspace: '/w' });
  store.appendMessage('new', { role: 'user', content: 'fresh' });
  await store.recordStart(callStart('new', 'c1'));
  await store.recordFinish(callFinish('new', 'c1'));
  assert.deepEqual(
    store
      .listSessions()
      .map((session) => session.id)
      .sort(),
    ['new', 'old-1', 'old-2'],
    'listing reads session.json only',
  );
  assert.equal(store.getSession('old-1')?.title, 'title old-1');
  assert.throws(
    () => store.messages('old-1'),
    (error: unknown) =>
      error instanceof StoreCorruptError && error.message.includes(join(sessionFolder(stateDir, 'old-1'), 'journal.jsonl')),
  );
  assert.deepEqual(readdirSync(stateDir).sort(), ['sessions', 'store.json'], 'no file at the top holds history');
});

test('issue 9 crash case: a kill between the session database and session.json leaves a session that is listed and re-indexed', async (context) => {
  const stateDir = temporaryDirectory(context);
  await withSessions(stateDir, ['s1', 's2']);
  const index = join(sessionFolder(stateDir, 's1'), 'session.json');
  rmSync(index);
  const reader = await Store.open({ stateDir, readOnly: true });
  assert.deepEqual(
    reader
      .listSessions()
      .map((session) => session.id)
      .sort(),
    ['s1', 's2'],
  );
  await reader.close();
  assert.equal(existsSync(index), false, 'a reader writes nothing');
  const store = await openStore(context, stateDir);
  assert.equal(store.getSession('s1')?.title, 'title s1');
  assert.deepEqual(
    store
      .listSessions()
      .map((session) => session.id)
      .sort(),
    ['s1', 's2'],
  );
  assert.equal((JSON.parse(readFileSync(index, 'utf8')) as { id: string }).id, 's1', 'the writer rebuilt session.json from the database');
  // A torn session.json (a crash mid-write of an older Zuno, or a damaged disk) is rebuilt the same way.
  writeFileSync(join(sessionFolder(stateDir, 's2'), 'session.json'), '{"id":"s2","works');
  assert.deepEqual(
    store
      .listSessions()
      .map((session) => [session.id, session.title])
      .sort(),
    [
      ['s1', 'title s1'],
      ['s2', 'title s2'],
    ],
  );
  store.appendMessage('s2', { role: 'user', content: 'resumed' });
  assert.equal(store.messages('s2').length, 2);
});

test('issue 9 crash case: a kill after the session folder was made but before anything was written leaves nothing listed', async (context) => {
  const stateDir = temporaryDirectory(context);
  await withSessions(stateDir, ['s1']);
  mkdirSync(sessionFolder(stateDir, 'half'), { recursive: true });
  const store = await openStore(context, stateDir);
  assert.deepEqual(
    store.listSessions().map((session) => session.id),
    ['s1'],
  );
  store.createSession({ id: 'half', workspace: '/w' });
  assert.equal(store.getSession('half')?.status, 'active');
});

test('issue 9 crash case: a missing session database is named with its folder and what to do; the other sessions open', async (context) => {
  const stateDir = temporaryDirectory(context);
  await withSessions(stateDir, ['gone', 'kept']);
  const folder = sessionFolder(stateDir, 'gone');
  rmSync(join(folder, 'journal.jsonl'));
  const store = await openStore(context, stateDir);
  const named = (error: unknown): boolean =>
    error instanceof StoreCorruptError &&
    error.message.includes(`its database (snapshot.sqlite, journal.jsonl) is missing from ${folder}`) &&
    error.message.includes(`delete the folder ${folder}`);
  assert.throws(() => store.messages('gone'), named);
  assert.throws(() => store.appendMessage('gone', { role: 'user', content: 'x' }), named);
  assert.equal(existsSync(join(folder, 'journal.jsonl')), false, 'no empty database was made in its place');
  assert.equal(store.messages('kept')[0]?.content, 'hello kept');
  store.appendMessage('kept', { role: 'user', content: 'still writable' });
});

test('issue 9 crash case: a torn last line in one session journal is cut off in that session only', async (context) => {
  const stateDir = temporaryDirectory(context);
  await withSessions(stateDir, ['torn', 'fine']);
  const journal = join(sessionFolder(stateDir, 'torn'), 'journal.jsonl');
  appendFileSync(journal, '{"seq":77,"ops":[["INSERT');
  const warnings: string[] = [];
  const store = await openStore(context, stateDir, (message) => warnings.push(message));
  store.appendMessage('fine', { role: 'user', content: 'unaffected' });
  assert.deepEqual(warnings, [], 'the torn session was not touched by writing another');
  store.appendMessage('torn', { role: 'user', content: 'after the tear' });
  assert.match(
    warnings.join('\n'),
    new RegExp(`The last line of ${journal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} .* was cut short by a crash`),
  );
  assert.deepEqual(
    store.messages('torn').map((message) => message.content),
    ['hello torn', 'after the tear'],
  );
});

test('issue 9 crash case: a session file from a newer Zuno is refused naming its folder; a newer layout is refused naming store.json', async (context) => {
  const stateDir = temporaryDirectory(context);
  await withSessions(stateDir, ['newer', 'current']);
  const journal = join(sessionFolder(stateDir, 'newer'), 'journal.jsonl');
  const lines = readFileSync(journal, 'utf8').split('\n').filter(Boolean).length;
  appendFileSync(journal, `${JSON.stringify({ seq: lines + 1, ops: [['PRAGMA user_version = 99', []]] })}\n`);
  const store = await openStore(context, stateDir);
  assert.throws(
    () => store.messages('newer'),
    (error: unknown) =>
      error instanceof StoreUsageError &&
      error.message.includes(`The store in ${sessionFolder(stateDir, 'newer')} was written by a newer Zuno (schema version 99`) &&
      /Update Zuno/.test(error.message),
  );
  assert.equal(store.messages('current')[0]?.content, 'hello current');
  await store.close();

  writeFileSync(join(stateDir, 'store.json'), JSON.stringify({ layout: 3 }));
  await assert.rejects(
    Store.open({ stateDir }),
    (error: unknown) =>
      error instanceof StoreUsageError && error.message.includes(`layout 3 in ${join(stateDir, 'store.json')}; this one knows up to 2`),
  );
});

test('issue 9: each output is stored once: the finish journal line holds it once and the attempt reads it from the call', async (context) => {
  const stateDir = temporaryDirectory(context);
  const store = await openStore(context, stateDir);
  store.createSession({ id: 's1', workspace: '/w' });
  const output = `unique-output-${'y'.repeat(8000)}`;
  await store.recordStart(callStart('s1', 'c1'));
  await store.recordFinish(callFinish('s1', 'c1', { output }));
  // The loop then appends the same text as the tool result of the transcript.
  store.appendMessage('s1', { role: 'tool', callId: 'c1', toolName: 'shell', content: output });
  store.appendMessage('s1', { role: 'tool', callId: 'c1', toolName: 'shell', content: `${output} (edited for the model)` });
  const journal = readFileSync(join(sessionFolder(stateDir, 's1'), 'journal.jsonl'), 'utf8');
  assert.equal(journal.split('unique-output-').length - 1, 2, 'the 8 KB output is written once, plus the tool result that differs from it');
  assert.equal(store.callAttempts('s1', 'c1')[0]?.output, output);
  assert.deepEqual(
    store.messages('s1').map((message) => message.content),
    [output, `${output} (edited for the model)`],
    'the transcript reads back whole',
  );
  // R2: a retried Safe call keeps the failed attempt's own output on its attempt row.
  const safe = { tool: 'webfetch', declarations: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' } } as const;
  await store.recordStart(callStart('s1', 'fetch', safe));
  await store.recordFinish(callFinish('s1', 'fetch', { outcome: 'error', output: 'first failure' }));
  await store.recordStart(callStart('s1', 'fetch', { ...safe, attempt: 2 }));
  await store.recordFinish(callFinish('s1', 'fetch', { attempt: 2, output: 'second try' }));
  assert.deepEqual(
    store.callAttempts('s1', 'fetch').map((attempt) => [attempt.attempt, attempt.status, attempt.output]),
    [
      [1, 'error', 'first failure'],
      [2, 'ok', 'second try'],
    ],
  );
});

test('issue 9: deleting a session removes its folder; a session another store writes is refused', async (context) => {
  const stateDir = temporaryDirectory(context);
  await withSessions(stateDir, ['doomed', 'busy']);
  const holder = await openStore(context, stateDir);
  holder.appendMessage('busy', { role: 'user', content: 'holding it' });
  const store = await openStore(context, stateDir);
  store.deleteSession('doomed');
  assert.equal(existsSync(sessionFolder(stateDir, 'doomed')), false);
  assert.deepEqual(
    store.listSessions().map((session) => session.id),
    ['busy'],
  );
  assert.throws(
    () => store.deleteSession('busy'),
    (error: unknown) => error instanceof StateDirInUseError && /The session busy in the state dir .* is in use by pid/.test(error.message),
  );
  assert.ok(existsSync(join(sessionFolder(stateDir, 'busy'), 'journal.jsonl')), 'the refused deletion left the session whole');
  assert.throws(() => store.deleteSession('doomed'), /There is no session "doomed".*zuno sessions/);
  assert.equal(readdirSync(join(stateDir, 'sessions')).filter((name) => name.startsWith('.deleted-')).length, 0);
});

test('issue 9: a session id that is not a safe folder name gets a hashed folder of its own', async (context) => {
  const stateDir = temporaryDirectory(context);
  const store = await openStore(context, stateDir);
  for (const id of ['../escape', 'a/b', 'CON.', 'spaces in id']) {
    store.createSession({ id, workspace: '/w' });
    store.appendMessage(id, { role: 'user', content: id });
    assert.match(
      store.sessionDir(id),
      new RegExp(`^${join(stateDir, 'sessions').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/id-[0-9a-f]{32}$`),
    );
  }
  assert.deepEqual(readdirSync(stateDir).sort(), ['sessions', 'store.json']);
  assert.deepEqual(
    store
      .listSessions()
      .map((session) => session.id)
      .sort(),
    ['../escape', 'CON.', 'a/b', 'spaces in id'],
  );
  assert.equal(store.messages('a/b')[0]?.content, 'a/b');
});

test('issue 9: memories are shared by every store of the workspace (an append-only log each process may write)', async (context) => {
  const stateDir = temporaryDirectory(context);
  const first = await openStore(context, stateDir);
  const second = await openStore(context, stateDir);
  const memory = first.proposeMemory('use pnpm, not npm');
  assert.equal(second.proposeMemory('use pnpm, not npm').id, memory.id, 'the same text is stored once');
  second.acceptMemory(memory.id);
  assert.equal(first.listMemories('accepted')[0]?.id, memory.id);
  const other = second.proposeMemory('tests live in test/');
  first.deleteMemory(other.id);
  assert.deepEqual(
    second.listMemories().map((row) => row.text),
    ['use pnpm, not npm'],
  );
  appendFileSync(join(stateDir, 'memories.jsonl'), '{"op":"propose","id":"torn","te');
  assert.deepEqual(
    first.listMemories().map((row) => row.text),
    ['use pnpm, not npm'],
    'a torn last line is skipped',
  );
  first.proposeMemory('after the tear');
  assert.deepEqual(
    second.listMemories().map((row) => row.text),
    ['use pnpm, not npm', 'after the tear'],
    'the next line was not glued to the fragment',
  );
});

/** A copy of the 0.1.0 fixture as a state dir (the one-file layout before issue 9). */
function fixtureCopy(context: Context): string {
  const stateDir = temporaryDirectory(context);
  cpSync(FIXTURE_0_1_0, stateDir, { recursive: true });
  return stateDir;
}

async function contents(stateDir: string, readOnly: boolean): Promise<Record<string, string[]>> {
  const store = await Store.open({ stateDir, readOnly });
  try {
    return Object.fromEntries(
      store.listSessions().map((session) => [
        session.id,
        [
          session.status,
          ...store.messages(session.id).map((message) => message.content),
          ...store.calls(session.id).map(
            (call) =>
              `${call.callId}:${call.status}:${call.output ?? ''}:${store
                .callAttempts(session.id, call.callId)
                .map((attempt) => attempt.output)
                .join()}`,
          ),
        ],
      ]),
    );
  } finally {
    await store.close();
  }
}

test('issue 9 migration: a 0.1.0 store is split into one folder per session (copied, verified), and the old files are renamed, never deleted', async (context) => {
  const stateDir = fixtureCopy(context);
  const original = readFileSync(join(stateDir, 'journal.jsonl'));
  const before = await contents(stateDir, true);
  assert.deepEqual(Object.keys(before).sort(), Object.keys(FIXTURE_SESSIONS).sort());
  assert.deepEqual(readFileSync(join(stateDir, 'journal.jsonl')), original, 'a read-only open splits in memory and writes nothing');
  assert.equal(existsSync(join(stateDir, 'store.json')), false);

  const warnings: string[] = [];
  const store = await Store.open({ stateDir, onWarning: (message) => warnings.push(message) });
  await store.close();
  const day = new Date().toISOString().slice(0, 10);
  assert.match(
    warnings.join('\n'),
    new RegExp(`split the store in .* into one folder per session \\(2 sessions.*kept as .*journal\\.jsonl\\.migrated-${day}`),
  );
  assert.deepEqual(readFileSync(join(stateDir, `journal.jsonl.migrated-${day}`)), original, 'the old journal is kept byte for byte');
  assert.deepEqual(readdirSync(join(stateDir, 'sessions')).sort(), Object.keys(FIXTURE_SESSIONS).sort());
  assert.deepEqual(await contents(stateDir, false), before, 'every session, message, call and attempt output is there');
  assert.deepEqual(await contents(stateDir, true), before);
});

test('issue 9 migration: a split cut off before store.json is redone from the old files; one cut off after it only renames them', async (context) => {
  const stateDir = fixtureCopy(context);
  const before = await contents(stateDir, true);
  // A split killed while copying: a partial sessions/ folder, no store.json, the old files in place.
  mkdirSync(join(stateDir, 'sessions', 'session-alpha'), { recursive: true });
  writeFileSync(join(stateDir, 'sessions', 'session-alpha', 'snapshot.sqlite'), 'half a copy');
  await (await Store.open({ stateDir })).close();
  assert.deepEqual(await contents(stateDir, true), before);

  // A split killed after store.json, before the old files were renamed.
  cpSync(join(FIXTURE_0_1_0, 'journal.jsonl'), join(stateDir, 'journal.jsonl'));
  const warnings: string[] = [];
  await (await Store.open({ stateDir, onWarning: (message) => warnings.push(message) })).close();
  assert.equal(existsSync(join(stateDir, 'journal.jsonl')), false);
  assert.match(warnings.join('\n'), /Renamed .*journal\.jsonl\.migrated-.*: this store was already split/);
  assert.deepEqual(await contents(stateDir, true), before, 'not split twice');
});

test('issue 9: a long-lived store keeps at most MAX_OPEN_SESSIONS sessions open, releasing the locks of idle ones, never of one with a call running', async (context) => {
  const stateDir = temporaryDirectory(context);
  const store = await openStore(context, stateDir);
  store.createSession({ id: 'running', workspace: '/w' });
  await store.recordStart(callStart('running', 'c1'));
  const ids = Array.from({ length: MAX_OPEN_SESSIONS + 2 }, (_, index) => `s${index}`);
  for (const id of ids) store.createSession({ id, workspace: '/w' });
  const locked = (id: string): boolean => existsSync(join(sessionFolder(stateDir, id), 'lock'));
  assert.equal(locked('running'), true, 'a session with a call running stays open');
  assert.deepEqual(ids.filter(locked), ids.slice(-(MAX_OPEN_SESSIONS - 1)), 'the most recent idle sessions stay open');
  // An evicted session can be written by another store, and reopened here afterwards.
  const other = await openStore(context, stateDir);
  other.appendMessage('s0', { role: 'user', content: 'from the other store' });
  await other.close();
  store.appendMessage('s0', { role: 'user', content: 'back here' });
  assert.deepEqual(
    store.messages('s0').map((message) => message.content),
    ['from the other store', 'back here'],
  );
  await store.recordFinish(callFinish('running', 'c1'));
  assert.equal(store.getCall('running', 'c1')?.status, 'ok');
});

test('issue 9: retention deletes sessions beyond history.max_sessions and older than history.max_age_days; unset keeps everything', async (context) => {
  const stateDir = temporaryDirectory(context);
  await withSessions(stateDir, ['oldest', 'older', 'newer', 'newest']);
  const day = 24 * 60 * 60 * 1000;
  const store = await openStore(context, stateDir);
  // Dates as if written over several days: session.json is what listing and retention read.
  const ages: Record<string, number> = { oldest: 40, older: 20, newer: 2, newest: 1 };
  const now = Date.now();
  for (const [id, age] of Object.entries(ages)) {
    const path = join(sessionFolder(stateDir, id), 'session.json');
    writeFileSync(path, JSON.stringify({ ...(JSON.parse(readFileSync(path, 'utf8')) as object), updatedAt: now - age * day }));
  }
  assert.deepEqual(store.applyRetention({}), [], 'no limits: everything is kept');
  assert.deepEqual(store.applyRetention({ max_sessions: 0, max_age_days: 0 }, now), [], 'the defaults (0) keep everything');
  assert.deepEqual(store.applyRetention({ max_age_days: 30 }, now), ['oldest']);
  // An event opens the session for writing here without changing its date.
  store.recordEvent({ type: 'notice', level: 'info', text: 'open in this store', ts: now, session_id: 'older' });
  assert.deepEqual(
    store.applyRetention({ max_sessions: 2 }, now),
    ['newer'],
    'older is open here: it is kept and counts toward the limit, which newest fills',
  );
  assert.deepEqual(
    store
      .listSessions()
      .map((session) => session.id)
      .sort(),
    ['newest', 'older'],
  );
});

test('issue 9: resuming a session just shown turns the loaded copy into the writer, unless another process wrote it in between', async (context) => {
  const stateDir = temporaryDirectory(context);
  await withSessions(stateDir, ['s1']);
  const store = await openStore(context, stateDir);
  assert.equal(store.messages('s1').length, 1, 'shown: loaded read-only');
  store.appendMessage('s1', { role: 'user', content: 'resumed' });
  await store.recordStart(callStart('s1', 'c2'));
  await store.close();
  const reopened = await openStore(context, stateDir);
  assert.deepEqual(
    reopened.messages('s1').map((message) => message.content),
    ['hello s1', 'resumed'],
    'the promoted writer continued the journal in sequence',
  );
  assert.equal(reopened.getCall('s1', 'c2')?.status, 'running');
  // Another store writes between this one's read and its first write.
  const other = await Store.open({ stateDir });
  other.appendMessage('s1', { role: 'user', content: 'from the other store' });
  await other.close();
  reopened.appendMessage('s1', { role: 'user', content: 'after it' });
  assert.deepEqual(
    reopened.messages('s1').map((message) => message.content),
    ['hello s1', 'resumed', 'from the other store', 'after it'],
  );
});

test('issue 9: with history.max_sessions set, creating a session leaves exactly that many, the new one included', async (context) => {
  const stateDir = temporaryDirectory(context);
  await withSessions(stateDir, ['first', 'second', 'third']);
  const store = await Store.open({ stateDir, retention: { max_sessions: 2 } });
  context.after(() => store.close());
  assert.equal(store.listSessions().length, 3, 'opening the store deletes nothing');
  store.createSession({ id: 'fourth', workspace: '/w' });
  const left = store.listSessions().map((session) => session.id);
  assert.equal(left.length, 2, `two sessions remain, not three: ${left.join(', ')}`);
  assert.equal(left[0], 'fourth');
  assert.deepEqual(readdirSync(join(stateDir, 'sessions')).sort(), [...left].sort(), 'the deleted one is gone with its files');
  store.createSession({ id: 'fifth', workspace: '/w' });
  assert.deepEqual(
    store
      .listSessions()
      .map((session) => session.id)
      .sort(),
    ['fifth', 'fourth'],
    'sessions this store has open are kept and count toward the limit',
  );
});
