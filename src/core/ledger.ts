/**
 * What the scheduler needs from persistence. The sql.js store (`src/store`) implements it; the
 * core only knows this interface, so it stays free of fs and of the database.
 */
import type { Declarations } from './declarations';
import type { BlockedCategory, OutcomeKind } from './outcome';
import type { ZunoEvent } from './events';

export interface CallStart {
  readonly sessionId: string;
  readonly callId: string;
  /**
   * The model turn (step) the call belongs to. With `position` it orders a session's calls as
   * the model gave them (C2), even when a blocked call is recorded before an earlier call
   * starts. It must grow over the whole session, resumed runs included. When absent, the store
   * takes the transcript position of the assistant message that asked for the call (the agent
   * loop appends it before running the calls).
   */
  readonly turn?: number;
  /** Position in the model's turn; results are persisted and returned in this order (C2). */
  readonly position: number;
  readonly tool: string;
  /** The arguments as the model sent them (raw JSON text). */
  readonly argumentsJson: string;
  readonly declarations: Declarations;
  readonly attempt: number;
  readonly parentCallId?: string;
  readonly startedAt: number;
}

export interface CallFinish {
  readonly sessionId: string;
  readonly callId: string;
  readonly outcome: OutcomeKind;
  readonly category?: BlockedCategory;
  /** Model-facing text, after output caps. */
  readonly output: string;
  readonly truncated: boolean;
  readonly attempt: number;
  readonly finishedAt: number;
  readonly durationMs: number;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export interface CallLedger {
  /**
   * Records that a call is about to run. When the returned promise resolves, the record is
   * durable on disk: a crash after this point leaves a `running` row that recovery turns into
   * `indeterminate` (SPEC R3). The scheduler awaits it before a Never-replay effect begins.
   * A Safe call retried after a transient failure is started again with the next `attempt`
   * (same call id); each attempt is kept, and `recordFinish` follows only the last.
   */
  recordStart(start: CallStart): Promise<void>;
  /**
   * Records a call that never started, in one step: a blocked call (B2), or one cancelled before
   * it began, or one refused because its start could not be recorded. `finish.outcome` says
   * which (`blocked` with its category, `cancelled`, `error`); no `recordStart` precedes it.
   */
  recordBlocked(start: CallStart, finish: CallFinish): Promise<void>;
  /** Records the one final outcome of a call (I5). */
  recordFinish(finish: CallFinish): Promise<void>;
  /** Persists an event (append-only). */
  recordEvent(event: ZunoEvent): void;
}
