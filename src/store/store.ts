/**
 * The session store (issue 9): a facade over one SessionDb per session (session-db.ts), the
 * session index (session.json files, layout.ts) and the memories log (memories.ts). Opening it
 * reads no history; a session's database is loaded only when that session is shown, resumed or
 * written, so memory, open time and write cost depend on one session, not on all of them.
 *
 * One writer per session, not per workspace: a session's database is locked by the first
 * process that writes it, until that process closes the store. `zuno exec` can run a new
 * session while the editor has another one open; two writers on one session are refused with
 * StateDirInUseError, naming the owner.
 *
 * Durability is the SessionDb's: every write reaches the OS before its method returns, and the
 * ledger's async methods fdatasync before they resolve (SPEC R3).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import type { CallFinish, CallLedger, CallStart } from '../core/ledger';
import type { ZunoEvent } from '../core/events';
import type { TranscriptMessage } from '../core/transcript';
import type { Goal, MemoryBook, TodoChange, TodoItem, WorkStateStore } from '../core/work-state';
import type { PastSession, SessionHistory } from '../core/history';
import { StateDirInUseError, StoreCorruptError, StoreUsageError } from './errors';
import type { SessionEntry } from './layout';
import { MEMORIES_FILE, readLayout, readSessionFile, scanSessions, sessionDir, writeLayout, writeSessionFile } from './layout';
import { acquireLock } from './lock';
import { journalBytesOnDisk } from './journal';
import { MemoryLog } from './memories';
import type { RecoveryNotice } from './recovery';
import type { CallAttemptRow, CallRow, MemoryRow, ModelRequestRow, SessionRow } from './rows';
import type { GoalStatus, MemoryStatus, SessionStatus } from './schema';
import { DEFAULT_COMPACTION, JOURNAL_FILE, SNAPSHOT_FILE, SessionDb } from './session-db';
import type { CompactionPolicy, ModelRequestUsage } from './session-db';
import { FORMER_GLOBAL_INDEX, INDEX_FILE, SessionIndexes, TERMS_FILE, filesKey } from './search';
import type { IndexState, SearchHit, SearchOptions } from './search';
import { hasLegacyStore, readLegacySessions, renameLegacyFiles, splitStateDir } from './split';
import { loadSqlJs } from './sqljs';

export type { CallAttemptRow, CallRow, MemoryRow, ModelRequestRow, SessionRow } from './rows';
export type { CompactionPolicy, ModelRequestUsage } from './session-db';
export type { IndexState, SearchProgress } from './search';
export { DEFAULT_COMPACTION, JOURNAL_FILE, SNAPSHOT_FILE } from './session-db';
export { MAX_MEMORY_LENGTH } from './memories';
export { sessionDir } from './layout';
export type { Goal, TodoChange, TodoItem } from '../core/work-state';
export { INTERRUPTED_OUTPUT, recoveryNoticeText, summarizeArguments } from './recovery';
export type { RecoveryNotice } from './recovery';
export { StateDirInUseError, StoreCorruptError, StoreStartupError, StoreUsageError, WorkStateError } from './errors';
export { CALL_STATUSES, GOAL_STATUSES, MEMORY_STATUSES, SCHEMA_VERSION, SESSION_STATUSES, TODO_STATUSES } from './schema';
export type { CallStatus, GoalStatus, MemoryStatus, SessionStatus, TodoStatus } from './schema';

/** `history` in the config: a limit that is unset or 0 keeps everything. */
export interface RetentionPolicy {
  readonly max_sessions?: number | undefined;
  readonly max_age_days?: number | undefined;
}

/** Sessions one store keeps open for writing at once; see evictIdleWriters. */
export const MAX_OPEN_SESSIONS = 4;

export interface StoreOptions {
  readonly stateDir: string;
  /** Where sql-wasm.wasm is; found beside the bundle or in the sql.js package when omitted. */
  readonly wasmPath?: string;
  /** Open for reading only (`zuno show`): no lock is taken and nothing is ever written. */
  readonly readOnly?: boolean;
  /** Receives problems that were handled, such as a torn final journal line. Default: console.warn. */
  readonly onWarning?: (message: string) => void;
  /** Per session: when its journal is folded into its snapshot. */
  readonly compaction?: CompactionPolicy;
  /**
   * `history.max_sessions` / `max_age_days`: applied each time a session is created, once it
   * exists, so the limit counts the new session (at most max_sessions remain).
   */
  readonly retention?: RetentionPolicy;
}

/** A session as `zuno sessions` lists it: its row and what its files take on disk. */
export interface SessionSummary extends SessionRow {
  readonly bytes: number;
  readonly dir: string;
}

/** A read-only copy of a session, kept while its files do not change (showing a session reads it several times). */
interface CachedReader {
  readonly id: string;
  readonly key: string;
  readonly db: SessionDb;
}

const hasDatabase = (dir: string): boolean => existsSync(join(dir, SNAPSHOT_FILE)) || existsSync(join(dir, JOURNAL_FILE));

/** What a session's files hold, for listings: the journal without the zeros a live writer keeps after it. */
function directoryBytes(dir: string): number {
  let total = journalBytesOnDisk(join(dir, JOURNAL_FILE));
  for (const name of [SNAPSHOT_FILE, 'session.json', INDEX_FILE, TERMS_FILE]) {
    try {
      total += statSync(join(dir, name)).size;
    } catch {
      // Absent files take no room.
    }
  }
  return total;
}

export class Store implements CallLedger, WorkStateStore, MemoryBook, SessionHistory {
  /** Sessions this process writes, each holding its folder's lock. */
  private readonly writers = new Map<string, SessionDb>();
  /** Sessions this process wrote and closed before the store (evicted): their search index is brought up to date at close. */
  private readonly evicted = new Set<string>();
  private cached: CachedReader | undefined;
  private closed = false;

  private constructor(
    private readonly SQL: SqlJsStatic,
    readonly stateDir: string,
    readonly readOnly: boolean,
    private readonly memoryLog: MemoryLog,
    private readonly compaction: CompactionPolicy,
    private readonly warn: (message: string) => void,
    /** A pre-issue-9 store opened read-only: its sessions, split in memory, since nothing may be written. */
    private readonly legacy: Map<string, SessionDb> | undefined,
    private readonly retention: RetentionPolicy = {},
  ) {}

  /**
   * Opens (creating when writable) the store in `stateDir`. Reads no session: only store.json,
   * and on the first writable open of a pre-issue-9 store, splits it into one folder per
   * session (copy, verify, rename the old files to `*.migrated-<date>`). A read-only open of
   * such a store splits it in memory and writes nothing.
   */
  static async open(options: StoreOptions): Promise<Store> {
    const SQL = await loadSqlJs(options.wasmPath);
    const stateDir = resolve(options.stateDir);
    const readOnly = options.readOnly ?? false;
    const warn = options.onWarning ?? ((message: string) => console.warn(message));
    const compaction = options.compaction ?? DEFAULT_COMPACTION;
    if (readOnly && !existsSync(stateDir))
      throw new StoreUsageError(`There is no Zuno state in ${stateDir}: the directory does not exist.`);
    const memories = join(stateDir, MEMORIES_FILE);
    let layout = readLayout(stateDir);
    if (readOnly) {
      if (layout === undefined && hasLegacyStore(stateDir)) {
        const legacy = readLegacySessions(SQL, stateDir, warn);
        const log = new InMemoryMemories(legacy.memories, memories);
        return new Store(SQL, stateDir, true, log, compaction, warn, legacy.sessions);
      }
      return new Store(SQL, stateDir, true, new MemoryLog(memories, true, warn), compaction, warn, undefined);
    }
    mkdirSync(stateDir, { recursive: true });
    if (layout === undefined && hasLegacyStore(stateDir)) {
      const notice = splitStateDir(SQL, stateDir, warn);
      if (notice) warn(notice);
      layout = readLayout(stateDir);
    }
    if (layout === undefined) writeLayout(stateDir);
    else if (hasLegacyStore(stateDir)) {
      // A split that was killed after its commit point (store.json) but before the old files were renamed.
      const moved = renameLegacyFiles(stateDir, new Date());
      warn(`Renamed ${moved.join(', ')}: this store was already split into one folder per session.`);
    }
    return new Store(SQL, stateDir, false, new MemoryLog(memories, false, warn), compaction, warn, undefined, options.retention);
  }

  /** The folder of one session's files. */
  sessionDir(sessionId: string): string {
    return sessionDir(this.stateDir, sessionId);
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreUsageError(`The store in ${this.stateDir} is closed.`);
  }

  /**
   * The session's database for writing, opened (and locked) on first use. `mustExist` refuses
   * an unknown session before any file is made.
   */
  private writer(sessionId: string, mustExist = true): SessionDb {
    this.assertOpen();
    const open = this.writers.get(sessionId);
    if (open) {
      // Most recently used last, for eviction.
      this.writers.delete(sessionId);
      this.writers.set(sessionId, open);
      return open;
    }
    if (this.readOnly) throw new StoreUsageError(`The store in ${this.stateDir} was opened read-only.`);
    if (mustExist && !this.getSession(sessionId)) throw new StoreUsageError(`There is no session "${sessionId}" in ${this.stateDir}.`);
    const dir = this.sessionDir(sessionId);
    if (mustExist) this.assertDatabase(sessionId, dir);
    mkdirSync(join(this.stateDir, 'sessions'), { recursive: true });
    const lockSubject = { name: `The session ${sessionId} in the state dir ${this.stateDir}`, alternative: 'start a new session instead' };
    // Resuming a session just shown: the copy already loaded becomes the writer if its files did not change.
    const cached = this.cached?.id === sessionId ? this.cached : undefined;
    const promoted = cached !== undefined && cached.db.promote(lockSubject, () => filesKey(dir) === cached.key);
    if (cached) this.cached = undefined;
    if (cached && !promoted) cached.db.closeSync();
    const db = promoted
      ? cached.db
      : SessionDb.open(this.SQL, { dir, readOnly: false, warn: this.warn, compaction: this.compaction, lockSubject });
    this.writers.set(sessionId, db);
    this.evicted.delete(sessionId);
    this.evictIdleWriters(sessionId);
    // A crash between the database and session.json left the index without this session.
    const row = db.getSession(sessionId);
    if (row && readSessionFile(dir) === undefined) writeSessionFile(dir, row);
    return db;
  }

  /**
   * Closes the least recently used sessions beyond MAX_OPEN_SESSIONS that have no call running
   * here, releasing their locks: a long-lived editor host keeps the memory of a few sessions,
   * not of every session it ever touched, and another process may then continue them.
   */
  private evictIdleWriters(keep: string): void {
    for (const [id, db] of this.writers) {
      if (this.writers.size <= MAX_OPEN_SESSIONS) return;
      if (db.busy || id === keep) continue;
      this.writers.delete(id);
      db.closeSync();
      this.evicted.add(id);
    }
  }

  /** A session listed in session.json whose database is gone is named, never shown as empty. */
  private assertDatabase(sessionId: string, dir: string): void {
    if (hasDatabase(dir)) return;
    throw new StoreCorruptError(
      `Session ${sessionId} is listed in ${join(dir, 'session.json')}, but its database (${SNAPSHOT_FILE}, ${JOURNAL_FILE}) is missing from ${dir}: its transcript and calls are lost. ` +
        `Restore them from a backup, or delete the folder ${dir} to remove the session.`,
    );
  }

  private dropCache(): void {
    this.cached?.db.closeSync();
    this.cached = undefined;
  }

  /**
   * The session's database for reading: the one this process writes, or a read-only load of
   * its files (cached while they do not change). Undefined for a session with no files. A
   * damaged session throws its own error naming the file; other sessions are not affected.
   */
  private reader(sessionId: string): SessionDb | undefined {
    this.assertOpen();
    const writer = this.writers.get(sessionId);
    if (writer) return writer;
    if (this.legacy) return this.legacy.get(sessionId);
    const dir = this.sessionDir(sessionId);
    if (!existsSync(dir)) return undefined;
    if (readSessionFile(dir) !== undefined) this.assertDatabase(sessionId, dir);
    const key = filesKey(dir);
    if (this.cached?.id === sessionId && this.cached.key === key) return this.cached.db;
    this.dropCache();
    const db = SessionDb.open(this.SQL, { dir, readOnly: true, warn: this.warn, compaction: this.compaction });
    this.cached = { id: sessionId, key, db };
    return db;
  }

  /** Makes every write so far durable against an OS crash (fdatasync). */
  async flush(): Promise<void> {
    this.assertOpen();
    await Promise.all([...this.writers.values()].map((db) => db.flush()));
  }

  /**
   * Flushes, releases every session's lock and frees the databases. Calling it again does nothing.
   * First brings the search index of each session this process wrote up to date (search.ts), so
   * the next search, in any process, finds them without indexing: work bounded by what this
   * process wrote, done once, off every write's path.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const errors: unknown[] = [];
    // Each session's files as they stay (folded, the journal's reserve cut off), so that the index made from them is current.
    for (const db of this.writers.values()) await db.stopWriting().catch((error: unknown) => errors.push(error));
    this.indexWrittenSessions();
    for (const db of [...this.writers.values(), ...(this.legacy?.values() ?? [])]) {
      await db.close().catch((error: unknown) => errors.push(error));
    }
    this.writers.clear();
    this.dropCache();
    if (errors.length > 0) throw errors[0];
  }

  private indexWrittenSessions(): void {
    if (this.readOnly) return;
    const indexes = new SessionIndexes(this.SQL, true, this.warn);
    const index = (id: string, db: SessionDb, key: string): void => {
      const row = db.getSession(id);
      if (row) indexes.update({ row, dir: this.sessionDir(id) }, db, key);
    };
    for (const [id, db] of this.writers) {
      try {
        index(id, db, filesKey(this.sessionDir(id)));
      } catch (error) {
        this.warn(`Could not bring the search index of session ${id} up to date (${(error as Error).message}); the next search does it.`);
      }
    }
    for (const id of this.evicted) {
      try {
        const dir = this.sessionDir(id);
        if (!hasDatabase(dir)) continue;
        const key = filesKey(dir);
        const db = SessionDb.open(this.SQL, { dir, readOnly: true, warn: this.warn, compaction: this.compaction });
        try {
          index(id, db, key);
        } finally {
          db.closeSync();
        }
      } catch (error) {
        this.warn(`Could not bring the search index of session ${id} up to date (${(error as Error).message}); the next search does it.`);
      }
    }
    this.evicted.clear();
  }

  /** Whether a session's search index matches its files (`current`: a search needs no indexing for it). */
  searchIndexState(sessionId: string): IndexState {
    this.assertOpen();
    return new SessionIndexes(this.SQL, false, this.warn).state(this.sessionDir(sessionId));
  }

  // ---- sessions ------------------------------------------------------------------------------

  createSession(input: { readonly id?: string; readonly workspace: string; readonly title?: string }): SessionRow {
    const id = input.id ?? randomUUID();
    if (id.trim() === '') throw new StoreUsageError('A session id must not be empty.');
    if (this.getSession(id))
      throw new StoreUsageError(`A session "${id}" already exists in ${this.stateDir}; continue it instead of creating it.`);
    const db = this.writer(id, false);
    // The database first (it is the truth), then the index; see layout.ts for a crash between.
    const row = db.createSession({ id, workspace: input.workspace, ...(input.title !== undefined ? { title: input.title } : {}) });
    writeSessionFile(this.sessionDir(id), row);
    this.applyRetention(this.retention);
    return row;
  }

  getSession(id: string): SessionRow | undefined {
    this.assertOpen();
    const writer = this.writers.get(id);
    if (writer) return writer.getSession(id);
    if (this.legacy) return this.legacy.get(id)?.getSession(id);
    const indexed = readSessionFile(this.sessionDir(id));
    if (typeof indexed === 'object') return indexed;
    // No readable session.json: the database, if any, says whether the session exists.
    if (!hasDatabase(this.sessionDir(id))) return undefined;
    return this.reader(id)?.getSession(id);
  }

  /** Most recently updated first. A session whose files cannot be read is left out and named in a warning. */
  listSessions(): SessionRow[] {
    return this.listSummaries().map(({ bytes: _bytes, dir: _dir, ...row }) => row);
  }

  /** Sessions with the bytes their files take, most recently updated first. */
  listSummaries(): SessionSummary[] {
    return this.listEntries().map(({ row, dir }) => ({ ...row, bytes: this.legacy ? 0 : directoryBytes(dir), dir }));
  }

  /** Sessions and their folders, most recently updated first; no more than a stat and a small read per session. */
  private listEntries(): SessionEntry[] {
    this.assertOpen();
    const rows: SessionEntry[] = [];
    if (this.legacy) {
      for (const [id, db] of this.legacy) {
        const row = db.getSession(id);
        if (row) rows.push({ row, dir: this.stateDir });
      }
    } else {
      const scan = scanSessions(this.stateDir);
      // session.json is rewritten on every change of the row, so it is current for open sessions too.
      rows.push(...scan.sessions);
      for (const dir of scan.unindexed) {
        try {
          const row = this.unindexedRow(dir);
          if (row) rows.push({ row, dir });
        } catch (error) {
          this.warn(
            `Leaving out the session in ${dir}: ${(error as Error).message} Its other sessions are not affected; move ${dir} aside to silence this warning.`,
          );
        }
      }
    }
    return rows.sort((a, b) => b.row.updatedAt - a.row.updatedAt || a.row.id.localeCompare(b.row.id));
  }

  /** Reads the row of a session folder without session.json (a crash between the database and the index). */
  private unindexedRow(dir: string): SessionRow | undefined {
    if (!hasDatabase(dir)) return undefined;
    const db = SessionDb.open(this.SQL, { dir, readOnly: true, warn: this.warn, compaction: this.compaction });
    try {
      const [row] = db.listSessions();
      if (row && !this.readOnly && readSessionFile(dir) === undefined && this.sessionDir(row.id) === dir) writeSessionFile(dir, row);
      return row;
    } finally {
      db.closeSync();
    }
  }

  setSessionStatus(id: string, status: SessionStatus): void {
    const db = this.writer(id);
    db.setSessionStatus(id, status);
    this.reindex(id, db);
  }

  /** Renames a session (its stored title, which the history lists); an empty title is refused. */
  renameSession(id: string, title: string): void {
    const trimmed = title.trim();
    if (trimmed === '') throw new StoreUsageError('A session title must not be empty; type a name, or keep the old one.');
    if (!this.getSession(id))
      throw new StoreUsageError(`There is no session "${id}" in ${this.stateDir}. List the sessions with \`zuno sessions\`.`);
    const db = this.writer(id);
    db.setSessionTitle(id, trimmed);
    this.reindex(id, db);
  }

  /** Rewrites the session's session.json from its database (a small file, written whole). */
  private reindex(id: string, db: SessionDb): void {
    const row = db.getSession(id);
    if (row) writeSessionFile(this.sessionDir(id), row);
  }

  /**
   * Deletes a session and its files. Refused while any process (this one included) writes it.
   * The folder is renamed away first, so a crash mid-delete never leaves half a session listed.
   */
  deleteSession(id: string): void {
    this.assertOpen();
    if (this.readOnly) throw new StoreUsageError(`The store in ${this.stateDir} was opened read-only.`);
    const held = this.writers.get(id);
    if (held?.busy) throw new StoreUsageError(`Session ${id} has calls running in this process; delete it once they finish.`);
    const dir = this.sessionDir(id);
    if (!existsSync(dir))
      throw new StoreUsageError(`There is no session "${id}" in ${this.stateDir}. List the sessions with \`zuno sessions\`.`);
    if (held) {
      held.closeSync();
      this.writers.delete(id);
    }
    this.evicted.delete(id);
    if (this.cached?.id === id) this.dropCache();
    // Taking the lock proves no other process writes the session; it moves away with the folder.
    acquireLock(dir, {
      name: `The session ${id} in the state dir ${this.stateDir}`,
      alternative: 'delete it once that process has finished',
    });
    const aside = join(this.stateDir, 'sessions', `.deleted-${randomUUID()}`);
    renameSync(dir, aside);
    rmSync(aside, { recursive: true, force: true });
  }

  /**
   * Deletes the sessions beyond `history.max_sessions` (the least recently updated first) and
   * those not updated for `history.max_age_days`. Sessions this store has open (the one just
   * created among them) are kept and count toward the limit; sessions another process writes
   * are kept. Returns the ids deleted.
   */
  applyRetention(policy: RetentionPolicy, now = Date.now()): string[] {
    const maxSessions = policy.max_sessions || Infinity;
    const maxAgeDays = policy.max_age_days || undefined;
    if (this.readOnly || (maxSessions === Infinity && maxAgeDays === undefined)) return [];
    const sessions = this.listEntries().map(({ row }) => row);
    const cutoff = maxAgeDays === undefined ? -Infinity : now - maxAgeDays * 24 * 60 * 60 * 1000;
    let kept = sessions.filter((session) => this.writers.has(session.id)).length;
    const doomed = sessions.filter((session) => {
      if (this.writers.has(session.id)) return false;
      if (kept < maxSessions && session.updatedAt >= cutoff) {
        kept++;
        return false;
      }
      return true;
    });
    const deleted: string[] = [];
    for (const session of doomed) {
      try {
        this.deleteSession(session.id);
        deleted.push(session.id);
      } catch (error) {
        if (!(error instanceof StateDirInUseError))
          this.warn(`Could not delete session ${session.id} (history retention): ${(error as Error).message}`);
      }
    }
    return deleted;
  }

  // ---- history: search and reading past sessions ---------------------------------------------

  /**
   * Sessions whose prompts, answers or tool outputs contain every word of `query`, best first,
   * with excerpts (see search.ts). Reads each session's index in turn, newest session first; a
   * session whose index is missing or behind its files is indexed first (reported to
   * `options.onProgress`), which costs that session alone.
   */
  searchSessions(query: string, options: SearchOptions): SearchHit[] {
    this.assertOpen();
    if (!this.readOnly && !this.legacy) this.removeFormerGlobalIndex();
    const sessions = this.listEntries();
    return new SessionIndexes(this.SQL, !this.readOnly, this.warn, this.legacy !== undefined).search(
      query,
      sessions,
      (id) => this.reader(id),
      options,
    );
  }

  /** The one index over every session that earlier versions kept: derived data, now unused, and large. */
  private removeFormerGlobalIndex(): void {
    try {
      unlinkSync(join(this.stateDir, FORMER_GLOBAL_INDEX));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        this.warn(
          `Could not remove the former search index ${join(this.stateDir, FORMER_GLOBAL_INDEX)} (${(error as Error).message}); it is no longer used and may be deleted.`,
        );
    }
  }

  /** One session's row and transcript; undefined when there is no such session. */
  readSession(sessionId: string): PastSession | undefined {
    const row = this.getSession(sessionId);
    if (!row) return undefined;
    return { ...row, messages: this.messages(sessionId) };
  }

  // ---- transcript and events -----------------------------------------------------------------

  /** Appends one message to the session's transcript (in the OS on return; fsync'd at the next durable point). */
  appendMessage(sessionId: string, message: TranscriptMessage): void {
    const db = this.writer(sessionId);
    db.appendMessage(sessionId, message);
    this.reindex(sessionId, db);
  }

  messages(sessionId: string): TranscriptMessage[] {
    return this.reader(sessionId)?.messages(sessionId) ?? [];
  }

  /**
   * Persists an event (CallLedger). Events may arrive for a session before or without its row
   * (the event bus cannot report an error), so the session is not checked here.
   */
  recordEvent(event: ZunoEvent): void {
    this.writer(event.session_id, false).recordEvent(event);
  }

  events(sessionId: string): ZunoEvent[] {
    return this.reader(sessionId)?.events(sessionId) ?? [];
  }

  // ---- token usage ---------------------------------------------------------------------------

  /** Records the tokens of one model request, after its answer arrived (issue 10 item 1). */
  recordModelRequest(sessionId: string, usage: ModelRequestUsage): ModelRequestRow {
    return this.writer(sessionId).recordModelRequest(sessionId, usage);
  }

  /** The session's model requests, oldest first. */
  modelRequests(sessionId: string): ModelRequestRow[] {
    return this.reader(sessionId)?.modelRequests(sessionId) ?? [];
  }

  // ---- the call ledger -----------------------------------------------------------------------

  /** Records that a call is about to run, durably (fdatasync) before resolving (R3); see SessionDb.recordStart. */
  async recordStart(start: CallStart): Promise<void> {
    await this.writer(start.sessionId).recordStart(start);
  }

  /** Records a call that never started, in one step; durable before resolving. */
  async recordBlocked(start: CallStart, finish: CallFinish): Promise<void> {
    await this.writer(start.sessionId).recordBlocked(start, finish);
  }

  /** Records the outcome of the running attempt (I5); durable before resolving. */
  async recordFinish(finish: CallFinish): Promise<void> {
    await this.writer(finish.sessionId).recordFinish(finish);
  }

  /** The session's calls in the order the model gave them (C2). */
  calls(sessionId: string): CallRow[] {
    return this.reader(sessionId)?.calls(sessionId) ?? [];
  }

  getCall(sessionId: string, callId: string): CallRow | undefined {
    return this.reader(sessionId)?.getCall(sessionId, callId);
  }

  /** Every attempt of one call, first to last (R2: each retry of a Safe tool is recorded). */
  callAttempts(sessionId: string, callId: string): CallAttemptRow[] {
    return this.reader(sessionId)?.callAttempts(sessionId, callId) ?? [];
  }

  // ---- crash recovery (R3) -------------------------------------------------------------------

  /** Turns the session's calls left `running` by an earlier process into `indeterminate`, with a notice each. */
  recoverInterrupted(sessionId: string): CallRow[] {
    return this.writer(sessionId).recoverInterrupted(sessionId);
  }

  /** Recovery notices not yet delivered to the model, in call order, built from the stored rows. */
  pendingRecoveryNotices(sessionId: string): RecoveryNotice[] {
    return this.reader(sessionId)?.pendingRecoveryNotices(sessionId) ?? [];
  }

  /** Marks notices as delivered, once the model request that carries them has been sent. */
  markNoticesDelivered(notices: readonly RecoveryNotice[]): void {
    const bySession = new Map<string, RecoveryNotice[]>();
    for (const notice of notices) bySession.set(notice.sessionId, [...(bySession.get(notice.sessionId) ?? []), notice]);
    for (const [sessionId, group] of bySession) this.writer(sessionId).markNoticesDelivered(group);
  }

  // ---- work state ----------------------------------------------------------------------------

  getPlan(sessionId: string): string | undefined {
    return this.reader(sessionId)?.getPlan(sessionId);
  }

  setPlan(sessionId: string, plan: string): void {
    this.writer(sessionId).setPlan(sessionId, plan);
  }

  getTodos(sessionId: string): TodoItem[] {
    return this.reader(sessionId)?.getTodos(sessionId) ?? [];
  }

  /** Replaces the whole list; see SessionDb.setTodos for what is refused. */
  setTodos(sessionId: string, todos: readonly TodoItem[]): TodoItem[] {
    return this.writer(sessionId).setTodos(sessionId, todos);
  }

  /** Changes existing todos by id; refused as a whole when an id is unknown or a status is not valid. */
  updateTodos(sessionId: string, changes: readonly TodoChange[]): TodoItem[] {
    return this.writer(sessionId).updateTodos(sessionId, changes);
  }

  getGoal(sessionId: string): Goal | undefined {
    return this.reader(sessionId)?.getGoal(sessionId);
  }

  setGoal(sessionId: string, goal: { readonly text: string; readonly status?: GoalStatus }): Goal {
    return this.writer(sessionId).setGoal(sessionId, goal);
  }

  // ---- memories ------------------------------------------------------------------------------

  /** Stores a proposed memory. Proposing a text that is already stored returns the stored one. */
  proposeMemory(memoryText: string, sourceSessionId?: string): MemoryRow {
    this.assertOpen();
    return this.memoryLog.propose(memoryText, sourceSessionId);
  }

  /** Oldest first; all memories, or those with the given status. */
  listMemories(status?: MemoryStatus): MemoryRow[] {
    this.assertOpen();
    return this.memoryLog.list(status);
  }

  acceptMemory(id: string): MemoryRow {
    this.assertOpen();
    return this.memoryLog.accept(id);
  }

  deleteMemory(id: string): void {
    this.assertOpen();
    this.memoryLog.delete(id);
  }
}

/** The memories of a pre-issue-9 store opened read-only: held in memory, never written. */
class InMemoryMemories extends MemoryLog {
  constructor(
    private readonly rows: readonly MemoryRow[],
    path: string,
  ) {
    super(path, true, () => undefined);
  }

  override list(status?: MemoryStatus): MemoryRow[] {
    return status === undefined ? [...this.rows] : this.rows.filter((memory) => memory.status === status);
  }
}
