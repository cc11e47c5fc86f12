/**
 * An error addressed to the model: its message says what went wrong and what to do next.
 * Tools throw it for failures the model can act on; the scheduler turns it into an `error`
 * outcome with exactly this text, while any other thrown error is reported with its type.
 */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

/** A configuration value that is out of range or unknown; the message names the key. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** The tool runtime cannot start (for example ripgrep is missing or too old, SPEC S4). */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/**
 * A failure that may pass on its own (connection reset, timeout, HTTP 5xx). Only tools whose
 * replay policy is Safe are tried again after one (SPEC R2); for Never it is an ordinary error.
 */
export class TransientError extends Error {
  override readonly name = 'TransientError';
}

/**
 * A running tool met something permission refuses (a webfetch redirect to a denied URL): the
 * call ends `blocked` with this category, and the message names what was refused. Tools never
 * decide this themselves; they throw it after `ToolContext.authorize` said deny or ask. The
 * refused step never ran, though earlier steps of the call did.
 */
export class BlockedError extends Error {
  override readonly name = 'BlockedError';
  readonly category = 'denied';
}
