// Builds events the way the runtime's EventBus stamps them, for the webview reducer tests.
import type { ZunoEvent, ZunoEventBody } from '../../../src/core/events';

let clock = 0;

export function event(body: ZunoEventBody, sessionId = 'session-1'): ZunoEvent {
  clock += 1;
  return { ...body, ts: clock, session_id: sessionId }; // the bus builds events exactly like this
}

/** A full, approved, successful `write` call: requested, approval, started, output, finished. */
export function approvedWrite(callId: string): ZunoEvent[] {
  return [
    event({ type: 'tool-call-requested', call_id: callId, tool: 'write', arguments: '{"path":"a.txt","content":"hi"}' }),
    event({ type: 'approval-requested', call_id: callId, tool: 'write', subject: 'a.txt' }),
    event({ type: 'approval-resolved', call_id: callId, tool: 'write', approved: true }),
    event({
      type: 'tool-call-started',
      call_id: callId,
      tool: 'write',
      effect: 'SideEffecting',
      replay: 'Never',
      concurrency: 'Exclusive',
      attempt: 1,
    }),
    event({ type: 'tool-call-output', call_id: callId, chunk: 'wrote 2 bytes\n' }),
    event({ type: 'tool-call-finished', call_id: callId, tool: 'write', outcome: 'ok', duration_ms: 12, truncated: false }),
  ];
}
