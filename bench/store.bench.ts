/**
 * The cost of one durable call record (recordStart + recordFinish, each fdatasync'd before it
 * resolves) in stores already holding 100, 10k and 100k calls. The claim (issue 2 §8) is that
 * it stays flat; the O(size) alternative it avoids, exporting the whole database, is measured
 * at each size for comparison. The stores are built directly with sql.js as snapshots, which is
 * how a store that size is found on disk after its journal was compacted.
 */
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'sql.js';
import { MIGRATIONS } from '../src/store/schema';
import { loadSqlJs } from '../src/store/sqljs';
import { Store, DEFAULT_COMPACTION } from '../src/store/store';
import type { BenchResult } from './run';

const SIZES = [100, 10_000, 100_000];
const WARMUP = 20;
const RECORDS = 300;
const OUTPUT = 'x'.repeat(400);

async function buildDatabase(calls: number): Promise<Database> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  for (const migration of MIGRATIONS) {
    for (const statement of migration.statements) db.run(statement);
    db.run(`PRAGMA user_version = ${migration.version}`);
  }
  db.run(`INSERT INTO store_meta (key, value) VALUES ('journal_seq', '0')`);
  db.run(`INSERT INTO sessions (id, workspace, created_at, updated_at, status) VALUES ('bench', '/w', 0, 0, 'active')`);
  db.run('BEGIN');
  const call = db.prepare(
    `INSERT INTO calls (session_id, call_id, ordinal, turn, position, tool, arguments_json, effect, replay, concurrency, attempt, status, output, truncated, started_at, finished_at, duration_ms)
     VALUES ('bench', ?, ?, ?, ?, 'shell', ?, 'SideEffecting', 'Never', 'Exclusive', 1, 'ok', ?, 0, ?, ?, 5)`,
  );
  const attempt = db.prepare(`INSERT INTO call_attempts (session_id, call_id, attempt, status, output, started_at, finished_at, duration_ms) VALUES ('bench', ?, 1, 'ok', ?, ?, ?, 5)`);
  for (let index = 1; index <= calls; index++) {
    const id = `old-${index}`;
    call.run([id, index, Math.ceil(index / 4), index % 4, JSON.stringify({ command: `make target-${index}` }), OUTPUT, index, index + 5]);
    attempt.run([id, OUTPUT, index, index + 5]);
  }
  call.free();
  attempt.free();
  db.run('COMMIT');
  return db;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;

interface Subject {
  readonly size: number;
  readonly stateDir: string;
  readonly store: Store;
  readonly exportMillis: number;
  readonly snapshotBytes: number;
  /** µs per durable record (start + finish), fsync included. */
  readonly totals: number[];
  /** µs of the synchronous part of start + finish: SQL and journal append, no fsync. */
  readonly cpu: number[];
  /** Journal bytes per record, measured after the run. */
  journalBytesPerRecord: number;
}

async function prepare(size: number): Promise<Subject> {
  const stateDir = mkdtempSync(join(tmpdir(), 'zuno-store-bench-'));
  const db = await buildDatabase(size);
  const exportTimes: number[] = [];
  let snapshot: Uint8Array = new Uint8Array();
  for (let round = 0; round < 3; round++) {
    const begin = performance.now();
    snapshot = db.export();
    exportTimes.push(performance.now() - begin);
  }
  db.close();
  // Synced like a real compaction, so its writeback does not land on the measured fsyncs.
  const fd = openSync(join(stateDir, 'snapshot.sqlite'), 'w');
  writeSync(fd, snapshot);
  fsyncSync(fd);
  closeSync(fd);
  const store = await Store.open({ stateDir, compaction: DEFAULT_COMPACTION });
  return { size, stateDir, store, exportMillis: median(exportTimes), snapshotBytes: snapshot.length, totals: [], cpu: [], journalBytesPerRecord: 0 };
}

async function recordOne(subject: Subject, index: number, keep: boolean): Promise<void> {
  const { store } = subject;
  const callId = `new-${index}`;
  const start = {
    sessionId: 'bench',
    callId,
    turn: subject.size + index,
    position: 0,
    tool: 'shell',
    argumentsJson: JSON.stringify({ command: `make new-${index}` }),
    declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
    attempt: 1,
    startedAt: Date.now(),
  } as const;
  const begin = performance.now();
  // The synchronous part of an async method runs before it returns its promise.
  const started = store.recordStart(start);
  const afterStartCpu = performance.now();
  await started;
  const middle = performance.now();
  const finished = store.recordFinish({ sessionId: 'bench', callId, outcome: 'ok', output: OUTPUT, truncated: false, attempt: 1, finishedAt: Date.now(), durationMs: 5 });
  const afterFinishCpu = performance.now();
  await finished;
  const end = performance.now();
  if (keep) {
    subject.totals.push((end - begin) * 1000);
    subject.cpu.push((afterStartCpu - begin + (afterFinishCpu - middle)) * 1000);
  }
}

export default async function storeBench(): Promise<BenchResult[]> {
  const subjects: Subject[] = [];
  try {
    for (const size of SIZES) subjects.push(await prepare(size));
    // Round-robin over the sizes, so the noise of a shared machine falls on all of them alike.
    for (let index = 0; index < WARMUP + RECORDS; index++) {
      for (const subject of subjects) await recordOne(subject, index, index >= WARMUP);
    }
    for (const subject of subjects) subject.journalBytesPerRecord = statSync(join(subject.stateDir, 'journal.jsonl')).size / (WARMUP + RECORDS);
  } finally {
    for (const subject of subjects) {
      await subject.store.close();
      rmSync(subject.stateDir, { recursive: true, force: true });
    }
  }
  const [smallest] = subjects;
  if (!smallest) return [];
  return subjects.flatMap((result): BenchResult[] => {
    const label = result.size.toLocaleString('en-US');
    const megabytes = (result.snapshotBytes / (1024 * 1024)).toFixed(1);
    // A compaction (one export + write) happens once per max(8 MiB, snapshot size) of journal.
    const amortisedMicros = (result.exportMillis * 1000 * result.journalBytesPerRecord) / Math.max(DEFAULT_COMPACTION.minJournalBytes, DEFAULT_COMPACTION.journalToSnapshotRatio * result.snapshotBytes);
    return [
      {
        name: `durable call record (start + finish, 2 fdatasync) at ${label} stored calls, median`,
        value: median(result.totals),
        unit: 'µs',
        baseline: { name: `the same at ${smallest.size} calls`, value: median(smallest.totals) },
        detail: `mean ${mean(result.totals).toFixed(0)} µs over ${RECORDS} records`,
      },
      {
        name: `  of which SQL + journal append (no fsync) at ${label} stored calls, median`,
        value: median(result.cpu),
        unit: 'µs',
        baseline: { name: `the same at ${smallest.size} calls`, value: median(smallest.cpu) },
        detail: `mean ${mean(result.cpu).toFixed(0)} µs; ${result.journalBytesPerRecord.toFixed(0)} journal bytes per record, so the amortised snapshot compaction adds about ${amortisedMicros.toFixed(1)} µs per record`,
      },
      {
        name: `  the avoided O(size) write: one full db.export() at ${label} stored calls`,
        value: result.exportMillis * 1000,
        unit: 'µs',
        baseline: { name: 'one durable call record at this size', value: median(result.totals) },
        detail: `snapshot ${megabytes} MiB`,
      },
    ];
  });
}
