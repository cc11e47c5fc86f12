/**
 * The store's errors. Each message names the file, the line or the row involved and says what
 * to do, because these reach people through `zuno exec` exit code 2 and through the editor.
 */
import { ToolError } from '../core/errors';

/** The SQLite engine (wasm) cannot be found or loaded. */
export class StoreStartupError extends Error {
  override readonly name = 'StoreStartupError';
}

/** A snapshot or journal that cannot be read back: the message names the file and the line. */
export class StoreCorruptError extends Error {
  override readonly name = 'StoreCorruptError';
}

/** Another live process holds the state dir's write lock (one writer, SPEC-adjacent: OpenCode's SQLITE_BUSY). */
export class StateDirInUseError extends Error {
  override readonly name = 'StateDirInUseError';
  constructor(
    message: string,
    readonly ownerPid: number,
  ) {
    super(message);
  }
}

/**
 * A call the store refuses: writing to a read-only or closed store, an unknown session, or a
 * ledger sequence that would break at-most-once (starting a call that already ran).
 */
export class StoreUsageError extends Error {
  override readonly name = 'StoreUsageError';
}

/**
 * Invalid work state or memory input (unknown todo id, bad status, duplicate id). It is a
 * ToolError, so a work-state tool can let it through and the model reads exactly this text.
 */
export class WorkStateError extends ToolError {}
