/**
 * The engine under one session's database (issue 9): sql.js (SQLite in memory) made durable by an
 * append-only journal beside periodic snapshots, in the session's own folder `sessions/<id>/`:
 *
 *   snapshot.sqlite  the whole database as of journal sequence S (kept in `store_meta`)
 *   journal.jsonl    one line per committed transaction after S (see journal.ts)
 *   lock             the one writer's pid (see lock.ts)
 *
 * A write applies its statements to the in-memory database inside a transaction, appends them
 * as one journal line, then commits (a durable record appends first; see `write`); so the
 * journal holds exactly the committed transactions.
 * Its cost does not depend on the size of the session (issue 2 §8: exporting the database per
 * write is O(size)). When the journal outgrows the snapshot it is folded into a new snapshot,
 * which keeps the amortised cost per write constant and the replay on open bounded.
 *
 * Durability. Every write reaches the OS before its method returns (a killed process loses
 * nothing acknowledged). The ledger's async methods (`recordStart`, `recordBlocked`,
 * `recordFinish`) and `flush`/`close` also `fdatasync` before resolving, which makes them, and
 * every write before them, survive an OS crash or power loss. `recordStart` resolving is the
 * point after which a crash leaves a `running` row for recovery (SPEC R3).
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Database, SqlJsStatic, Statement } from 'sql.js';
import { StoreCorruptError, StoreUsageError } from './errors';
import { JournalWriter, readJournal } from './journal';
import type { JournalContents, JournalEntry, JournalOperation, SqlParameter } from './journal';
import { acquireLock } from './lock';
import type { LockHandle, LockSubject } from './lock';
import { integer } from './rows';
import type { Row } from './rows';
import { definePacking, PACK_ALL, packText } from './packed-text';
import { MIGRATIONS, SCHEMA_VERSION } from './schema';

export const SNAPSHOT_FILE = 'snapshot.sqlite';
export const JOURNAL_FILE = 'journal.jsonl';

/** The per-session sequences a write numbers its rows with. */
type Sequence = 'messages' | 'events' | 'model_requests' | 'ordinal';

/** When to fold the journal into a new snapshot: once it is larger than both figures. */
export interface CompactionPolicy {
  /** Below this the journal is never compacted: small stores replay fast anyway. */
  readonly minJournalBytes: number;
  /** The journal may grow to this multiple of the snapshot's size (amortised O(1) writes). */
  readonly journalToSnapshotRatio: number;
}

export const DEFAULT_COMPACTION: CompactionPolicy = { minJournalBytes: 8 * 1024 * 1024, journalToSnapshotRatio: 1 };

/**
 * A writer closing with at least this much journal, and a journal at least a quarter of its
 * snapshot, folds it in (see close): smaller ones cost more to fold than they take on disk.
 */
const FOLD_AT_CLOSE_MIN_BYTES = 256 * 1024;

/** SQLite's `auto_vacuum` mode that frees pages on request (see dropFreePages). */
const AUTO_VACUUM_INCREMENTAL = 2;

/** Packing and folding wait until no write came for this long (see idleWork). */
const IDLE_MS = 25;
/** How long one turn of packing may hold the thread. */
const PACK_SLICE_MS = 4;
/** How many written texts wait for packing at most. */
const PACK_QUEUE_LIMIT = 256;

export interface SessionDbOptions {
  /** The folder holding snapshot.sqlite, journal.jsonl and lock. */
  readonly dir: string;
  readonly readOnly: boolean;
  readonly warn: (message: string) => void;
  readonly compaction: CompactionPolicy;
  /** How the lock names what it guards when a second writer is refused. */
  readonly lockSubject?: LockSubject;
}

export function syncDirectory(path: string): void {
  // Makes a rename inside the directory durable. Windows cannot open a directory; NTFS journals renames.
  if (process.platform === 'win32') return;
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function writeFileDurably(path: string, data: Uint8Array): void {
  const fd = openSync(path, 'w');
  try {
    let written = 0;
    while (written < data.length) written += writeSync(fd, data, written, data.length - written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export interface Loaded {
  readonly db: Database;
  /** The journal as applied: without an `unapplied` last line. */
  readonly journal: JournalContents;
  readonly snapshotBytes: number;
  /** A last line written before its statements that cannot be applied: it was never acknowledged (see `write`). */
  readonly unapplied?: { readonly line: number; readonly seq: number; readonly reason: string };
}

/** The state a database file was written at: its schema version and the last journal line it holds. */
function snapshotState(db: Database, path: string): { version: number; seq: number } {
  try {
    const version = Number(db.exec('PRAGMA user_version')[0]?.values[0]?.[0] ?? 0);
    if (version === 0) return { version, seq: 0 };
    const seq = Number(db.exec(`SELECT value FROM store_meta WHERE key = 'journal_seq'`)[0]?.values[0]?.[0] ?? 0);
    return { version, seq };
  } catch (error) {
    throw new StoreCorruptError(
      `The snapshot ${path} is not a readable Zuno store (${(error as Error).message}). Move it aside to start afresh from the journal alone.`,
    );
  }
}

/** Refuses a database written by a newer Zuno, naming its folder. */
export function assertKnownVersion(db: Database, dir: string): number {
  const version = Number(db.exec('PRAGMA user_version')[0]?.values[0]?.[0] ?? 0);
  if (version > SCHEMA_VERSION) {
    throw new StoreUsageError(
      `The store in ${dir} was written by a newer Zuno (schema version ${version}; this one knows up to ${SCHEMA_VERSION}). ` +
        'Update Zuno, or use another --state-dir.',
    );
  }
  return version;
}

/**
 * sql.js turns a string parameter into UTF-8 with three JavaScript loops over its characters;
 * for a call's 8 KB output that was a third of a durable record's CPU time. A parameter written
 * `CAST(? AS TEXT)` is bound as UTF-8 bytes instead (Buffer.from is native) and SQLite makes
 * text of them again, so the column still holds text. The positions are found once per SQL text.
 */
const bytePositions = new Map<string, readonly number[]>();

function textAsBytePositions(sql: string): readonly number[] {
  let positions = bytePositions.get(sql);
  if (positions) return positions;
  const found: number[] = [];
  let index = 0;
  for (let at = 0; at < sql.length; at++) {
    const char = sql[at];
    if (char === "'" || char === '"') {
      // A quoted literal or name: its question marks are not parameters.
      const close = sql.indexOf(char, at + 1);
      at = close === -1 ? sql.length : close;
    } else if (char === '?') {
      if (/CAST\(\s*$/i.test(sql.slice(Math.max(0, at - 16), at)) && /^\s+AS\s+TEXT\s*\)/i.test(sql.slice(at + 1, at + 20)))
        found.push(index);
      index++;
    }
  }
  positions = found;
  bytePositions.set(sql, positions);
  return positions;
}

/** The parameters as sql.js binds them: see textAsBytePositions. */
export function bindable(sql: string, parameters: readonly (SqlParameter | Uint8Array)[]): (SqlParameter | Uint8Array)[] {
  if (!sql.includes('AS TEXT')) return [...parameters];
  const positions = textAsBytePositions(sql);
  return parameters.map((value, index) => (typeof value === 'string' && positions.includes(index) ? Buffer.from(value, 'utf8') : value));
}

/**
 * Settings of every in-memory database (they are per connection, so set on each load). The
 * journal file is the only durability this database needs, so SQLite keeps its rollback
 * journal in memory instead of creating and deleting a file in sql.js's file system on every
 * transaction; and nothing else opens the in-memory file, so the exclusive lock spares each
 * statement the check for another writer's changes (a file lookup and a header read).
 */
export function tuneInMemory(db: Database): void {
  db.exec('PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY');
}

/**
 * Applies journal entries, each in its own transaction, as they were committed. A last entry
 * written before its statements ran that cannot be applied is returned instead of refused: its
 * statements failed, or a crash came before they could be undone (see SessionEngine.write).
 */
function replay(db: Database, journal: JournalContents, journalPath: string): (JournalEntry & { reason: string }) | undefined {
  const prepared = new Map<string, Statement>();
  const last = journal.entries.at(-1);
  try {
    for (const entry of journal.entries) {
      db.exec('BEGIN');
      try {
        for (const [sql, parameters] of entry.operations) {
          let statement = prepared.get(sql);
          if (!statement) prepared.set(sql, (statement = db.prepare(sql)));
          statement.run(bindable(sql, parameters));
        }
        db.exec('COMMIT');
      } catch (error) {
        db.exec('ROLLBACK');
        if (entry === last && entry.appliedAfter) return { ...entry, reason: (error as Error).message };
        throw new StoreCorruptError(
          `The journal ${journalPath} line ${entry.line} (sequence ${entry.seq}) cannot be applied: ${(error as Error).message}.`,
        );
      }
    }
  } finally {
    for (const statement of prepared.values()) statement.free();
  }
  return undefined;
}

/** Loads a snapshot and replays its journal; the database the files hold, at their schema version. */
export function loadDatabase(SQL: SqlJsStatic, dir: string, readOnly: boolean): Loaded {
  const snapshotPath = join(dir, SNAPSHOT_FILE);
  const journalPath = join(dir, JOURNAL_FILE);
  // A reader can race a compaction (new snapshot, emptied journal) and see a gap; it reads again.
  const rounds = readOnly ? 3 : 1;
  for (let round = 1; ; round++) {
    const snapshot = existsSync(snapshotPath) ? readFileSync(snapshotPath) : undefined;
    const db = snapshot ? new SQL.Database(snapshot) : new SQL.Database();
    try {
      const state = snapshotState(db, snapshotPath);
      tuneInMemory(db);
      assertKnownVersion(db, dir);
      const journal = readJournal(journalPath, state.seq);
      definePacking(db);
      // Set before the first table exists; a snapshot keeps its own mode.
      if (!snapshot) db.exec(`PRAGMA auto_vacuum = ${AUTO_VACUUM_INCREMENTAL}`);
      const unapplied = replay(db, journal, journalPath);
      assertKnownVersion(db, dir);
      if (!unapplied) return { db, journal, snapshotBytes: snapshot?.length ?? 0 };
      // Everything from that line on is left out (a torn fragment after it cannot be acknowledged either).
      return {
        db,
        journal: { entries: journal.entries.slice(0, -1), lastSeq: unapplied.seq - 1, validLength: unapplied.start },
        snapshotBytes: snapshot?.length ?? 0,
        unapplied: { line: unapplied.line, seq: unapplied.seq, reason: unapplied.reason },
      };
    } catch (error) {
      db.close();
      if (!(error instanceof StoreCorruptError) || round >= rounds) throw error;
    }
  }
}

/**
 * Reads, the one durable write path (`write`), snapshots and the lock of one session's database;
 * SessionDb (session-db.ts) adds the tables' repositories on top.
 */
export class SessionEngine {
  private readonly statements = new Map<string, Statement>();
  /**
   * Calls this process started and has not finished, with the attempt running: recovery must not
   * touch them. This writer is the only one that changes their rows, so each is known to be
   * `running` at that attempt without reading it back.
   */
  protected readonly startedHere = new Map<string, number>();
  /** Sessions seen to exist; saves a query per write. */
  private readonly knownSessions = new Set<string>();
  private closed = false;
  private nextCompactionCheck = 0;
  /** The journal is past the compaction threshold; the next pause in the writes folds it. */
  private compactionDue = false;
  /** Long texts written and not packed yet, oldest first (see packLater). */
  private readonly toPack: { readonly sql: string; readonly key: readonly SqlParameter[]; readonly text: string }[] = [];
  private idleTimer: NodeJS.Timeout | undefined;

  protected constructor(
    protected readonly db: Database,
    readonly stateDir: string,
    private writable: boolean,
    protected journal: JournalWriter | undefined,
    private lock: LockHandle | undefined,
    private snapshotBytes: number,
    private readonly compaction: CompactionPolicy,
    private readonly warn: (message: string) => void,
  ) {}

  protected loadedJournal: { readonly lastSeq: number; readonly validLength: number } | undefined;

  get readOnly(): boolean {
    return !this.writable;
  }

  /**
   * Turns a read-only load into the session's writer, without loading it again (resuming a
   * session that was just shown). Takes the lock, then checks that the files are still as they
   * were loaded (`unchanged`, called with the lock held); returns false, having released the
   * lock, when they are not, or when the load was not clean (a torn line, schema migrations in
   * memory only): the caller then opens the session afresh.
   */
  promote(lockSubject: LockSubject, unchanged: () => boolean): boolean {
    const loaded = this.loadedJournal;
    if (this.writable || this.closed || !loaded || assertKnownVersion(this.db, this.stateDir) !== SCHEMA_VERSION || this.migratedInMemory)
      return false;
    const lock = acquireLock(this.stateDir, lockSubject);
    if (!unchanged()) {
      lock.release();
      return false;
    }
    const leftover = join(this.stateDir, `${SNAPSHOT_FILE}.tmp`);
    if (existsSync(leftover)) unlinkSync(leftover);
    this.journal = new JournalWriter(join(this.stateDir, JOURNAL_FILE), loaded.lastSeq, loaded.validLength);
    this.lock = lock;
    this.writable = true;
    return true;
  }

  private migratedInMemory = false;

  /** Runs the migrations this store lacks: journaled when writable, in memory only when read-only. */
  protected migrate(): void {
    const version = assertKnownVersion(this.db, this.stateDir);
    for (const migration of MIGRATIONS.filter((candidate) => candidate.version > version)) {
      const operations: JournalOperation[] = [
        ...migration.statements.map((sql): JournalOperation => [sql, []]),
        [`PRAGMA user_version = ${migration.version}`, []],
      ];
      if (this.readOnly) {
        this.transaction(operations);
        this.migratedInMemory = true;
      } else this.write(operations);
    }
  }

  // ---- plumbing -------------------------------------------------------------------------------

  private statement(sql: string): Statement {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      prepared = this.db.prepare(sql);
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  protected all(sql: string, parameters: readonly SqlParameter[] = []): Row[] {
    this.assertOpen();
    const prepared = this.statement(sql);
    try {
      prepared.bind([...parameters]);
      const rows: Row[] = [];
      while (prepared.step()) rows.push(prepared.getAsObject());
      return rows;
    } finally {
      prepared.reset();
    }
  }

  protected one(sql: string, parameters: readonly SqlParameter[] = []): Row | undefined {
    return this.all(sql, parameters)[0];
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreUsageError(`The store in ${this.stateDir} is closed.`);
  }

  protected run(sql: string, parameters: readonly (SqlParameter | Uint8Array)[] = []): void {
    const prepared = this.statement(sql);
    try {
      prepared.run(bindable(sql, parameters));
    } catch (error) {
      // A statement that failed mid-step stays active; reset it before it is reused.
      prepared.reset();
      throw error;
    }
  }

  protected transaction(operations: readonly JournalOperation[], beforeCommit?: () => void): void {
    this.run('BEGIN');
    try {
      for (const [sql, parameters] of operations) this.run(sql, parameters);
      beforeCommit?.();
    } catch (error) {
      this.run('ROLLBACK');
      throw error;
    }
    this.run('COMMIT');
  }

  /**
   * The one way state changes: the statements run in a transaction, the journal line is
   * appended, and only then does the transaction commit. A failing statement or a failing
   * append leaves both the database and the journal as they were. Returns the line's sequence.
   *
   * `durable`: the caller waits for `syncThrough(seq)` next (a ledger record, R3). Then the line
   * goes first and its fdatasync starts at once, so running the statements in sql.js overlaps
   * the disk instead of delaying it (they were a third of a record's CPU). Should they fail, the
   * transaction rolls back and the line is cut off again; a crash in between leaves it last in
   * the journal, marked as applied after, where loading sets it aside: the caller never got it
   * acknowledged. Either way the journal holds exactly the committed transactions.
   */
  protected write(operations: readonly JournalOperation[], durable = false): number {
    this.assertOpen();
    // Packing and folding wait for a pause in the writes (see idleWork).
    this.idleTimer?.refresh();
    const journal = this.journal;
    if (!journal) throw new StoreUsageError(`The store in ${this.stateDir} was opened read-only.`);
    let seq = 0;
    if (durable) {
      seq = journal.append(operations, true);
      journal.startSync();
      try {
        this.transaction(operations);
      } catch (error) {
        journal.retract(seq);
        throw error;
      }
    } else {
      this.transaction(operations, () => {
        seq = journal.append(operations);
      });
    }
    this.compactIfDue(journal);
    if (journal.reserveLow) this.whenIdle();
    return seq;
  }

  /**
   * A journal past the policy's threshold is folded once the writes pause (see idleWork): a
   * snapshot costs an export and a durable write of the whole session, which no record should
   * wait for. Only a journal twice past it, the writes never pausing, is folded on the write's path.
   */
  private compactIfDue(journal: JournalWriter): void {
    const threshold = this.compactionThreshold();
    if (journal.bytes <= threshold || journal.bytes < this.nextCompactionCheck) return;
    if (journal.bytes <= 2 * threshold) {
      this.compactionDue = true;
      this.whenIdle();
      return;
    }
    this.compactNow(journal);
  }

  /** The journal's size past which it is folded (the compaction policy). */
  private compactionThreshold(): number {
    return Math.max(this.compaction.minJournalBytes, this.compaction.journalToSnapshotRatio * this.snapshotBytes);
  }

  private compactNow(journal: JournalWriter): void {
    this.compactionDue = false;
    const threshold = this.compactionThreshold();
    try {
      this.compact(journal);
    } catch (error) {
      // The journal still holds everything, so nothing is lost; try again after as much growth.
      this.nextCompactionCheck = journal.bytes + threshold;
      this.warn(
        `Could not write a new snapshot in ${this.stateDir} (${(error as Error).message}); the journal keeps everything until one can be written.`,
      );
    }
  }

  /**
   * Folds the journal into a new snapshot. Crash-safe at every step: the snapshot is written
   * aside, synced and renamed into place (a reader sees the old or the new file, never half),
   * and records the last journal sequence it holds, so lines still in the journal after a crash
   * here are skipped on replay rather than applied twice.
   */
  private compact(journal: JournalWriter): void {
    const snapshotPath = join(this.stateDir, SNAPSHOT_FILE);
    const temporary = `${snapshotPath}.tmp`;
    // A snapshot holds every long text packed, replayed from the journal or not packed yet.
    this.toPack.length = 0;
    for (const sql of PACK_ALL) this.run(sql);
    this.dropFreePages();
    // Belongs to this snapshot file only, so it is deliberately not journaled.
    this.db.run(`INSERT INTO store_meta (key, value) VALUES ('journal_seq', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [
      String(journal.sequence),
    ]);
    const data = this.db.export();
    try {
      writeFileDurably(temporary, data);
      renameSync(temporary, snapshotPath);
    } catch (error) {
      if (existsSync(temporary)) unlinkSync(temporary);
      throw error;
    }
    syncDirectory(this.stateDir);
    this.snapshotBytes = data.length;
    journal.reset();
  }

  /**
   * Packs a long text a write just stored (packed-text.ts) once the store has been idle for
   * IDLE_MS: `sql` (one of packed-text.ts's REPACK_ statements) puts the BLOB in place if
   * the row still holds that text. Deflating on a record's path, among its statements or on the
   * threadpool (whose callbacks cost the thread a stream each), slowed records by 0.2 to 0.5x
   * the baseline; an agent's records come with gaps (the tool runs, the model answers), and the
   * gaps are where this goes. Not journaled: packing changes how a value is kept, not what it
   * is. Whatever is still queued at a snapshot is packed by it (PACK_ALL).
   */
  protected packLater(sql: string, key: readonly SqlParameter[], text: string): void {
    this.toPack.push({ sql, key, text });
    // Texts held for packing are bounded; older ones wait for the next snapshot instead.
    if (this.toPack.length > PACK_QUEUE_LIMIT) this.toPack.shift();
    this.whenIdle();
  }

  /** Runs idleWork once no write has come for IDLE_MS. */
  private whenIdle(): void {
    this.idleTimer ??= setTimeout(() => this.idleWork(), IDLE_MS).unref();
  }

  /**
   * What waits for a pause in the writes: a due fold, which packs everything queued on its way,
   * or else packing, in slices; then the journal's reserve, so that the next records overwrite
   * zeros instead of growing the file (JournalWriter.reserve). The fold goes first: packing that
   * falls behind must not keep it waiting until the journal doubles and a record pays for it.
   */
  private idleWork(): void {
    this.idleTimer = undefined;
    if (this.closed) return;
    if (this.compactionDue && this.journal) this.compactNow(this.journal);
    else this.packQueued();
    this.journal?.reserve();
    if (this.toPack.length > 0) this.whenIdle();
  }

  /** Packs queued texts for up to PACK_SLICE_MS. */
  private packQueued(): void {
    const deadline = performance.now() + PACK_SLICE_MS;
    try {
      for (let next = this.toPack.shift(); next !== undefined; next = this.toPack.shift()) {
        const packed = packText(next.text);
        if (packed instanceof Uint8Array) this.run(next.sql, [packed, ...next.key, next.text]);
        if (performance.now() >= deadline) break;
      }
    } catch (error) {
      // Only how values are kept is at stake: they stay text until the next snapshot packs them.
      this.toPack.length = 0;
      this.warn(`Could not pack outputs in ${this.stateDir} (${(error as Error).message}); they stay text until the next snapshot.`);
    }
  }

  /**
   * Packing rewrites rows smaller and leaves pages free, which an export would keep. Once they
   * are a quarter of the file they are given back: by moving the last pages into the holes
   * (incremental vacuum, the mode of every session created since packing), or, for an older
   * session, by one full VACUUM that also switches it to that mode.
   */
  private dropFreePages(): void {
    const pragma = (name: string): number => Number(this.db.exec(`PRAGMA ${name}`)[0]?.values[0]?.[0] ?? 0);
    if (pragma('freelist_count') * 4 <= pragma('page_count')) return;
    if (pragma('auto_vacuum') === AUTO_VACUUM_INCREMENTAL) this.db.exec('PRAGMA incremental_vacuum');
    else this.db.exec(`PRAGMA auto_vacuum = ${AUTO_VACUUM_INCREMENTAL}; VACUUM`);
  }

  protected requireSession(sessionId: string): void {
    if (this.knownSessions.has(sessionId)) return;
    if (!this.one('SELECT 1 AS found FROM sessions WHERE id = ?', [sessionId])) {
      throw new StoreUsageError(`There is no session "${sessionId}" in ${this.stateDir}.`);
    }
    this.knownSessions.add(sessionId);
  }

  /**
   * Per session and sequence (messages, events, model requests, call ordinals): the highest value
   * written, read from the database once and then advanced by `advance` after each write here.
   * Only a writer keeps them: it is the session's one writer (the lock), so no one else adds rows.
   * A MAX query per write was a fifth of a durable record's CPU.
   */
  private readonly highest = new Map<string, number>();

  protected highestOf(sequence: Sequence, sessionId: string): number {
    const key = `${sequence}\u0000${sessionId}`;
    const known = this.highest.get(key);
    if (known !== undefined) return known;
    const [table, column] = sequence === 'ordinal' ? ['calls', 'ordinal'] : [sequence, 'seq'];
    const row = this.one(`SELECT COALESCE(MAX(${column}), 0) AS highest FROM ${table} WHERE session_id = ?`, [sessionId]);
    const value = row ? integer(row, 'highest') : 0;
    if (this.writable) this.highest.set(key, value);
    return value;
  }

  /** Records that `value` was written (call after the write succeeded). */
  protected advance(sequence: Sequence, sessionId: string, value: number): void {
    if (this.writable) this.highest.set(`${sequence}\u0000${sessionId}`, value);
  }

  protected nextSeq(table: Exclude<Sequence, 'ordinal'>, sessionId: string): number {
    return this.highestOf(table, sessionId) + 1;
  }

  /** Makes every write so far durable against an OS crash (fdatasync). */
  async flush(): Promise<void> {
    this.assertOpen();
    if (this.journal) await this.journal.syncThrough(this.journal.sequence);
  }

  /**
   * Ends the writes and leaves the files as a closed session keeps them: a journal of some size
   * folded into the snapshot, the journal without its reserve and flushed. The database stays
   * readable and the lock held, so the caller can read what the files now hold (the search index
   * records their sizes and times) before `close` releases them. The fold leaves the session as
   * compact as it can be (the journal holds outputs as plain text; the snapshot holds them
   * packed): it costs one export of the session, paid here rather than by a later record.
   */
  async stopWriting(): Promise<void> {
    const journal = this.journal;
    if (this.closed || !journal) return;
    if (this.compactionDue || (journal.bytes >= FOLD_AT_CLOSE_MIN_BYTES && journal.bytes * 4 >= this.snapshotBytes))
      this.compactNow(journal);
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.journal = undefined;
    this.writable = false;
    await journal.close();
  }

  private closing: Promise<void> | undefined;

  /** `stopWriting`, then releases the lock and frees the database. Calling it again does nothing more. */
  close(): Promise<void> {
    this.closing ??= this.stopWriting().finally(() => {
      if (this.closed) return;
      this.closed = true;
      this.release();
    });
    return this.closing;
  }

  /** `close` without waiting: the journal is fdatasync'ed on this thread. For a failed open and for eviction. */
  closeSync(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.journal?.closeSync();
    } finally {
      this.release();
    }
  }

  private release(): void {
    clearTimeout(this.idleTimer);
    for (const prepared of this.statements.values()) prepared.free();
    this.statements.clear();
    this.db.close();
    this.lock?.release();
  }

  /** How many rows a table holds (verifying a copy). */
  countRows(table: string): number {
    return integer(this.one(`SELECT COUNT(*) AS count FROM ${table}`) ?? { count: 0 }, 'count');
  }

  /** Whether this process has calls of the session running: such a session must stay open. */
  get busy(): boolean {
    return this.startedHere.size > 0;
  }
}
