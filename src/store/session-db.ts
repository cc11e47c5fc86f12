/**
 * One session's database (issue 9): the repositories of its tables (the session row, transcript
 * and events, token usage, the call ledger, crash recovery, work state) over SessionEngine
 * (session-engine.ts), which owns durability. Store (store.ts) is the facade that routes each
 * session to its SessionDb, so memory, open time and compaction are bounded by one session.
 */
import { existsSync, mkdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Database, SqlJsStatic, SqlValue } from 'sql.js';
import { REPLAYS } from '../core/declarations';
import type { CallFinish, CallStart } from '../core/ledger';
import type { ZunoEvent } from '../core/events';
import type { TranscriptMessage } from '../core/transcript';
import type { Goal, TodoChange, TodoItem } from '../core/work-state';
import { StoreCorruptError, StoreUsageError, WorkStateError } from './errors';
import { JournalWriter, removeTornTail } from './journal';
import type { JournalOperation } from './journal';
import { acquireLock } from './lock';
import { INTERRUPTED_OUTPUT, summarizeArguments } from './recovery';
import type { RecoveryNotice } from './recovery';
import { integer, member, metadataJson, text, toAttemptRow, toCallRow, toModelRequestRow, toSessionRow } from './rows';
import type { CallAttemptRow, CallRow, ModelRequestRow, Row, SessionRow } from './rows';
import { mayPack, REPACK_CALL_OUTPUT, REPACK_MESSAGE, storedText, withStoredContent } from './packed-text';
import { CALL_STATUSES, GOAL_STATUSES, SESSION_STATUSES, TODO_STATUSES } from './schema';
import type { CallStatus, GoalStatus, SessionStatus } from './schema';
import {
  DEFAULT_COMPACTION,
  JOURNAL_FILE,
  SNAPSHOT_FILE,
  SessionEngine,
  loadDatabase,
  type Loaded,
  type SessionDbOptions,
} from './session-engine';

export { DEFAULT_COMPACTION, JOURNAL_FILE, SNAPSHOT_FILE, loadDatabase, syncDirectory, writeFileDurably } from './session-engine';
export type { CompactionPolicy, SessionDbOptions } from './session-engine';

/** What the loop records per model request; see ModelRequestRow. */
export interface ModelRequestUsage {
  readonly model?: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedTokens?: number;
  readonly cacheWriteTokens?: number;
  readonly estimated?: boolean;
  readonly contextWindow?: number;
}

/** A transcript message as stored: a tool result may refer to its call's output instead of repeating it (schema 4). */
type StoredMessage =
  TranscriptMessage | { readonly role: 'tool'; readonly callId: string; readonly toolName: string; readonly contentInCall: true };

/** Shorter tool results are kept as they are: the reference would save next to nothing. */
const MIN_SHARED_OUTPUT = 256;

/** Calls in the order the model gave them: by turn, then position (C2); calls without a turn by when first recorded. */
function callOrder(table = ''): string {
  const turn = `${table}turn`;
  return `COALESCE(${turn}, 0), CASE WHEN ${turn} IS NULL THEN ${table}ordinal ELSE ${table}position END, ${table}ordinal`;
}

export class SessionDb extends SessionEngine {
  /**
   * Opens (creating when writable) the database in `options.dir`: loads the snapshot, replays
   * the journal after it, and brings the schema up to date. A writable one holds the folder's
   * lock until `close`; a second writer gets a StateDirInUseError naming the owner's pid.
   * Synchronous: sql.js is already loaded, and a session is opened from inside a write.
   */
  static open(SQL: SqlJsStatic, options: SessionDbOptions): SessionDb {
    const { dir, readOnly, warn } = options;
    if (readOnly && !existsSync(dir)) throw new StoreUsageError(`There is no Zuno state in ${dir}: the directory does not exist.`);
    if (!readOnly) mkdirSync(dir, { recursive: true });
    const lock = readOnly ? undefined : acquireLock(dir, options.lockSubject);
    let loaded: Loaded | undefined;
    let store: SessionDb | undefined;
    try {
      loaded = loadDatabase(SQL, dir, readOnly);
      const journalPath = join(dir, JOURNAL_FILE);
      const { torn } = loaded.journal;
      const { unapplied } = loaded;
      let journal: JournalWriter | undefined;
      if (!readOnly) {
        if (unapplied) {
          const aside = removeTornTail(journalPath, loaded.journal.validLength);
          warn(
            `The last line of ${journalPath} (line ${unapplied.line}, sequence ${unapplied.seq}) cannot be applied (${unapplied.reason}); it was written just before its statements, which failed or were cut off by a crash, so it was never acknowledged. It has been removed (kept in ${aside}).`,
          );
        } else if (torn) {
          const aside = removeTornTail(journalPath, loaded.journal.validLength);
          warn(
            `The last line of ${journalPath} (line ${torn.line}, ${torn.bytes} bytes) was cut short by a crash while it was written; it was never committed and has been removed (kept in ${aside}).`,
          );
        }
        const leftover = join(dir, `${SNAPSHOT_FILE}.tmp`);
        if (existsSync(leftover)) unlinkSync(leftover);
        journal = new JournalWriter(journalPath, loaded.journal.lastSeq, loaded.journal.validLength);
      } else if (unapplied) {
        // A live writer may be about to cut this very line off again.
        warn(`Ignoring the last line of ${journalPath} (line ${unapplied.line}), which cannot be applied: ${unapplied.reason}.`);
      } else if (torn) {
        // A live writer may be in the middle of this very line; it is simply not visible yet.
        warn(`Ignoring the unfinished last line of ${journalPath} (line ${torn.line}).`);
      }
      store = new SessionDb(loaded.db, dir, !readOnly, journal, lock, loaded.snapshotBytes, options.compaction, warn);
      store.migrate();
      // What a read-only load saw: enough to turn it into the writer later (promote) if nothing changed meanwhile.
      if (readOnly && !torn && !unapplied)
        store.loadedJournal = { lastSeq: loaded.journal.lastSeq, validLength: loaded.journal.validLength };
      return store;
    } catch (error) {
      if (store) store.closeSync();
      else {
        loaded?.db.close();
        lock?.release();
      }
      throw error;
    }
  }

  /** A read-only view of a database built in memory (a pre-issue-9 store split per session, read without writing). */
  static inMemory(db: Database, label: string, warn: (message: string) => void): SessionDb {
    const store = new SessionDb(db, label, true, undefined, undefined, 0, DEFAULT_COMPACTION, warn);
    store.migrate();
    return store;
  }

  // ---- sessions ------------------------------------------------------------------------------

  /** Writes the session's row; this database holds that one session (the facade checked the id). */
  createSession(input: { readonly id: string; readonly workspace: string; readonly title?: string }): SessionRow {
    const { id } = input;
    if (this.getSession(id))
      throw new StoreUsageError(`A session "${id}" already exists in ${this.stateDir}; continue it instead of creating it.`);
    const now = Date.now();
    this.write([
      [
        `INSERT INTO sessions (id, workspace, title, created_at, updated_at, status) VALUES (?, ?, ?, ?, ?, 'active')`,
        [id, input.workspace, input.title ?? null, now, now],
      ],
    ]);
    return {
      id,
      workspace: input.workspace,
      ...(input.title !== undefined ? { title: input.title } : {}),
      createdAt: now,
      updatedAt: now,
      status: 'active',
    };
  }

  getSession(id: string): SessionRow | undefined {
    const row = this.one('SELECT * FROM sessions WHERE id = ?', [id]);
    return row ? toSessionRow(row) : undefined;
  }

  /** Most recently updated first. */
  listSessions(): SessionRow[] {
    return this.all('SELECT * FROM sessions ORDER BY updated_at DESC, id').map(toSessionRow);
  }

  setSessionStatus(id: string, status: SessionStatus): void {
    if (!SESSION_STATUSES.includes(status))
      throw new StoreUsageError(`"${String(status)}" is not a session status; use one of ${SESSION_STATUSES.join(', ')}.`);
    this.requireSession(id);
    this.write([['UPDATE sessions SET status = ?, updated_at = ? WHERE id = ?', [status, Date.now(), id]]]);
  }

  /** The name the history shows (a rename in the editor); the update time stays, so the list keeps its order. */
  setSessionTitle(id: string, title: string): void {
    this.requireSession(id);
    this.write([['UPDATE sessions SET title = ? WHERE id = ?', [title, id]]]);
  }

  // ---- transcript and events -----------------------------------------------------------------

  /** Appends one message to the session's transcript (in the OS on return; fsync'd at the next durable point). */
  appendMessage(sessionId: string, message: TranscriptMessage): void {
    this.requireSession(sessionId);
    // Each output is stored once (issue 9): a tool result that is its call's stored output refers to it.
    const stored: StoredMessage =
      message.role === 'tool' &&
      message.content.length >= MIN_SHARED_OUTPUT &&
      this.callOutput(sessionId, message.callId) === message.content
        ? { role: 'tool', callId: message.callId, toolName: message.toolName, contentInCall: true }
        : message;
    const seq = this.nextSeq('messages', sessionId);
    const json = JSON.stringify(stored);
    this.write([
      ['INSERT INTO messages (session_id, seq, json) VALUES (?, ?, CAST(? AS TEXT))', [sessionId, seq, json]],
      ['UPDATE sessions SET updated_at = ? WHERE id = ?', [Date.now(), sessionId]],
    ]);
    this.advance('messages', sessionId, seq);
    if (mayPack(json)) this.packLater(REPACK_MESSAGE, [sessionId, seq], json);
  }

  /** A stored message as the transcript has it: a tool result kept in its call gets its text back. */
  private decodeMessage(sessionId: string, row: Row): TranscriptMessage {
    const json = storedText(row['json'], `A message of session ${sessionId} in ${this.stateDir}`);
    if (json === undefined)
      throw new StoreCorruptError(`A message of session ${sessionId} in ${this.stateDir} is empty. Move ${this.stateDir} aside.`);
    const stored = JSON.parse(json) as StoredMessage;
    if (!('contentInCall' in stored)) return stored;
    const output = this.storedOutput(sessionId, stored.callId);
    if (typeof output !== 'string' && !(output instanceof Uint8Array)) {
      throw new StoreCorruptError(
        `The transcript of session ${sessionId} in ${this.stateDir} refers to the output of call ${stored.callId}, which is not stored. Move ${this.stateDir} aside.`,
      );
    }
    return withStoredContent(
      { role: 'tool', callId: stored.callId, toolName: stored.toolName },
      output,
      `The output of call ${stored.callId} of session ${sessionId} in ${this.stateDir}`,
    );
  }

  /** Messages after `seq`, with their seq (the search index catches up from there). */
  messagesAfter(sessionId: string, seq: number): { seq: number; message: TranscriptMessage }[] {
    return this.all('SELECT seq, json FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq', [sessionId, seq]).map((row) => ({
      seq: integer(row, 'seq'),
      message: this.decodeMessage(sessionId, row),
    }));
  }

  messageAt(sessionId: string, seq: number): TranscriptMessage | undefined {
    const row = this.one('SELECT json FROM messages WHERE session_id = ? AND seq = ?', [sessionId, seq]);
    return row ? this.decodeMessage(sessionId, row) : undefined;
  }

  messages(sessionId: string): TranscriptMessage[] {
    return this.all('SELECT json FROM messages WHERE session_id = ? ORDER BY seq', [sessionId]).map((row) =>
      this.decodeMessage(sessionId, row),
    );
  }

  /**
   * Persists an event (CallLedger). Events may arrive for a session before or without its row
   * (the event bus cannot report an error), so the session is not checked here.
   */
  recordEvent(event: ZunoEvent): void {
    const seq = this.nextSeq('events', event.session_id);
    this.write([
      [
        'INSERT INTO events (session_id, seq, type, json) VALUES (?, ?, ?, CAST(? AS TEXT))',
        [event.session_id, seq, event.type, JSON.stringify(event)],
      ],
    ]);
    this.advance('events', event.session_id, seq);
  }

  events(sessionId: string): ZunoEvent[] {
    return this.all('SELECT json FROM events WHERE session_id = ? ORDER BY seq', [sessionId]).map(
      (row) => JSON.parse(text(row, 'json')) as ZunoEvent,
    );
  }

  // ---- token usage ---------------------------------------------------------------------------

  /** Records the tokens of one model request, after its answer arrived (issue 10 item 1). */
  recordModelRequest(sessionId: string, usage: ModelRequestUsage): ModelRequestRow {
    this.requireSession(sessionId);
    const seq = this.nextSeq('model_requests', sessionId);
    const createdAt = Date.now();
    this.write([
      [
        `INSERT INTO model_requests (session_id, seq, model, input_tokens, output_tokens, cached_tokens, cache_write_tokens, estimated, context_window, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          sessionId,
          seq,
          usage.model ?? null,
          usage.inputTokens,
          usage.outputTokens,
          usage.cachedTokens ?? 0,
          usage.cacheWriteTokens ?? 0,
          usage.estimated ? 1 : 0,
          usage.contextWindow ?? null,
          createdAt,
        ],
      ],
    ]);
    this.advance('model_requests', sessionId, seq);
    return toModelRequestRow({
      session_id: sessionId,
      seq,
      model: usage.model ?? null,
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      cached_tokens: usage.cachedTokens ?? 0,
      cache_write_tokens: usage.cacheWriteTokens ?? 0,
      estimated: usage.estimated ? 1 : 0,
      context_window: usage.contextWindow ?? null,
      created_at: createdAt,
    });
  }

  /** The session's model requests, oldest first. */
  modelRequests(sessionId: string): ModelRequestRow[] {
    return this.all('SELECT * FROM model_requests WHERE session_id = ? ORDER BY seq', [sessionId]).map(toModelRequestRow);
  }

  // ---- the call ledger -----------------------------------------------------------------------

  private callRow(sessionId: string, callId: string): CallRow | undefined {
    const row = this.one('SELECT * FROM calls WHERE session_id = ? AND call_id = ?', [sessionId, callId]);
    return row ? toCallRow(row) : undefined;
  }

  /** A call's output as stored: text, packed, or null (undefined: no such call). */
  private storedOutput(sessionId: string, callId: string): SqlValue | undefined {
    return this.one('SELECT output FROM calls WHERE session_id = ? AND call_id = ?', [sessionId, callId])?.['output'];
  }

  private callOutput(sessionId: string, callId: string): string | undefined {
    return storedText(this.storedOutput(sessionId, callId), `The output of call ${callId} of session ${sessionId} in ${this.stateDir}`);
  }

  /**
   * What the ledger checks before it records: a call's status, attempt and replay. Reading only
   * these, not the whole row (an output of up to megabytes converted to a string, twenty columns
   * converted to an object), keeps the work done before a durable record's fdatasync small.
   */
  private callState(sessionId: string, callId: string): Pick<CallRow, 'status' | 'attempt' | 'replay'> | undefined {
    const row = this.one('SELECT status, attempt, replay FROM calls WHERE session_id = ? AND call_id = ?', [sessionId, callId]);
    return row
      ? { status: member(row, 'status', CALL_STATUSES), attempt: integer(row, 'attempt'), replay: member(row, 'replay', REPLAYS) }
      : undefined;
  }

  /**
   * Records that a call is about to run, durably (fdatasync) before resolving (R3). Starting a
   * call that is already recorded is refused (it would run twice), except for the next attempt
   * of a Safe call (R2) whose previous attempt ended in error, or is still running in this
   * process: the scheduler retries a transient failure without finishing that attempt, so it is
   * closed here as failed. A Never call never gets a second attempt.
   */
  async recordStart(start: CallStart): Promise<void> {
    this.requireSession(start.sessionId);
    const key = `${start.sessionId}\u0000${start.callId}`;
    const existing = this.callState(start.sessionId, start.callId);
    const attemptRow: JournalOperation = [
      `INSERT INTO call_attempts (session_id, call_id, attempt, status, started_at) VALUES (?, ?, ?, 'running', ?)`,
      [start.sessionId, start.callId, start.attempt, start.startedAt],
    ];
    let seq: number;
    if (existing) {
      const retryable = existing.status === 'error' || (existing.status === 'running' && this.startedHere.has(key));
      if (existing.replay !== 'Safe' || start.declarations.replay !== 'Safe' || !retryable || start.attempt <= existing.attempt) {
        throw new StoreUsageError(
          `Refusing to start call ${start.callId} (attempt ${start.attempt}) of session ${start.sessionId}: it is already recorded as ${existing.status} at attempt ${existing.attempt} ` +
            `(replay ${existing.replay}). Only a Safe call whose last attempt failed may start again, with a higher attempt number; call ids must be unique within a session.`,
        );
      }
      seq = this.write(
        [
          [
            // The failed attempt's output moves from the call row (where the latest attempt's output is kept, once) to its attempt row.
            `UPDATE call_attempts SET status = 'error', output = COALESCE(output, (SELECT output FROM calls WHERE session_id = ? AND call_id = ?), ?), finished_at = COALESCE(finished_at, ?) WHERE session_id = ? AND call_id = ? AND attempt = ?`,
            [
              start.sessionId,
              start.callId,
              `This attempt failed; the call was tried again as attempt ${start.attempt}.`,
              start.startedAt,
              start.sessionId,
              start.callId,
              existing.attempt,
            ],
          ],
          [
            `UPDATE calls SET status = 'running', attempt = ?, category = NULL, output = NULL, truncated = 0, metadata_json = NULL, finished_at = NULL, duration_ms = NULL WHERE session_id = ? AND call_id = ?`,
            [start.attempt, start.sessionId, start.callId],
          ],
          attemptRow,
        ],
        true,
      );
    } else {
      const insert = this.insertCall(start, 'running');
      seq = this.write([insert.operation, attemptRow], true);
      this.advance('ordinal', start.sessionId, insert.ordinal);
    }
    this.startedHere.set(key, start.attempt);
    await this.journal?.syncThrough(seq);
  }

  private insertCall(start: CallStart, status: CallStatus, finish?: CallFinish): { operation: JournalOperation; ordinal: number } {
    const ordinal = this.highestOf('ordinal', start.sessionId) + 1;
    // Without an explicit turn, the turn is the transcript's latest message: the assistant
    // message that asked for the call, which the agent loop appends before running the calls.
    const latest = this.highestOf('messages', start.sessionId);
    const turn = start.turn ?? (latest > 0 ? latest : null);
    const operation: JournalOperation = [
      `INSERT INTO calls (session_id, call_id, ordinal, turn, position, tool, arguments_json, effect, replay, concurrency, attempt, parent_call_id,
         status, category, output, truncated, metadata_json, started_at, finished_at, duration_ms)
       VALUES (?, ?, ?, ?, ?, ?, CAST(? AS TEXT), ?, ?, ?, ?, ?, ?, ?, CAST(? AS TEXT), ?, ?, ?, ?, ?)`,
      [
        start.sessionId,
        start.callId,
        ordinal,
        turn,
        start.position,
        start.tool,
        start.argumentsJson,
        start.declarations.effect,
        start.declarations.replay,
        start.declarations.concurrency,
        start.attempt,
        start.parentCallId ?? null,
        status,
        finish?.category ?? null,
        finish?.output ?? null,
        finish?.truncated ? 1 : 0,
        metadataJson(finish?.metadata),
        start.startedAt,
        finish?.finishedAt ?? null,
        finish?.durationMs ?? null,
      ],
    ];
    return { operation, ordinal };
  }

  /**
   * Records a call that never started, in one step: blocked (B2, with its category), or
   * cancelled or failed before it began. Durable before resolving. It has no attempt row.
   */
  async recordBlocked(start: CallStart, finish: CallFinish): Promise<void> {
    const valid =
      finish.outcome === 'blocked'
        ? finish.category !== undefined
        : (finish.outcome === 'cancelled' || finish.outcome === 'error') && finish.category === undefined;
    if (!valid) {
      throw new StoreUsageError(
        `Call ${start.callId} never started, so it can only be recorded as blocked (with a category), cancelled or error; got ${finish.outcome}${finish.category ? ` (${finish.category})` : ''}.`,
      );
    }
    this.requireSession(start.sessionId);
    if (this.callState(start.sessionId, start.callId)) {
      throw new StoreUsageError(
        `Call ${start.callId} of session ${start.sessionId} is already recorded; a call that never started is recorded once. Call ids must be unique within a session.`,
      );
    }
    const insert = this.insertCall(start, finish.outcome, finish);
    const seq = this.write([insert.operation], true);
    this.advance('ordinal', start.sessionId, insert.ordinal);
    if (mayPack(finish.output)) this.packLater(REPACK_CALL_OUTPUT, [start.sessionId, start.callId], finish.output);
    await this.journal?.syncThrough(seq);
  }

  /** Records the outcome of the running attempt (I5); durable before resolving. */
  async recordFinish(finish: CallFinish): Promise<void> {
    // A started call ends blocked only when permission stopped it midway (a BlockedError); that needs its category.
    if (finish.outcome === 'blocked' && finish.category === undefined) {
      throw new StoreUsageError(
        `Call ${finish.callId} cannot finish as blocked without a category; a call blocked before it started is recorded with recordBlocked.`,
      );
    }
    const key = `${finish.sessionId}\u0000${finish.callId}`;
    const runningHere = this.startedHere.get(key);
    const existing =
      runningHere !== undefined ? { status: 'running', attempt: runningHere } : this.callState(finish.sessionId, finish.callId);
    if (!existing)
      throw new StoreUsageError(`Call ${finish.callId} of session ${finish.sessionId} was never started, so it cannot finish.`);
    if (existing.status !== 'running' || existing.attempt !== finish.attempt) {
      throw new StoreUsageError(
        `Call ${finish.callId} of session ${finish.sessionId} cannot finish attempt ${finish.attempt}: it is ${existing.status} at attempt ${existing.attempt}.`,
      );
    }
    const seq = this.write(
      [
        [
          `UPDATE calls SET status = ?, category = ?, output = CAST(? AS TEXT), truncated = ?, metadata_json = ?, finished_at = ?, duration_ms = ? WHERE session_id = ? AND call_id = ?`,
          [
            finish.outcome,
            finish.category ?? null,
            finish.output,
            finish.truncated ? 1 : 0,
            metadataJson(finish.metadata),
            finish.finishedAt,
            finish.durationMs,
            finish.sessionId,
            finish.callId,
          ],
        ],
        [
          // The output is stored once, in the call row; callAttempts reads it from there (issue 9).
          `UPDATE call_attempts SET status = ?, finished_at = ?, duration_ms = ? WHERE session_id = ? AND call_id = ? AND attempt = ?`,
          [finish.outcome, finish.finishedAt, finish.durationMs, finish.sessionId, finish.callId, finish.attempt],
        ],
      ],
      true,
    );
    this.startedHere.delete(key);
    if (mayPack(finish.output)) this.packLater(REPACK_CALL_OUTPUT, [finish.sessionId, finish.callId], finish.output);
    await this.journal?.syncThrough(seq);
  }

  /**
   * The session's calls in the order the model gave them (C2): by turn, then position. The turn
   * is CallStart.turn when given, else the transcript position of the assistant message that
   * asked for the call. Calls with neither come first, in the order they were first recorded.
   */
  calls(sessionId: string): CallRow[] {
    return this.all(`SELECT * FROM calls WHERE session_id = ? ORDER BY ${callOrder()}`, [sessionId]).map(toCallRow);
  }

  /** Calls first recorded at or after `ordinal`, in that order, with their ordinal (the search index catches up from there). */
  callsFrom(sessionId: string, ordinal: number): { ordinal: number; call: CallRow }[] {
    return this.all('SELECT * FROM calls WHERE session_id = ? AND ordinal >= ? ORDER BY ordinal', [sessionId, ordinal]).map((row) => ({
      ordinal: integer(row, 'ordinal'),
      call: toCallRow(row),
    }));
  }

  getCall(sessionId: string, callId: string): CallRow | undefined {
    return this.callRow(sessionId, callId);
  }

  /** Every attempt of one call, first to last (R2: each retry of a Safe tool is recorded). */
  callAttempts(sessionId: string, callId: string): CallAttemptRow[] {
    // The latest attempt's output is kept once, in the call row.
    return this.all(
      `SELECT a.session_id, a.call_id, a.attempt, a.status, CASE WHEN a.attempt = c.attempt THEN COALESCE(a.output, c.output) ELSE a.output END AS output,
         a.started_at, a.finished_at, a.duration_ms
       FROM call_attempts a JOIN calls c ON c.session_id = a.session_id AND c.call_id = a.call_id
       WHERE a.session_id = ? AND a.call_id = ? ORDER BY a.attempt`,
      [sessionId, callId],
    ).map(toAttemptRow);
  }

  // ---- crash recovery (R3) -------------------------------------------------------------------

  /**
   * Turns the session's calls left `running` by an earlier process into `indeterminate`, with
   * INTERRUPTED_OUTPUT, and records a recovery notice for each. Calls this process is running
   * are left alone. Nothing is re-run. Returns the recovered calls, in call order.
   */
  recoverInterrupted(sessionId: string): CallRow[] {
    const interrupted = this.all(`SELECT * FROM calls WHERE session_id = ? AND status = 'running' ORDER BY ${callOrder()}`, [sessionId])
      .map(toCallRow)
      .filter((call) => !this.startedHere.has(`${call.sessionId}\u0000${call.callId}`));
    if (interrupted.length === 0) return [];
    const now = Date.now();
    this.write(
      interrupted.flatMap((call): JournalOperation[] => [
        [
          `UPDATE calls SET status = 'indeterminate', output = ?, finished_at = ? WHERE session_id = ? AND call_id = ?`,
          [INTERRUPTED_OUTPUT, now, sessionId, call.callId],
        ],
        [
          `UPDATE call_attempts SET status = 'indeterminate', finished_at = ? WHERE session_id = ? AND call_id = ? AND attempt = ?`,
          [now, sessionId, call.callId, call.attempt],
        ],
        [
          `INSERT OR IGNORE INTO recovery_notices (session_id, call_id, attempt, created_at, delivered) VALUES (?, ?, ?, ?, 0)`,
          [sessionId, call.callId, call.attempt, now],
        ],
      ]),
    );
    return interrupted.map((call) => this.callRow(sessionId, call.callId)).filter((call): call is CallRow => call !== undefined);
  }

  /** Recovery notices not yet delivered to the model, in call order, built from the stored rows. */
  pendingRecoveryNotices(sessionId: string): RecoveryNotice[] {
    return this.all(
      `SELECT n.session_id, n.call_id, n.attempt, n.created_at, c.tool, c.arguments_json, c.started_at
       FROM recovery_notices n JOIN calls c ON c.session_id = n.session_id AND c.call_id = n.call_id
       WHERE n.session_id = ? AND n.delivered = 0
       ORDER BY ${callOrder('c.')}`,
      [sessionId],
    ).map((row) => ({
      sessionId: text(row, 'session_id'),
      callId: text(row, 'call_id'),
      tool: text(row, 'tool'),
      argumentSummary: summarizeArguments(text(row, 'arguments_json')),
      attempt: integer(row, 'attempt'),
      startedAt: integer(row, 'started_at'),
      recoveredAt: integer(row, 'created_at'),
    }));
  }

  /** Marks notices as delivered, once the model request that carries them has been sent. */
  markNoticesDelivered(notices: readonly RecoveryNotice[]): void {
    if (notices.length === 0) return;
    this.write(
      notices.map((notice): JournalOperation => [
        'UPDATE recovery_notices SET delivered = 1 WHERE session_id = ? AND call_id = ? AND attempt = ?',
        [notice.sessionId, notice.callId, notice.attempt],
      ]),
    );
  }

  // ---- work state ----------------------------------------------------------------------------

  getPlan(sessionId: string): string | undefined {
    const row = this.one('SELECT text FROM plans WHERE session_id = ?', [sessionId]);
    return row ? text(row, 'text') : undefined;
  }

  setPlan(sessionId: string, plan: string): void {
    this.requireSession(sessionId);
    this.write([
      [
        'INSERT INTO plans (session_id, text, updated_at) VALUES (?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at',
        [sessionId, plan, Date.now()],
      ],
    ]);
  }

  getTodos(sessionId: string): TodoItem[] {
    return this.all('SELECT id, content, status FROM todos WHERE session_id = ? ORDER BY position', [sessionId]).map((row) => ({
      id: text(row, 'id'),
      content: text(row, 'content'),
      status: member(row, 'status', TODO_STATUSES),
    }));
  }

  /** Replaces the whole list. Refused, with every problem named, when an id repeats or is empty, content is empty, or a status is unknown. */
  setTodos(sessionId: string, todos: readonly TodoItem[]): TodoItem[] {
    this.requireSession(sessionId);
    const problems: string[] = [];
    const seen = new Set<string>();
    todos.forEach((todo, index) => {
      if (typeof todo.id !== 'string' || todo.id.trim() === '') problems.push(`todo ${index + 1} has an empty id`);
      else if (seen.has(todo.id)) problems.push(`the id "${todo.id}" is used more than once; ids must be unique`);
      else seen.add(todo.id);
      if (typeof todo.content !== 'string' || todo.content.trim() === '') problems.push(`todo ${index + 1} has empty content`);
      problems.push(...statusProblems(todo.status, `todo ${index + 1}`));
    });
    if (problems.length > 0) throw new WorkStateError(`The todo list was not changed: ${problems.join('; ')}.`);
    this.write([
      ['DELETE FROM todos WHERE session_id = ?', [sessionId]],
      ...todos.map((todo, position): JournalOperation => [
        'INSERT INTO todos (session_id, id, content, status, position) VALUES (?, ?, ?, ?, ?)',
        [sessionId, todo.id, todo.content, todo.status, position],
      ]),
    ]);
    return this.getTodos(sessionId);
  }

  /** Changes existing todos by id. Refused as a whole when an id is unknown or a status is not valid. */
  updateTodos(sessionId: string, changes: readonly TodoChange[]): TodoItem[] {
    this.requireSession(sessionId);
    const current = this.getTodos(sessionId);
    const known = new Set(current.map((todo) => todo.id));
    const problems: string[] = [];
    for (const change of changes) {
      if (!known.has(change.id)) {
        problems.push(
          `there is no todo with id "${change.id}" (${known.size > 0 ? `known ids: ${[...known].join(', ')}` : 'the list is empty'})`,
        );
      }
      if (change.status !== undefined) problems.push(...statusProblems(change.status, `todo "${change.id}"`));
      if (change.content !== undefined && change.content.trim() === '') problems.push(`todo "${change.id}" would have empty content`);
    }
    if (problems.length > 0) throw new WorkStateError(`No todo was changed: ${problems.join('; ')}.`);
    this.write(
      changes.map((change): JournalOperation => [
        'UPDATE todos SET content = COALESCE(?, content), status = COALESCE(?, status) WHERE session_id = ? AND id = ?',
        [change.content ?? null, change.status ?? null, sessionId, change.id],
      ]),
    );
    return this.getTodos(sessionId);
  }

  getGoal(sessionId: string): Goal | undefined {
    const row = this.one('SELECT text, status, updated_at FROM goals WHERE session_id = ?', [sessionId]);
    return row
      ? { text: text(row, 'text'), status: member(row, 'status', GOAL_STATUSES), updatedAt: integer(row, 'updated_at') }
      : undefined;
  }

  setGoal(sessionId: string, goal: { readonly text: string; readonly status?: GoalStatus }): Goal {
    this.requireSession(sessionId);
    const status = goal.status ?? 'active';
    if (typeof goal.text !== 'string' || goal.text.trim() === '') throw new WorkStateError('The goal was not changed: its text is empty.');
    if (!GOAL_STATUSES.includes(status))
      throw new WorkStateError(
        `The goal was not changed: "${String(status)}" is not a goal status; use one of ${GOAL_STATUSES.join(', ')}.`,
      );
    const now = Date.now();
    this.write([
      [
        'INSERT INTO goals (session_id, text, status, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET text = excluded.text, status = excluded.status, updated_at = excluded.updated_at',
        [sessionId, goal.text, status, now],
      ],
    ]);
    return { text: goal.text, status, updatedAt: now };
  }
}

function statusProblems(status: unknown, what: string): string[] {
  return TODO_STATUSES.some((known) => known === status)
    ? []
    : [`${what} has the status ${JSON.stringify(status)}, which is not one of ${TODO_STATUSES.join(', ')}`];
}
