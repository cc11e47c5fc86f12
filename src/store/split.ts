/**
 * Splits a pre-issue-9 store (one snapshot.sqlite + journal.jsonl holding every session) into
 * the per-session layout (layout.ts). Like the move out of the workspace (relocate.ts), it is
 * copy, verify, then rename: the old files are never deleted, only renamed to
 * `<name>.migrated-<date>`, and a split that fails leaves them exactly as they were.
 *
 * The commit point is store.json: until it is written the old files are the truth, and a
 * `sessions/` folder beside them is the leftover of a split that was cut off, rebuilt from
 * scratch. Once it is written, old files still at the top (a kill before their rename) are
 * renamed on the next open.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import { StoreCorruptError } from './errors';
import { LAYOUT_FILE, MEMORIES_FILE, SESSIONS_DIR, readLayout, sessionDir, writeLayout, writeSessionFile } from './layout';
import { acquireLock } from './lock';
import { MemoryLog } from './memories';
import { toMemoryRow, toSessionRow } from './rows';
import type { MemoryRow, SessionRow } from './rows';
import { MIGRATIONS } from './schema';
import { JOURNAL_FILE, SNAPSHOT_FILE, SessionDb, loadDatabase, syncDirectory, writeFileDurably } from './session-db';

/** The pre-issue-9 files at the top of a state dir; their presence without store.json means a split is due. */
export const LEGACY_FILES = [SNAPSHOT_FILE, JOURNAL_FILE] as const;
/** Kept with the old files: the torn line a crash left in the old journal. */
const LEGACY_LEFTOVERS = [...LEGACY_FILES, `${JOURNAL_FILE}.torn`];

/** The tables that hold one session's rows, each keyed by a session column. */
const SESSION_TABLES: readonly (readonly [table: string, column: string])[] = [
  ['sessions', 'id'],
  ['messages', 'session_id'],
  ['calls', 'session_id'],
  ['call_attempts', 'session_id'],
  ['events', 'session_id'],
  ['recovery_notices', 'session_id'],
  ['plans', 'session_id'],
  ['todos', 'session_id'],
  ['goals', 'session_id'],
  ['model_requests', 'session_id'],
];

export function hasLegacyStore(stateDir: string): boolean {
  return LEGACY_FILES.some((name) => existsSync(join(stateDir, name)));
}

/** Runs the schema migrations a database lacks, in memory (nothing is journaled). */
function migrateInMemory(db: Database): void {
  const version = Number(db.exec('PRAGMA user_version')[0]?.values[0]?.[0] ?? 0);
  for (const migration of MIGRATIONS.filter((candidate) => candidate.version > version)) {
    for (const statement of migration.statements) db.run(statement);
    db.run(`PRAGMA user_version = ${migration.version}`);
  }
}

function emptyDatabase(SQL: SqlJsStatic): Database {
  const db = new SQL.Database();
  migrateInMemory(db);
  db.run(`INSERT INTO store_meta (key, value) VALUES ('journal_seq', '0')`);
  return db;
}

export interface SplitStore {
  /** One database per session, holding only that session's rows, at the current schema. */
  readonly sessions: Map<string, Database>;
  readonly memories: MemoryRow[];
  /** Row counts per session and table in the old store, to verify the copies against. */
  readonly counts: Map<string, number[]>;
}

/** Reads the old store (read-only: a torn last line is left alone) and splits it in memory. */
export function splitLegacyStore(SQL: SqlJsStatic, stateDir: string, warn: (message: string) => void): SplitStore {
  const loaded = loadDatabase(SQL, stateDir, true);
  const old = loaded.db;
  try {
    if (loaded.journal.torn)
      warn(
        `Ignoring the unfinished last line of ${join(stateDir, JOURNAL_FILE)} (line ${loaded.journal.torn.line}): it was cut short by a crash and never committed.`,
      );
    migrateInMemory(old);
    const ids = new Set<string>();
    for (const [table, column] of SESSION_TABLES) {
      for (const row of old.exec(`SELECT DISTINCT ${column} FROM ${table}`)[0]?.values ?? []) ids.add(String(row[0]));
    }
    const sessions = new Map<string, Database>();
    const counts = new Map<string, number[]>();
    for (const id of ids) {
      const db = emptyDatabase(SQL);
      sessions.set(id, db);
      counts.set(
        id,
        SESSION_TABLES.map(([table, column]) => {
          const select = old.prepare(`SELECT * FROM ${table} WHERE ${column} = ?`, [id]);
          const columns = select.getColumnNames();
          const insert = db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
          let copied = 0;
          try {
            while (select.step()) {
              insert.run(select.get());
              copied++;
            }
          } finally {
            select.free();
            insert.free();
          }
          return copied;
        }),
      );
    }
    const memories = old.exec('SELECT * FROM memories ORDER BY created_at, id')[0] ?? { columns: [], values: [] };
    const memoryRows = memories.values.map((values) =>
      toMemoryRow(Object.fromEntries(memories.columns.map((name, index) => [name, values[index] ?? null]))),
    );
    return { sessions, memories: memoryRows, counts };
  } finally {
    old.close();
  }
}

/** The session row a split database holds, if any (events may exist for a session without one). */
export function sessionRowOf(db: Database): SessionRow | undefined {
  const result = db.exec('SELECT * FROM sessions')[0];
  const values = result?.values[0];
  return result && values
    ? toSessionRow(Object.fromEntries(result.columns.map((name, index) => [name, values[index] ?? null])))
    : undefined;
}

/** `<name>.migrated-<date>`, or with the time too when that name is taken. */
function asideName(path: string, now: Date): string {
  const day = `${path}.migrated-${now.toISOString().slice(0, 10)}`;
  return existsSync(day) ? `${path}.migrated-${now.toISOString().replace(/[:.]/g, '-')}` : day;
}

/** Renames the old files still at the top of a split state dir. Returns the new names. */
export function renameLegacyFiles(stateDir: string, now: Date): string[] {
  const moved: string[] = [];
  for (const name of LEGACY_LEFTOVERS) {
    const path = join(stateDir, name);
    if (!existsSync(path)) continue;
    const aside = asideName(path, now);
    renameSync(path, aside);
    moved.push(aside);
  }
  if (moved.length > 0) syncDirectory(stateDir);
  return moved;
}

/**
 * Splits the old store in `stateDir` into the per-session layout: copies, verifies the copies
 * row by row count, moves them in, writes store.json, then renames the old files. Holds the
 * state dir's lock, which is also the old Zuno's one-writer lock, so neither an old Zuno nor a
 * second opener writes while this runs. Returns a notice naming where the old files went.
 */
export function splitStateDir(SQL: SqlJsStatic, stateDir: string, warn: (message: string) => void, now = new Date()): string | undefined {
  const lock = acquireLock(stateDir);
  const staging = join(stateDir, `.split-${randomUUID()}`);
  try {
    // Another opener may have finished the split while this one waited for the lock.
    if (readLayout(stateDir) !== undefined) return undefined;
    const split = splitLegacyStore(SQL, stateDir, warn);
    try {
      mkdirSync(join(staging, SESSIONS_DIR), { recursive: true });
      for (const [id, db] of split.sessions) {
        const dir = join(staging, SESSIONS_DIR, basename(sessionDir(stateDir, id)));
        mkdirSync(dir);
        writeFileDurably(join(dir, SNAPSHOT_FILE), db.export());
        const row = sessionRowOf(db);
        if (row) writeSessionFile(dir, row);
        syncDirectory(dir);
      }
      writeFileDurably(join(staging, MEMORIES_FILE), Buffer.from(MemoryLog.linesFor(split.memories), 'utf8'));
      syncDirectory(join(staging, SESSIONS_DIR));
      syncDirectory(staging);
      verifySplit(SQL, staging, stateDir, split);
    } finally {
      for (const db of split.sessions.values()) db.close();
    }
    // No store.json yet: whatever is here is the leftover of a split that was cut off.
    rmSync(join(stateDir, SESSIONS_DIR), { recursive: true, force: true });
    renameSync(join(staging, SESSIONS_DIR), join(stateDir, SESSIONS_DIR));
    renameSync(join(staging, MEMORIES_FILE), join(stateDir, MEMORIES_FILE));
    syncDirectory(stateDir);
    writeLayout(stateDir);
    syncDirectory(stateDir);
    const moved = renameLegacyFiles(stateDir, now);
    return `Zuno split the store in ${stateDir} into one folder per session (${split.sessions.size} sessions, ${LAYOUT_FILE} layout 2); the old files were kept as ${moved.join(', ')}.`;
  } finally {
    rmSync(staging, { recursive: true, force: true });
    lock.release();
  }
}

/** Reads every copy back from disk and compares its row counts with the old store's. */
function verifySplit(SQL: SqlJsStatic, staging: string, stateDir: string, split: SplitStore): void {
  for (const [id, expected] of split.counts) {
    const dir = join(staging, SESSIONS_DIR, basename(sessionDir(stateDir, id)));
    const db = SessionDb.open(SQL, {
      dir,
      readOnly: true,
      warn: () => undefined,
      compaction: { minJournalBytes: 0, journalToSnapshotRatio: 0 },
    });
    try {
      const actual = SESSION_TABLES.map(([table]) => db.countRows(table));
      if (actual.join() !== expected.join()) {
        throw new StoreCorruptError(
          `The copy of session ${id} in ${dir} does not hold the same rows as ${join(stateDir, SNAPSHOT_FILE)} (${actual.join('/')} against ${expected.join('/')}). ` +
            'The old store was left as it was; report this, and keep using an older Zuno meanwhile.',
        );
      }
    } finally {
      db.closeSync();
    }
  }
  const memories = new MemoryLog(join(staging, MEMORIES_FILE), true, () => undefined).list();
  if (memories.length !== split.memories.length) {
    throw new StoreCorruptError(
      `The copy of the memories in ${staging} holds ${memories.length} of ${split.memories.length}. The old store was left as it was.`,
    );
  }
}

/** Copies whole sessions out of the old store for reading only (a read-only open writes nothing). */
export function readLegacySessions(
  SQL: SqlJsStatic,
  stateDir: string,
  warn: (message: string) => void,
): { sessions: Map<string, SessionDb>; memories: MemoryRow[] } {
  const split = splitLegacyStore(SQL, stateDir, warn);
  const sessions = new Map<string, SessionDb>();
  for (const [id, db] of split.sessions) sessions.set(id, SessionDb.inMemory(db, `${stateDir} (session ${id})`, warn));
  return { sessions, memories: split.memories };
}
