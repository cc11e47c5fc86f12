// Issue 9: session search over one index per session (src/store/search.ts), kept in the session's
// folder and brought up to date when the writing process closes the store, so the first search
// after a restart indexes nothing. Real stores in real temp dirs; the assertions are on the
// indexes' state and on what a search had to index, never on timing.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_OPEN_SESSIONS, Store } from '../../../src/store/store';
import type { SearchProgress } from '../../../src/store/store';
import { indexedText, OCCURRENCES_PER_DOCUMENT } from '../../../src/store/search';
import { loadSqlJs } from '../../../src/store/sqljs';
import { FIXTURE_0_1_0 } from '../../support/make-store-fixture';
import { callFinish, callStart, temporaryDirectory } from '../../support/store-fixtures';

async function openStore(context: TestContext, stateDir: string, warnings: string[] = [], readOnly = false): Promise<Store> {
  const store = await Store.open({ stateDir, readOnly, onWarning: (message) => warnings.push(message) });
  context.after(() => store.close());
  return store;
}

/** Writes a session with a prompt, a finished call and an answer, each carrying `word`. */
async function writeSession(store: Store, id: string, word: string): Promise<void> {
  store.createSession({ id, workspace: '/w', title: `about ${word}` });
  store.appendMessage(id, { role: 'user', content: `please look into the ${word} problem` });
  store.appendMessage(id, { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'shell', arguments: '{}' }] });
  await store.recordStart(callStart(id, 'c1', { argumentsJson: JSON.stringify({ command: `grep -r ${word}` }) }));
  await store.recordFinish(callFinish(id, 'c1', { output: `src/${word}.ts:1: the ${word} lives here` }));
  store.appendMessage(id, { role: 'assistant', content: `Found the ${word} in src/${word}.ts.` });
}

/** Searches and records what the search had to index on the way. */
function searchWithProgress(store: Store, query: string, limit = 10): { ids: string[]; progress: SearchProgress[] } {
  const progress: SearchProgress[] = [];
  const ids = store.searchSessions(query, { limit, onProgress: (step) => progress.push(step) }).map((hit) => hit.sessionId);
  return { ids, progress };
}

const indexPath = (stateDir: string, id: string): string => join(stateDir, 'sessions', id, 'search.sqlite');

test('issue 9: a session written and then searched right after a restart is found with no indexing at search time', async (context) => {
  const stateDir = temporaryDirectory(context);
  const writer = await Store.open({ stateDir });
  await writeSession(writer, 'alpha', 'tokenizer');
  await writeSession(writer, 'beta', 'renderer');
  assert.equal(existsSync(indexPath(stateDir, 'alpha')), false, 'no write indexes: the index is made when the writer lets go');
  await writer.close();

  const reopened = await openStore(context, stateDir);
  assert.equal(reopened.searchIndexState('alpha'), 'current');
  assert.equal(reopened.searchIndexState('beta'), 'current');
  const byOutput = searchWithProgress(reopened, 'tokenizer lives');
  assert.deepEqual(byOutput.ids, ['alpha']);
  assert.deepEqual(byOutput.progress, [], 'nothing was indexed by the search');
  assert.deepEqual(searchWithProgress(reopened, 'RENDERER problem').ids, ['beta'], 'prompts are indexed too');
  assert.deepEqual(searchWithProgress(reopened, 'grep').ids.sort(), ['alpha', 'beta'], 'and the tool and arguments of calls');
});

test('issue 9: a session whose journal the writer folds into its snapshot at close is indexed as its files then stay, so the first search after a restart indexes nothing', async (context) => {
  const stateDir = temporaryDirectory(context);
  const writer = await Store.open({ stateDir });
  await writeSession(writer, 'big', 'tokenizer');
  // Past the journal size a closing writer folds (256 KiB).
  for (let index = 2; index <= 45; index++) {
    await writer.recordStart(callStart('big', `c${index}`));
    await writer.recordFinish(callFinish('big', `c${index}`, { output: `${index}: ${'payload '.repeat(1024)}` }));
  }
  await writer.close();
  assert.ok(existsSync(join(stateDir, 'sessions', 'big', 'snapshot.sqlite')), 'the journal was folded at close');

  const reopened = await openStore(context, stateDir);
  assert.equal(reopened.searchIndexState('big'), 'current');
  const found = searchWithProgress(reopened, 'tokenizer lives');
  assert.deepEqual(found.ids, ['big']);
  assert.deepEqual(found.progress, [], 'nothing was indexed by the search');
});

test('issue 9: sessions this process closed early to bound its open sessions are indexed too when the store closes', async (context) => {
  const stateDir = temporaryDirectory(context);
  const writer = await Store.open({ stateDir });
  const ids = Array.from({ length: MAX_OPEN_SESSIONS + 2 }, (_, index) => `s${index}`);
  for (const id of ids) await writeSession(writer, id, `word${id}`);
  await writer.close();
  const reopened = await openStore(context, stateDir);
  assert.deepEqual(
    ids.map((id) => reopened.searchIndexState(id)),
    ids.map(() => 'current'),
  );
  assert.deepEqual(searchWithProgress(reopened, 'words0'), { ids: ['s0'], progress: [] });
});

test('issue 9: a session whose writer never closed (killed) is indexed once by the next search, from where its index stopped, alone', async (context) => {
  const stateDir = temporaryDirectory(context);
  const first = await Store.open({ stateDir });
  await writeSession(first, 'done', 'parser');
  await first.close();
  // A writer that is never closed leaves its session's files ahead of its index, as a kill -9 does.
  const live = await openStore(context, stateDir);
  await writeSession(live, 'cut', 'lexer');
  live.appendMessage('done', { role: 'user', content: 'and the lexer as well' });

  const searcher = await openStore(context, stateDir, [], true);
  assert.equal(searcher.searchIndexState('cut'), 'missing');
  assert.equal(searcher.searchIndexState('done'), 'behind');
  const found = searchWithProgress(searcher, 'lexer');
  assert.deepEqual(found.ids.sort(), ['cut', 'done']);
  assert.deepEqual(
    found.progress.map((step) => step.indexed),
    [1, 2],
    'the two sessions whose files changed, and no other',
  );
  assert.equal(searcher.searchIndexState('cut'), 'missing', 'a read-only store indexes in memory and writes nothing');

  // The writer brings its sessions up to date at close; then nothing is left to index.
  await live.close();
  assert.equal(searcher.searchIndexState('cut'), 'current');
  assert.equal(searcher.searchIndexState('done'), 'current');
  assert.deepEqual(searchWithProgress(searcher, 'lexer').progress, []);
});

test('issue 9: sessions from before per-session indexes are found, indexed lazily with progress, and the former global index is removed', async (context) => {
  const stateDir = temporaryDirectory(context);
  const writer = await Store.open({ stateDir });
  for (const id of ['old1', 'old2', 'old3']) await writeSession(writer, id, `topic${id}`);
  await writer.close();
  // As the previous version left it: no index in the session folders, one index beside them.
  for (const id of ['old1', 'old2', 'old3']) {
    rmSync(indexPath(stateDir, id));
    rmSync(join(stateDir, 'sessions', id, 'search.terms'));
  }
  writeFileSync(join(stateDir, 'search.sqlite'), 'the former index over every session');

  const store = await openStore(context, stateDir);
  assert.equal(store.searchIndexState('old2'), 'missing');
  const first = searchWithProgress(store, 'topicold2');
  assert.deepEqual(first.ids, ['old2']);
  assert.deepEqual(
    first.progress.map((step) => [step.indexed, step.total]),
    [
      [1, 3],
      [2, 3],
      [3, 3],
    ],
  );
  assert.equal(existsSync(join(stateDir, 'search.sqlite')), false, 'the former global index is gone');
  assert.deepEqual(
    ['old1', 'old2', 'old3'].map((id) => store.searchIndexState(id)),
    ['current', 'current', 'current'],
  );
  assert.deepEqual(searchWithProgress(store, 'topicold3'), { ids: ['old3'], progress: [] }, 'indexed once');
});

test('issue 9: a 0.1.0 store (one database for every session) opened read-only is searched in memory, writing nothing', async (context) => {
  const stateDir = temporaryDirectory(context);
  cpSync(FIXTURE_0_1_0, stateDir, { recursive: true });
  const before = readdirSync(stateDir).sort();
  const store = await openStore(context, stateDir, [], true);
  const hits = store.searchSessions('files', { limit: 5 });
  assert.deepEqual(hits.map((hit) => hit.sessionId).sort(), ['session-alpha', 'session-beta']);
  assert.match(hits[0]?.excerpts[0]?.text ?? '', /list the files|contents of file/);
  assert.deepEqual(
    store.searchSessions('beta', { limit: 5 }).map((hit) => hit.sessionId),
    ['session-beta'],
  );
  assert.deepEqual(readdirSync(stateDir).sort(), before, 'no file written beside the old store');
});

test('issue 9: deleting a session deletes its index with it; no other file holds its words', async (context) => {
  const stateDir = temporaryDirectory(context);
  const writer = await Store.open({ stateDir });
  await writeSession(writer, 'keep', 'kept');
  await writeSession(writer, 'gone', 'zanzibar');
  await writer.close();
  const store = await openStore(context, stateDir);
  assert.deepEqual(searchWithProgress(store, 'zanzibar').ids, ['gone']);
  store.deleteSession('gone');
  assert.equal(existsSync(join(stateDir, 'sessions', 'gone')), false);
  assert.deepEqual(searchWithProgress(store, 'zanzibar'), { ids: [], progress: [] });
  // The word is in no file left in the state dir (FTS4 keeps terms as plain bytes, so a leftover index would hold it).
  const leftovers: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (readFileSync(path).includes('zanzibar')) leftovers.push(path);
    }
  };
  walk(stateDir);
  assert.deepEqual(leftovers, []);
});

test('issue 9: a torn or missing index affects only its session: it is named, rebuilt from the session, and the others are read as they are', async (context) => {
  const stateDir = temporaryDirectory(context);
  const writer = await Store.open({ stateDir });
  for (const id of ['torn', 'lost', 'fine']) await writeSession(writer, id, 'shared');
  await writer.close();
  const tornPath = indexPath(stateDir, 'torn');
  truncateSync(tornPath, Math.floor(statSync(tornPath).size / 2));
  rmSync(indexPath(stateDir, 'lost'));

  const warnings: string[] = [];
  const readOnly = await openStore(context, stateDir, warnings, true);
  assert.equal(readOnly.searchIndexState('torn'), 'unreadable');
  assert.deepEqual(readOnly.searchIndexState('fine'), 'current');
  const seen = searchWithProgress(readOnly, 'shared');
  assert.deepEqual(seen.ids.sort(), ['fine', 'lost', 'torn'], 'every session is still found');
  assert.equal(seen.progress.length, 2, 'only the torn and the missing index were made again');
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(
    warnings[0] ?? '',
    /^The search index .*sessions\/torn\/search\.sqlite of session torn cannot be read \(.*\); it is rebuilt from the session\. Other sessions are not affected\.$/,
  );
  assert.equal(readOnly.searchIndexState('torn'), 'unreadable', 'a read-only store leaves the file alone');

  const store = await openStore(context, stateDir, warnings);
  assert.equal(searchWithProgress(store, 'shared').progress.length, 2);
  assert.deepEqual(
    ['torn', 'lost', 'fine'].map((id) => store.searchIndexState(id)),
    ['current', 'current', 'current'],
    'a writable store saves the rebuilt indexes',
  );
});

test('issue 9: a session whose word filter lacks a word of the query is skipped without opening its index; a filter of other files is not trusted', async (context) => {
  const stateDir = temporaryDirectory(context);
  const writer = await Store.open({ stateDir });
  await writeSession(writer, 'apples', 'apple');
  await writeSession(writer, 'pears', 'pear');
  await writer.close();
  assert.ok(existsSync(join(stateDir, 'sessions', 'pears', 'search.terms')));
  // A damaged index is noticed only when it is opened.
  writeFileSync(indexPath(stateDir, 'pears'), 'damaged');
  const warnings: string[] = [];
  const store = await openStore(context, stateDir, warnings, true);
  assert.deepEqual(searchWithProgress(store, 'apple problem'), { ids: ['apples'], progress: [] });
  assert.deepEqual(warnings, [], 'the index of pears was never opened: its filter has no "apple"');
  assert.deepEqual(searchWithProgress(store, 'pear').ids, ['pears']);
  assert.equal(warnings.length, 1, 'the filter lets a word of the session through, and the damaged index is found and rebuilt');

  // New words written after the filter was made: the filter names other files, so the index is read and caught up.
  const live = await openStore(context, stateDir);
  live.appendMessage('apples', { role: 'user', content: 'now compare with a quince' });
  assert.deepEqual(searchWithProgress(store, 'quince').ids, ['apples']);
});

test('issue 9: catching up indexes only what is new: a call running at one search is indexed when it has finished, the calls after it once', async (context) => {
  const stateDir = temporaryDirectory(context);
  const live = await openStore(context, stateDir);
  live.createSession({ id: 'work', workspace: '/w' });
  await live.recordStart(callStart('work', 'slow', { argumentsJson: '{"command":"make slow"}' }));
  await live.recordStart(callStart('work', 'quick', { position: 1, argumentsJson: '{"command":"make quick"}' }));
  await live.recordFinish(callFinish('work', 'quick', { output: 'okapi okapi' }));
  // Writable, so its search saves the index, and the writer's close catches up from there.
  const searcher = await openStore(context, stateDir);
  assert.deepEqual(
    searcher.searchSessions('okapi', { limit: 5 }).map((hit) => hit.score),
    [2],
  );
  assert.deepEqual(searcher.searchSessions('slow', { limit: 5 }), [], 'a running call is not indexed yet');
  assert.equal(searcher.searchIndexState('work'), 'current');

  await live.recordFinish(callFinish('work', 'slow', { output: 'zebra crossing' }));
  await live.close();
  assert.equal(searcher.searchIndexState('work'), 'current');
  const progress: SearchProgress[] = [];
  assert.deepEqual(
    searcher.searchSessions('zebra', { limit: 5, onProgress: (step) => progress.push(step) }).map((hit) => hit.excerpts[0]?.text),
    ['shell {"command":"make slow"} zebra crossing'],
  );
  assert.deepEqual(progress, [], 'the writer indexed it at close');
  assert.deepEqual(
    searcher.searchSessions('okapi', { limit: 5 }).map((hit) => hit.score),
    [2],
    'the call after it is indexed once',
  );
});

test('issue 9: a search stops reading indexes once no session left can outscore the best `limit`, and still ranks exactly', async (context) => {
  const stateDir = temporaryDirectory(context);
  const writer = await Store.open({ stateDir });
  const mentions: Record<string, number> = { heavy: 40, middle: 12, light1: 1, light2: 1, light3: 2 };
  for (const [id, count] of Object.entries(mentions)) {
    writer.createSession({ id, workspace: '/w' });
    writer.appendMessage(id, { role: 'user', content: `${'capybara '.repeat(count)}and ${id}` });
    // Distinct update times, so the order of equal scores (most recent first) is fixed.
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await writer.close();
  // An index that is read is noticed: the light sessions' indexes are damaged, so reading one warns.
  for (const id of ['light1', 'light2', 'light3']) writeFileSync(indexPath(stateDir, id), 'damaged');
  const warnings: string[] = [];
  const store = await openStore(context, stateDir, warnings, true);
  const top = store.searchSessions('capybara', { limit: 2 });
  assert.deepEqual(
    top.map((hit) => [hit.sessionId, hit.score]),
    [
      ['heavy', 40],
      ['middle', 12],
    ],
  );
  assert.deepEqual(warnings, [], 'the light sessions could score at most a few: their indexes were never read');
  // Asked for more, the search reads them (and rebuilds them), and the order is by score.
  assert.deepEqual(
    store.searchSessions('capybara', { limit: 5 }).map((hit) => [hit.sessionId, hit.score]),
    [
      ['heavy', 40],
      ['middle', 12],
      ['light3', 2],
      ['light2', 1],
      ['light1', 1],
    ],
  );
  assert.equal(warnings.length, 3);
});

test('issue 9: a large word filter is read a few bytes at a time, and still lets every word of its session through', async (context) => {
  const stateDir = temporaryDirectory(context);
  const writer = await Store.open({ stateDir });
  writer.createSession({ id: 'big', workspace: '/w' });
  writer.appendMessage('big', {
    role: 'user',
    content: `${Array.from({ length: 3000 }, (_, index) => `alpha${index}`).join(' ')} ${'zeta '.repeat(5)}`,
  });
  writer.createSession({ id: 'small', workspace: '/w' });
  writer.appendMessage('small', { role: 'user', content: 'zeta zeta zeta' });
  await writer.close();
  assert.ok(statSync(join(stateDir, 'sessions', 'big', 'search.terms')).size > 16_384, 'larger than what is read at once');
  const store = await openStore(context, stateDir, [], true);
  for (let index = 0; index < 3000; index += 97) {
    assert.deepEqual(searchWithProgress(store, `alpha${index}`), { ids: ['big'], progress: [] }, `alpha${index}`);
  }
  assert.deepEqual(
    store.searchSessions('zeta', { limit: 1 }).map((hit) => [hit.sessionId, hit.score]),
    [['big', 5]],
  );
  assert.deepEqual(searchWithProgress(store, 'alpha3000').ids, []);
});

test('issue 9: a session whose own files are damaged is left out and named; its index alone cannot bring it back', async (context) => {
  const stateDir = temporaryDirectory(context);
  const writer = await Store.open({ stateDir });
  await writeSession(writer, 'broken', 'needle');
  await writeSession(writer, 'whole', 'needle');
  await writer.close();
  writeFileSync(join(stateDir, 'sessions', 'broken', 'journal.jsonl'), 'garbage\n');
  const warnings: string[] = [];
  const store = await openStore(context, stateDir, warnings);
  assert.deepEqual(searchWithProgress(store, 'needle').ids, ['whole']);
  assert.match(
    warnings.join('\n'),
    /Session broken is left out of the search: The journal .*sessions\/broken\/journal\.jsonl is damaged at line 1/,
  );
});

test('issue 9: ranking is merged across sessions: most occurrences first, then the most recent, and only `limit` are returned', async (context) => {
  const stateDir = temporaryDirectory(context);
  const store = await openStore(context, stateDir);
  const counts: Record<string, number> = { one: 1, three: 3, two: 2, twoLater: 2, none: 0 };
  for (const [id, count] of Object.entries(counts)) {
    store.createSession({ id, workspace: '/w' });
    store.appendMessage(id, { role: 'user', content: `${'walrus '.repeat(count)}and more` });
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  assert.deepEqual(searchWithProgress(store, 'walrus', 3).ids, ['three', 'twoLater', 'two']);
  assert.deepEqual(
    store.searchSessions('walrus', { limit: 10, excludeSessionId: 'three' }).map((hit) => [hit.sessionId, hit.score]),
    [
      ['twoLater', 2],
      ['two', 2],
      ['one', 1],
    ],
  );
});

test('issue 9: a word counts at most OCCURRENCES_PER_DOCUMENT times per document; identifiers are kept whole and words left out never make a false phrase', () => {
  const text = `${'beta '.repeat(OCCURRENCES_PER_DOCUMENT + 2)}delta beta gamma foo_bar`;
  assert.equal(indexedText(text), `${'beta '.repeat(OCCURRENCES_PER_DOCUMENT)}\uE000 delta \uE000 gamma foo_bar`);
  // JSON punctuation separates units as it separates words, and every unit's first occurrences are kept.
  assert.equal(indexedText('{"command":"make x_y","n":[1,2]}'), 'command make x_y n 1 2');
});

test('issue 9: repeats past the cap cost no index pages, and what follows them is still found, without false phrases', async (context) => {
  const stateDir = temporaryDirectory(context);
  const writer = await Store.open({ stateDir });
  for (const [id, repeats] of [
    ['few', OCCURRENCES_PER_DOCUMENT],
    ['many', 20_000],
  ] as const) {
    writer.createSession({ id, workspace: '/w' });
    await writer.recordStart(callStart(id, 'c1'));
    await writer.recordFinish(callFinish(id, 'c1', { output: `${'walrus '.repeat(repeats)}delta walrus gamma ${id}_tail` }));
  }
  await writer.close();
  const SQL = await loadSqlJs();
  const pages = (id: string): number => {
    const db = new SQL.Database(readFileSync(indexPath(stateDir, id)));
    try {
      return Number(db.exec('PRAGMA page_count')[0]?.values[0]?.[0]);
    } finally {
      db.close();
    }
  };
  assert.equal(pages('many'), pages('few'), '20,000 repeats of a word take the pages of 64');
  const store = await openStore(context, stateDir, [], true);
  assert.deepEqual(
    store.searchSessions('walrus', { limit: 5 }).map((hit) => [hit.sessionId, hit.score]),
    [
      ['many', OCCURRENCES_PER_DOCUMENT],
      ['few', OCCURRENCES_PER_DOCUMENT],
    ],
  );
  assert.deepEqual(searchWithProgress(store, 'gamma').ids, ['many', 'few'], 'a word after the repeats is found');
  assert.deepEqual(searchWithProgress(store, 'many_tail').ids, ['many'], 'and an identifier, as a phrase');
  // In "many", the walrus between delta and gamma is past the cap and left out: delta and gamma are not adjacent.
  assert.deepEqual(searchWithProgress(store, 'delta_gamma').ids, []);
});

test('issue 9: after each close the index is one merged FTS segment with no free pages, however many closes added to it', async (context) => {
  const stateDir = temporaryDirectory(context);
  const SQL = await loadSqlJs();
  for (let round = 0; round < 4; round++) {
    const writer = await Store.open({ stateDir });
    if (round === 0) writer.createSession({ id: 'long', workspace: '/w' });
    // Distinct words each round, so each catch-up adds a segment that the merge must fold in.
    writer.appendMessage('long', {
      role: 'user',
      content: Array.from({ length: 300 }, (_, index) => `round${round}word${index}`).join(' '),
    });
    await writer.close();
    const db = new SQL.Database(readFileSync(indexPath(stateDir, 'long')));
    try {
      assert.deepEqual(db.exec('SELECT count(*) FROM fts_segdir')[0]?.values, [[1]], `one segment after close ${round + 1}`);
      assert.deepEqual(db.exec('PRAGMA freelist_count')[0]?.values, [[0]], `no free pages after close ${round + 1}`);
    } finally {
      db.close();
    }
  }
  const store = await openStore(context, stateDir, [], true);
  for (let round = 0; round < 4; round++)
    assert.deepEqual(searchWithProgress(store, `round${round}word299`), { ids: ['long'], progress: [] });
});

test('issue 9: an index written by another version (before an upgrade) is rebuilt once at the next search, without a warning', async (context) => {
  const stateDir = temporaryDirectory(context);
  const writer = await Store.open({ stateDir });
  await writeSession(writer, 'old', 'marmot');
  await writer.close();
  // The index as version 2 left it: what it holds was made differently, so it is not read.
  const SQL = await loadSqlJs();
  const db = new SQL.Database(readFileSync(indexPath(stateDir, 'old')));
  db.run('PRAGMA user_version = 2');
  writeFileSync(indexPath(stateDir, 'old'), db.export());
  db.close();
  const warnings: string[] = [];
  const store = await openStore(context, stateDir, warnings);
  assert.equal(store.searchIndexState('old'), 'behind');
  assert.deepEqual(
    searchWithProgress(store, 'marmot').progress.map((step) => step.indexed),
    [1],
  );
  assert.equal(store.searchIndexState('old'), 'current');
  assert.deepEqual(warnings, [], 'an upgrade is not damage');
});
