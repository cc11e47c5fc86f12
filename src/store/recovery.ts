/**
 * Crash recovery text (SPEC R3). A call found `running` when a session resumes may or may not
 * have had its effect. The model is told so in a notice built from the stored rows, never
 * from transcript prose, and is told to look at the real state before changing anything.
 */

/** The output stored on a call that recovery turned `indeterminate`. */
export const INTERRUPTED_OUTPUT =
  'The process stopped while this call was running; its effect may or may not have happened. It was not re-run.';

/** One call that was running when the previous process stopped, as stored. */
export interface RecoveryNotice {
  readonly sessionId: string;
  readonly callId: string;
  readonly tool: string;
  /** A short, one-line rendering of the call's arguments. */
  readonly argumentSummary: string;
  /** The attempt that was running (1 for the first try). */
  readonly attempt: number;
  readonly startedAt: number;
  /** When recovery found it. */
  readonly recoveredAt: number;
}

/** Cuts `text` to at most `max` characters with an ellipsis, never splitting a surrogate pair. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(clip(value, 80));
  if (value === null || typeof value !== 'object') return String(value);
  return clip(JSON.stringify(value), 60);
}

/**
 * Renders the raw argument JSON as `key=value, …` on one line, at most `max` characters. Text
 * that is not JSON (a model's malformed arguments) is shown clipped, marked as such.
 */
export function summarizeArguments(argumentsJson: string, max = 200): string {
  let value: unknown;
  try {
    value = JSON.parse(argumentsJson);
  } catch {
    return clip(`(not valid JSON) ${argumentsJson.replace(/\s+/g, ' ')}`, max);
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const pairs = Object.entries(value).map(([key, item]) => `${key}=${renderValue(item)}`);
    return clip(pairs.length > 0 ? pairs.join(', ') : '(no arguments)', max);
  }
  return clip(renderValue(value), max);
}

/**
 * The model-facing recovery notice for the given rows: each call with its tool, arguments and
 * attempt, the indeterminate outcome, the promise of no automatic retry, and the instruction
 * to check the authoritative state first. Returns '' for no rows.
 */
export function recoveryNoticeText(notices: readonly RecoveryNotice[]): string {
  if (notices.length === 0) return '';
  const one = notices.length === 1;
  const lines = notices.map(
    (notice) =>
      `- call ${notice.callId}: tool "${notice.tool}" with ${notice.argumentSummary}; attempt ${notice.attempt}; outcome: indeterminate.`,
  );
  return [
    `RECOVERY NOTICE (from the session store): the previous run of this session stopped while ${one ? 'this tool call was' : `these ${notices.length} tool calls were`} running:`,
    ...lines,
    `The outcome of ${one ? 'this call' : 'each of these calls'} is INDETERMINATE: its effect may or may not have happened before the process stopped. ` +
      `${one ? 'It was' : 'They were'} NOT retried and will NOT be retried automatically.`,
    'Before any new mutation, check the authoritative state (for example read the file, list the running processes, or run `git status`), ' +
      'then decide from what you find. If an effect is missing and still wanted, make a new call yourself.',
  ].join('\n');
}
