/**
 * The store's schema, as numbered migrations. `PRAGMA user_version` holds the version a store is
 * at. A migration runs as one journaled transaction like any other write, so replaying a
 * journal reproduces the schema changes in the order they happened. Never edit a shipped
 * migration: add the next one. The SQL is literal text (not built from the constants below) so
 * that a shipped migration cannot change by accident.
 */

export const SESSION_STATUSES = ['active', 'done', 'step-limit', 'cancelled', 'error'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** `running` until one final outcome is recorded (SPEC I5); `indeterminate` also after a crash (R3). */
export const CALL_STATUSES = ['running', 'ok', 'error', 'blocked', 'indeterminate', 'cancelled'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

// Work-state statuses are part of the tool contract, so they live in the core.
export { GOAL_STATUSES, TODO_STATUSES } from '../core/work-state';
export type { GoalStatus, TodoStatus } from '../core/work-state';

export const MEMORY_STATUSES = ['proposed', 'accepted'] as const;
export type MemoryStatus = (typeof MEMORY_STATUSES)[number];

export interface Migration {
  /** The `user_version` the store is at once this migration has run. */
  readonly version: number;
  readonly description: string;
  readonly statements: readonly string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'sessions, transcript, calls and their attempts, events, recovery notices',
    statements: [
      // Bookkeeping that belongs to one snapshot file, such as the last journal line it holds.
      `CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
      `CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        workspace TEXT NOT NULL,
        title TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('active', 'done', 'step-limit', 'cancelled', 'error'))
      )`,
      `CREATE TABLE messages (
        session_id TEXT NOT NULL REFERENCES sessions(id),
        seq INTEGER NOT NULL,
        json TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
      )`,
      `CREATE TABLE calls (
        session_id TEXT NOT NULL REFERENCES sessions(id),
        call_id TEXT NOT NULL,
        ordinal INTEGER NOT NULL,
        turn INTEGER,
        position INTEGER NOT NULL,
        tool TEXT NOT NULL,
        arguments_json TEXT NOT NULL,
        effect TEXT NOT NULL,
        replay TEXT NOT NULL,
        concurrency TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        parent_call_id TEXT,
        status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'error', 'blocked', 'indeterminate', 'cancelled')),
        category TEXT,
        output TEXT,
        truncated INTEGER NOT NULL DEFAULT 0,
        metadata_json TEXT,
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        duration_ms INTEGER,
        PRIMARY KEY (session_id, call_id)
      )`,
      `CREATE INDEX calls_ordinal ON calls (session_id, ordinal)`,
      // Recovery looks for calls left running; this index holds only those few rows.
      `CREATE INDEX calls_running ON calls (session_id) WHERE status = 'running'`,
      `CREATE TABLE call_attempts (
        session_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'error', 'blocked', 'indeterminate', 'cancelled')),
        output TEXT,
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        duration_ms INTEGER,
        PRIMARY KEY (session_id, call_id, attempt)
      )`,
      `CREATE TABLE events (
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        json TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
      )`,
      `CREATE TABLE recovery_notices (
        session_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        delivered INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (session_id, call_id, attempt)
      )`,
    ],
  },
  {
    version: 2,
    description: 'work state (plan, todos, goal) and memories',
    statements: [
      `CREATE TABLE plans (
        session_id TEXT PRIMARY KEY REFERENCES sessions(id),
        text TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      )`,
      `CREATE TABLE todos (
        session_id TEXT NOT NULL REFERENCES sessions(id),
        id TEXT NOT NULL,
        content TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed', 'cancelled')),
        position INTEGER NOT NULL,
        PRIMARY KEY (session_id, id)
      )`,
      `CREATE TABLE goals (
        session_id TEXT PRIMARY KEY REFERENCES sessions(id),
        text TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('active', 'achieved', 'abandoned')),
        updated_at INTEGER NOT NULL
      )`,
      `CREATE TABLE memories (
        id TEXT PRIMARY KEY,
        text TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('proposed', 'accepted')),
        created_at INTEGER NOT NULL,
        accepted_at INTEGER,
        source_session_id TEXT
      )`,
    ],
  },
  {
    version: 3,
    description: 'token usage of every model request',
    statements: [
      // One row per model request, in order; `estimated` marks counts Zuno made up at chars/4
      // because the server reported none (issue 10 item 1).
      `CREATE TABLE model_requests (
        session_id TEXT NOT NULL REFERENCES sessions(id),
        seq INTEGER NOT NULL,
        model TEXT,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cached_tokens INTEGER NOT NULL DEFAULT 0,
        cache_write_tokens INTEGER NOT NULL DEFAULT 0,
        estimated INTEGER NOT NULL DEFAULT 0,
        context_window INTEGER,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (session_id, seq)
      )`,
    ],
  },
  {
    version: 4,
    description:
      'one session per database (issue 9); an output is kept once, in its call row (the latest attempt and a tool result in the transcript refer to it)',
    statements: [
      // Each output is stored once: CallAttemptRow.output of the latest attempt is read from calls.
      `UPDATE call_attempts SET output = NULL
       WHERE output IS NOT NULL AND output = (
         SELECT c.output FROM calls c WHERE c.session_id = call_attempts.session_id AND c.call_id = call_attempts.call_id AND c.attempt = call_attempts.attempt
       )`,
    ],
  },
  {
    version: 5,
    description:
      'outputs and transcript messages of 1 KiB or more may be kept deflated, as a BLOB (packed-text.ts); a Zuno that knows only TEXT must not read them',
    // Nothing to convert: TEXT values stay readable, and new writes pack from here on.
    statements: [],
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
