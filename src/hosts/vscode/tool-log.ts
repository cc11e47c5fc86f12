/**
 * One line per tool-call event for the "Zuno" log channel (the Open Tool Log command), with no
 * `vscode` import. Every call appears from request to outcome, including approvals and blocks,
 * so a user can audit what ran, what was refused and why, outside the chat.
 */
import type { ZunoEvent } from '../../core/events';

/** Arguments longer than this are cut in the log; the store keeps them whole. */
const ARGUMENTS_LIMIT = 2000;

const clip = (text: string, limit: number): string =>
  text.length > limit ? `${text.slice(0, limit)}… (${text.length - limit} more characters)` : text;

/** The log line for an event, or undefined for events that are not about tool calls. */
export function toolLogLine(event: ZunoEvent): string | undefined {
  const session = event.session_id.slice(0, 8);
  const call = 'call_id' in event ? `${session}/${event.call_id}` : session;
  switch (event.type) {
    case 'tool-call-requested':
      return `${call} ${event.tool} requested ${clip(event.arguments, ARGUMENTS_LIMIT)}`;
    case 'approval-requested':
      return `${call} ${event.tool} waits for approval${event.subject !== undefined ? ` (${event.subject})` : ''}${event.parent_call_id ? ` from child of ${event.parent_call_id}` : ''}`;
    case 'approval-resolved':
      return `${call} ${event.tool} ${event.approved ? 'approved' : 'denied'} by the user${event.reason ? `: ${event.reason}` : ''}`;
    case 'dispatch-blocked':
      return `${call} ${event.tool} BLOCKED (${event.category}), not run: ${event.reason}`;
    case 'tool-call-started':
      return `${call} ${event.tool} started, attempt ${event.attempt} [${event.effect}, replay ${event.replay}, ${event.concurrency}]${event.parent_call_id ? ` for ${event.parent_call_id}` : ''}`;
    case 'tool-call-finished':
      return `${call} ${event.tool} finished: ${event.outcome}${event.category ? ` (${event.category})` : ''} in ${event.duration_ms} ms${event.truncated ? ', output truncated' : ''}`;
    case 'recovery-notice':
      return `${call} ${event.tool} recovery notice for attempt ${event.attempt}: the effect may have happened; it is not re-run`;
    default:
      return undefined;
  }
}
