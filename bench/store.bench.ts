/**
 * Issue 9's targets for the per-session store, as ratios against figures from the same run:
 * - opening the store and starting a new session, and the process's memory after it, with
 *   100, 10,000 and 100,000 stored calls (8 KB outputs) against an empty state dir (each in a
 *   fresh process);
 * - one durable call record (start + finish, each fdatasync'd) at each size, p50/p99/max,
 *   against a bare append + fdatasync of the same bytes to a plain file;
 * - state on disk against the bytes of the outputs and messages it holds;
 * - resuming a session of 5,000 calls;
 * - session_search at 100 and 10,000 calls (and 100,000 with ZUNO_BENCH_SEARCH_100K=1: it writes
 *   1,000 distinct sessions, about 1 GB, too much for a shared machine by default): the first
 *   search over sessions written before per-session indexes (it indexes them), then, in a fresh
 *   process, the first search after a restart and later ones, with the process's memory; printed
 *   side by side at the end.
 *
 * Scaled to keep the run short: the stored history is sessions of 100 calls each, written once
 * as a snapshot with sql.js and hard-linked into every session folder (the bytes on disk are
 * one session's; nothing measured here reads another session, which is the point).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, fdatasyncSync, linkSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Database, SqlJsStatic } from 'sql.js';
import { writeLayout, writeSessionFile } from '../src/store/layout';
import { MIGRATIONS } from '../src/store/schema';
import { loadSqlJs } from '../src/store/sqljs';
import { Store } from '../src/store/store';
import type { BenchResult } from './run';

const SIZES = [100, 10_000, 100_000];
const CALLS_PER_SESSION = 100;
const OUTPUT_BYTES = 8192;
const RECORDS = 200;
const WARMUP = 10;
const RESUME_CALLS = 5_000;
const SEARCH_SIZES = [100, 10_000, ...(process.env['ZUNO_BENCH_SEARCH_100K'] === '1' ? [100_000] : [])];

const output = (index: number): string =>
  `output ${index}: ${'lorem ipsum dolor sit amet '.repeat(Math.ceil(OUTPUT_BYTES / 27)).slice(0, OUTPUT_BYTES - 20)}`;

/** One session's database with `calls` finished calls of 8 KB outputs, as a snapshot. */
function sessionSnapshot(SQL: SqlJsStatic, id: string, calls: number, words: (index: number) => string = () => ''): Uint8Array {
  const db: Database = new SQL.Database();
  for (const migration of MIGRATIONS) {
    for (const statement of migration.statements) db.run(statement);
    db.run(`PRAGMA user_version = ${migration.version}`);
  }
  db.run(`INSERT INTO store_meta (key, value) VALUES ('journal_seq', '0')`);
  db.run(`INSERT INTO sessions (id, workspace, title, created_at, updated_at, status) VALUES (?, '/w', 'history', 0, 0, 'done')`, [id]);
  db.run('BEGIN');
  const message = db.prepare('INSERT INTO messages (session_id, seq, json) VALUES (?, ?, ?)');
  const call = db.prepare(
    `INSERT INTO calls (session_id, call_id, ordinal, turn, position, tool, arguments_json, effect, replay, concurrency, attempt, status, output, truncated, started_at, finished_at, duration_ms)
     VALUES (?, ?, ?, ?, 0, 'shell', ?, 'SideEffecting', 'Never', 'Exclusive', 1, 'ok', CAST(? AS TEXT), 0, ?, ?, 5)`,
  );
  const attempt = db.prepare(
    `INSERT INTO call_attempts (session_id, call_id, attempt, status, started_at, finished_at, duration_ms) VALUES (?, ?, 1, 'ok', ?, ?, 5)`,
  );
  for (let index = 1; index <= calls; index++) {
    message.run([
      id,
      2 * index - 1,
      JSON.stringify({
        role: 'assistant',
        content: `step ${index} ${words(index)}`,
        toolCalls: [{ id: `c${index}`, name: 'shell', arguments: '{}' }],
      }),
    ]);
    // The tool result as the store keeps it when it equals the call's output: a reference (schema 4).
    message.run([id, 2 * index, JSON.stringify({ role: 'tool', callId: `c${index}`, toolName: 'shell', contentInCall: true })]);
    call.run([
      id,
      `c${index}`,
      index,
      index,
      JSON.stringify({ command: `make target-${index}` }),
      // As UTF-8 bytes, as the store binds it (sql.js converts strings slowly).
      Buffer.from(`${words(index)} ${output(index)}`, 'utf8'),
      index,
      index + 5,
    ]);
    attempt.run([id, `c${index}`, index, index + 5]);
  }
  message.free();
  call.free();
  attempt.free();
  db.run('COMMIT');
  const data = db.export();
  db.close();
  return data;
}

function writeDurably(path: string, data: Uint8Array): void {
  const fd = openSync(path, 'w');
  writeSync(fd, data);
  fdatasyncSync(fd);
  closeSync(fd);
}

/** A state dir holding `calls` stored calls as sessions of CALLS_PER_SESSION, hard links of one snapshot. */
function historyDir(SQL: SqlJsStatic, calls: number): string {
  const stateDir = mkdtempSync(join(tmpdir(), 'zuno-store-bench-'));
  mkdirSync(join(stateDir, 'sessions'));
  writeLayout(stateDir);
  const template = join(stateDir, 'template.sqlite');
  writeDurably(template, sessionSnapshot(SQL, 'template', Math.min(calls, CALLS_PER_SESSION)));
  for (let session = 0; session < Math.max(1, calls / CALLS_PER_SESSION); session++) {
    const id = `history-${session}`;
    const dir = join(stateDir, 'sessions', id);
    mkdirSync(dir);
    linkSync(template, join(dir, 'snapshot.sqlite'));
    writeSessionFile(dir, { id, workspace: '/w', title: 'history', createdAt: session, updatedAt: session, status: 'done' });
  }
  return stateDir;
}

function openInFreshProcess(stateDir: string): { medianMs: number; rssBytes: number } {
  const child = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'store-open-child.ts'), stateDir, '10'], {
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`store-open-child failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as { medianMs: number; rssBytes: number };
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;

/** µs per record: the store's start + finish in a new session, and a bare file taking the same bytes with the same fdatasyncs. */
async function records(stateDir: string): Promise<{ store: number[]; bare: number[]; bytesPerRecord: number }> {
  const store = await Store.open({ stateDir });
  const bareDir = mkdtempSync(join(tmpdir(), 'zuno-bare-'));
  const bare = openSync(join(bareDir, 'append.log'), 'a');
  const measured = { store: [] as number[], bare: [] as number[], bytesPerRecord: 0 };
  try {
    store.createSession({ id: 'bench', workspace: '/w' });
    const journal = join(stateDir, 'sessions', 'bench', 'journal.jsonl');
    for (let index = 0; index < WARMUP + RECORDS; index++) {
      const before = statSync(journal).size;
      const beginStart = performance.now();
      await store.recordStart({
        sessionId: 'bench',
        callId: `new-${index}`,
        turn: index,
        position: 0,
        tool: 'shell',
        argumentsJson: JSON.stringify({ command: `make new-${index}` }),
        declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
        attempt: 1,
        startedAt: Date.now(),
      });
      const startMs = performance.now() - beginStart;
      const middle = statSync(journal).size;
      const beginFinish = performance.now();
      await store.recordFinish({
        sessionId: 'bench',
        callId: `new-${index}`,
        outcome: 'ok',
        output: output(index),
        truncated: false,
        attempt: 1,
        finishedAt: Date.now(),
        durationMs: 5,
      });
      const finishMs = performance.now() - beginFinish;
      const after = statSync(journal).size;
      // The same bytes, in the same two appends, each made durable.
      const bareBegin = performance.now();
      writeSync(bare, Buffer.alloc(middle - before, 0x61));
      fdatasyncSync(bare);
      writeSync(bare, Buffer.alloc(after - middle, 0x62));
      fdatasyncSync(bare);
      const bareEnd = performance.now();
      if (index >= WARMUP) {
        // The two calls, without the bench's own stat of the journal between them.
        measured.store.push((startMs + finishMs) * 1000);
        measured.bare.push((bareEnd - bareBegin) * 1000);
        measured.bytesPerRecord = after - before;
      }
    }
  } finally {
    closeSync(bare);
    rmSync(bareDir, { recursive: true, force: true });
    await store.close();
  }
  return measured;
}

function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? directoryBytes(path) : statSync(path).size;
  }
  return total;
}

export default async function storeBench(): Promise<BenchResult[]> {
  const SQL = await loadSqlJs();
  const results: BenchResult[] = [];
  const empty = mkdtempSync(join(tmpdir(), 'zuno-store-bench-empty-'));
  const dirs: string[] = [empty];
  try {
    // The first child pays for cold caches (tsx's compile cache, the page cache); it is not measured.
    openInFreshProcess(empty);
    const baseline = openInFreshProcess(empty);
    const baselineRecords = await records(empty);
    for (const size of SIZES) {
      const stateDir = historyDir(SQL, size);
      dirs.push(stateDir);
      const label = `${size.toLocaleString('en-US')} stored calls`;
      const opened = openInFreshProcess(stateDir);
      results.push(
        {
          name: `open the store + start a new session (fresh process) at ${label}, median of 10`,
          value: opened.medianMs,
          unit: 'ms',
          baseline: { name: 'an empty state dir', value: baseline.medianMs },
          detail: `target ≤ 1.2× empty + 50 ms = ${(1.2 * baseline.medianMs + 50).toFixed(1)} ms`,
        },
        {
          name: `  process memory after it at ${label}`,
          value: opened.rssBytes / 2 ** 20,
          unit: 'MiB',
          baseline: { name: 'an empty state dir', value: baseline.rssBytes / 2 ** 20 },
          detail: `target ≤ empty + 50 MiB`,
        },
      );
      const measured = await records(stateDir);
      const store = [...measured.store].sort((a, b) => a - b);
      const bare = [...measured.bare].sort((a, b) => a - b);
      results.push(
        {
          name: `durable call record (start + finish, 2 fdatasync) at ${label}, p50`,
          value: percentile(store, 0.5),
          unit: 'µs',
          baseline: { name: 'bare append + fdatasync of the same bytes', value: percentile(bare, 0.5) },
          detail: `target ≤ 1.5×; ${measured.bytesPerRecord} bytes per record; p50 in an empty state dir ${percentile(
            [...baselineRecords.store].sort((a, b) => a - b),
            0.5,
          ).toFixed(0)} µs`,
        },
        {
          name: `  p99 at ${label}`,
          value: percentile(store, 0.99),
          unit: 'µs',
          baseline: { name: 'bare p99', value: percentile(bare, 0.99) },
          detail: 'target ≤ 3×',
        },
        {
          name: `  max at ${label}`,
          value: (store.at(-1) ?? 0) / 1000,
          unit: 'ms',
          baseline: { name: 'bare max', value: (bare.at(-1) ?? 0) / 1000 },
          detail: `target ≤ 50 ms over ${RECORDS} records`,
        },
      );
    }

    // State on disk: a session written through the API (journal), and after compaction (snapshot).
    const diskDir = mkdtempSync(join(tmpdir(), 'zuno-store-bench-disk-'));
    dirs.push(diskDir);
    let held = 0;
    const writer = await Store.open({ stateDir: diskDir, compaction: { minJournalBytes: 4 * 2 ** 20, journalToSnapshotRatio: 1 } });
    writer.createSession({ id: 'disk', workspace: '/w' });
    for (let index = 0; index < 1000; index++) {
      const prompt = `please run step ${index}`;
      writer.appendMessage('disk', { role: 'user', content: prompt });
      await writer.recordStart({
        sessionId: 'disk',
        callId: `c${index}`,
        turn: index,
        position: 0,
        tool: 'shell',
        argumentsJson: '{"command":"make"}',
        declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
        attempt: 1,
        startedAt: Date.now(),
      });
      await writer.recordFinish({
        sessionId: 'disk',
        callId: `c${index}`,
        outcome: 'ok',
        output: output(index),
        truncated: false,
        attempt: 1,
        finishedAt: Date.now(),
        durationMs: 1,
      });
      // As the loop does: the assistant message that asked for the call, and the tool result.
      writer.appendMessage('disk', {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: `c${index}`, name: 'shell', arguments: '{"command":"make"}' }],
      });
      writer.appendMessage('disk', { role: 'tool', callId: `c${index}`, toolName: 'shell', content: output(index) });
      held += Buffer.byteLength(prompt) + Buffer.byteLength(output(index));
    }
    await writer.close();
    // The search index and word filter the close wrote are derived data: shown apart, and in the total.
    const searchBytes = ['search.sqlite', 'search.terms'].reduce(
      (sum, name) => sum + statSync(join(diskDir, 'sessions', 'disk', name)).size,
      0,
    );
    results.push(
      {
        name: 'state on disk for 1,000 calls of 8 KB written through the store (snapshot + journal), without the search index',
        value: (directoryBytes(diskDir) - searchBytes) / 2 ** 20,
        unit: 'MiB',
        baseline: { name: 'the bytes of the outputs and prompts it holds, each output counted once', value: held / 2 ** 20 },
        detail: 'target ≤ 1.3×; written as the loop writes them: prompt, assistant message, call start and finish, tool result',
      },
      {
        name: '  with the session search index and word filter',
        value: directoryBytes(diskDir) / 2 ** 20,
        unit: 'MiB',
        baseline: { name: 'the bytes held', value: held / 2 ** 20 },
        detail: `the index and filter take ${(searchBytes / 2 ** 20).toFixed(2)} MiB`,
      },
    );

    // Resuming a session of 5,000 calls as the loop does: open, read its transcript (tool results
    // included), recover (which takes its lock) and read the notices.
    const resumeDir = historyDir(SQL, 0);
    dirs.push(resumeDir);
    mkdirSync(join(resumeDir, 'sessions', 'big'));
    writeDurably(join(resumeDir, 'sessions', 'big', 'snapshot.sqlite'), sessionSnapshot(SQL, 'big', RESUME_CALLS));
    writeSessionFile(join(resumeDir, 'sessions', 'big'), {
      id: 'big',
      workspace: '/w',
      title: 'history',
      createdAt: 0,
      updatedAt: 0,
      status: 'done',
    });
    const resumeTimes: number[] = [];
    for (let round = 0; round < 3; round++) {
      const begin = performance.now();
      const store = await Store.open({ stateDir: resumeDir });
      store.messages('big');
      store.recoverInterrupted('big');
      store.pendingRecoveryNotices('big');
      resumeTimes.push(performance.now() - begin);
      await store.close();
    }
    resumeTimes.sort((a, b) => a - b);
    results.push({
      name: `resume a session of ${RESUME_CALLS.toLocaleString('en-US')} calls of 8 KB (open, transcript, recovery), median of 3`,
      value: resumeTimes[1] ?? 0,
      unit: 'ms',
      detail: 'target ≤ 500 ms',
    });

    // session_search at each size, in sessions of CALLS_PER_SESSION with distinct words. First as
    // sessions written before per-session indexes find them (each indexed by the first search),
    // then as a restarted process finds sessions whose writer closed normally (each index current).
    const sideBySide: {
      label: string;
      lazy: number;
      first: number;
      later: number;
      everywhere: number;
      memory: number;
      openMemory: number;
      indexBytes: number;
    }[] = [];
    for (const size of SEARCH_SIZES) {
      const searchDir = historyDir(SQL, 0);
      dirs.push(searchDir);
      const sessions = Math.max(1, size / CALLS_PER_SESSION);
      for (let session = 0; session < sessions; session++) {
        const id = `s${session}`;
        const dir = join(searchDir, 'sessions', id);
        mkdirSync(dir);
        writeDurably(
          join(dir, 'snapshot.sqlite'),
          sessionSnapshot(SQL, id, Math.min(size, CALLS_PER_SESSION), (index) => `word${session}x${index % 10} topic${session % 7}`),
        );
        writeSessionFile(dir, { id, workspace: '/w', title: `session ${session}`, createdAt: session, updatedAt: session, status: 'done' });
      }
      const label = `${size.toLocaleString('en-US')} calls`;
      const target = `word${Math.floor(sessions / 2)}x3`;
      const migrating = await Store.open({ stateDir: searchDir });
      let lazy: number;
      let indexedLazily = 0;
      try {
        const begin = performance.now();
        migrating.searchSessions(target, { limit: 5, onProgress: () => void indexedLazily++ });
        lazy = performance.now() - begin;
      } finally {
        await migrating.close();
      }
      let indexBytes = 0;
      for (let session = 0; session < sessions; session++) {
        for (const file of ['search.sqlite', 'search.terms']) indexBytes += statSync(join(searchDir, 'sessions', `s${session}`, file)).size;
      }
      const child = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'store-search-child.ts'), searchDir, target, '5'], {
        encoding: 'utf8',
      });
      if (child.status !== 0) throw new Error(`store-search-child failed: ${child.stderr}`);
      const restarted = JSON.parse(child.stdout) as {
        openRssBytes: number;
        firstMs: number;
        found: string[];
        laterMedianMs: number;
        everywhereMs: number;
        indexed: number;
        rssBytes: number;
      };
      sideBySide.push({
        label,
        lazy,
        first: restarted.firstMs,
        later: restarted.laterMedianMs,
        everywhere: restarted.everywhereMs,
        memory: restarted.rssBytes / 2 ** 20,
        openMemory: restarted.openRssBytes / 2 ** 20,
        indexBytes,
      });
      results.push(
        {
          name: `session_search at ${label}: the first search over ${sessions} sessions written before per-session indexes (it indexes each)`,
          value: lazy,
          unit: 'ms',
          detail: `${indexedLazily} sessions indexed, ${(lazy / Math.max(1, indexedLazily)).toFixed(1)} ms each; indexes ${(indexBytes / 2 ** 20).toFixed(1)} MiB in all`,
        },
        {
          name: `  the first search after a restart at ${label} (fresh process, every index current)`,
          value: restarted.firstMs,
          unit: 'ms',
          baseline: { name: 'the first search that indexed', value: lazy },
          detail: `found ${restarted.found.join(', ')} for ${target}; sessions indexed by the searches: ${restarted.indexed}`,
        },
        {
          name: `  a later search at ${label}, median of 5`,
          value: restarted.laterMedianMs,
          unit: 'ms',
          baseline: { name: 'the first search after the restart', value: restarted.firstMs },
        },
        {
          name: `  a search for a word in every session at ${label} (nothing to skip or cut off)`,
          value: restarted.everywhereMs,
          unit: 'ms',
          baseline: { name: 'a later search', value: restarted.laterMedianMs },
        },
        {
          name: `  process memory after the searches at ${label}`,
          value: restarted.rssBytes / 2 ** 20,
          unit: 'MiB',
          baseline: { name: 'the same process after opening the store', value: restarted.openRssBytes / 2 ** 20 },
          detail: `target ≤ empty + 50 MiB; an empty state dir after open and a new session: ${(baseline.rssBytes / 2 ** 20).toFixed(1)} MiB`,
        },
      );
      rmSync(searchDir, { recursive: true, force: true });
    }
    const row = (what: string, unit: string, value: (entry: (typeof sideBySide)[number]) => number): BenchResult => ({
      name: `session_search side by side, ${what}: ${sideBySide.map((entry) => `${entry.label} ${value(entry).toFixed(1)} ${unit}`).join(' | ')}`,
      value: value(sideBySide.at(-1) ?? sideBySide[0]!),
      unit,
      ...(sideBySide.length > 1 ? { baseline: { name: `at ${sideBySide[0]?.label ?? ''}`, value: value(sideBySide[0]!) } } : {}),
    });
    results.push(
      row('first search indexing every session (pre-index layout)', 'ms', (entry) => entry.lazy),
      row('first search after a restart', 'ms', (entry) => entry.first),
      row('later search', 'ms', (entry) => entry.later),
      row('a word in every session', 'ms', (entry) => entry.everywhere),
      row('process memory after searching', 'MiB', (entry) => entry.memory),
      row('process memory growth from open to after searching', 'MiB', (entry) => entry.memory - entry.openMemory),
      row('indexes and word filters on disk', 'MiB', (entry) => entry.indexBytes / 2 ** 20),
    );
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
