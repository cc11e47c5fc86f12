/**
 * A delegated task followed inside its parent's card (issue 14 item 3). The child agent runs in a
 * session of its own; its events reach the view with that session's id, and the parent's
 * `delegation-started` says which `task` call they belong to. They are reduced here into the
 * task card's list of child calls, never into top-level cards: the child numbers its calls in its
 * own session, so its ids can equal the parent's (both may say `call_1_0`).
 *
 * DOM-free, unit-tested in node; media/delegation-view.ts draws it.
 */
import type { ZunoEvent } from '../src/core/events';
import type { BlockedCategory, OutcomeKind } from '../src/core/outcome';
import type { ToolState } from './transcript';
import { appendOutput, type CallOutput } from './call-output';

/** A child call, with its output kept and capped as a top-level card's is, to be read when expanded. */
export interface ChildCallItem extends CallOutput {
  readonly callId: string;
  tool: string;
  argumentsText: string;
  subject?: string;
  state: ToolState;
  outcome?: OutcomeKind;
  category?: BlockedCategory;
  /** The user's decision on the child's approval, once made. */
  approved?: boolean;
  /** The exit code of a command that ran to its end. */
  exitCode?: number;
  /** The runtime truncated the result to its output cap (SPEC O1). */
  truncated: boolean;
}

export interface Delegation {
  readonly childSessionId: string;
  readonly agent: string;
  /** The child's calls in the order it made them. */
  readonly calls: ChildCallItem[];
  /** How the child's run ended (its `session-finished`); undefined while it works. */
  ended?: Extract<ZunoEvent, { type: 'session-finished' }>['reason'];
  /** The child's last answer, which is what the parent reads. */
  answer?: string;
}

export function startDelegation(childSessionId: string, agent: string): Delegation {
  return { childSessionId, agent, calls: [] };
}

function childCall(delegation: Delegation, callId: string, tool: string | undefined): ChildCallItem {
  let call = delegation.calls.find((candidate) => candidate.callId === callId);
  if (call === undefined) {
    call = {
      callId,
      tool: tool ?? '',
      argumentsText: '',
      state: 'requested',
      output: '',
      droppedOutputChars: 0,
      outputLines: 0,
      truncated: false,
    };
    delegation.calls.push(call);
  } else if (tool !== undefined && call.tool === '') call.tool = tool;
  return call;
}

/** Applies one of the child session's events; returns whether anything the card shows changed. */
export function applyChildEvent(delegation: Delegation, event: ZunoEvent): boolean {
  switch (event.type) {
    case 'tool-call-requested':
      childCall(delegation, event.call_id, event.tool).argumentsText = event.arguments;
      return true;
    case 'approval-requested': {
      const call = childCall(delegation, event.call_id, event.tool);
      if (event.subject !== undefined) call.subject = event.subject;
      if (call.state !== 'finished') call.state = 'awaiting-approval';
      return true;
    }
    case 'approval-resolved': {
      const call = childCall(delegation, event.call_id, event.tool);
      call.approved = event.approved;
      if (call.state === 'awaiting-approval' && event.approved) call.state = 'approved';
      return true;
    }
    case 'tool-call-started': {
      const call = childCall(delegation, event.call_id, event.tool);
      if (call.state !== 'finished') call.state = 'running';
      return true;
    }
    case 'tool-call-output':
      appendOutput(childCall(delegation, event.call_id, undefined), event.chunk);
      return true;
    case 'dispatch-blocked':
    case 'tool-call-finished': {
      const call = childCall(delegation, event.call_id, event.tool);
      call.state = 'finished';
      call.outcome = event.type === 'dispatch-blocked' ? 'blocked' : event.outcome;
      if (event.category !== undefined) call.category = event.category;
      if (event.type === 'tool-call-finished') {
        call.truncated = event.truncated;
        if (event.exit_code !== undefined) call.exitCode = event.exit_code;
      }
      return true;
    }
    case 'assistant-message':
      delegation.answer = event.text;
      return true;
    case 'session-finished':
      delegation.ended = event.reason;
      // As for the parent's own cards: a call cut off by the end of its run did not finish.
      for (const call of delegation.calls) {
        if (call.state === 'finished') continue;
        call.outcome = call.state === 'running' || call.state === 'awaiting-answer' ? 'indeterminate' : 'cancelled';
        call.state = 'finished';
      }
      return true;
    default:
      return false;
  }
}

/** A pending approval of a child call (it reaches the view apart from the child's events). */
export function noteChildApproval(delegation: Delegation, callId: string, tool: string, subject: string | undefined): void {
  const call = childCall(delegation, callId, tool);
  if (subject !== undefined) call.subject = subject;
  if (call.state !== 'finished') call.state = 'awaiting-approval';
}

/** What the child is doing now: its latest call that has not finished, else its latest call. */
export function currentChildCall(delegation: Delegation): ChildCallItem | undefined {
  for (let index = delegation.calls.length - 1; index >= 0; index -= 1) {
    const call = delegation.calls[index];
    if (call !== undefined && call.state !== 'finished') return call;
  }
  return delegation.calls.at(-1);
}

const CHILD_STATE_LABELS: Record<ToolState, string> = {
  requested: 'Queued',
  'awaiting-approval': 'Waiting for approval',
  'awaiting-answer': 'Waiting for an answer',
  approved: 'Approved, starting',
  running: 'Running',
  finished: 'Finished',
};

const CHILD_OUTCOME_LABELS: Record<OutcomeKind, string> = {
  ok: 'Done',
  error: 'Failed',
  cancelled: 'Cancelled',
  indeterminate: 'Indeterminate',
  blocked: 'Not run — blocked',
};

/** A child call's status in the words of the parent's cards. */
export function childCallLabel(call: ChildCallItem): string {
  if (call.outcome === undefined) return CHILD_STATE_LABELS[call.state];
  if (call.outcome === 'blocked' && call.category !== undefined) return `${CHILD_OUTCOME_LABELS.blocked}: ${call.category}`;
  return CHILD_OUTCOME_LABELS[call.outcome];
}

/**
 * What the call acted on, in one short line: its path, command, URL or pattern as the model wrote
 * it (a workspace-relative path, where the policy's subject is absolute), else the policy's subject.
 */
export function childCallSubject(call: ChildCallItem, maxLength = 80): string {
  let text = '';
  try {
    const args: unknown = JSON.parse(call.argumentsText);
    if (args !== null && typeof args === 'object') {
      const record = args as Record<string, unknown>; // checked above: an object
      const value = ['path', 'command', 'url', 'pattern', 'query'].map((key) => record[key]).find((found) => typeof found === 'string');
      if (typeof value === 'string') text = value;
    }
  } catch {
    // Arguments the model sent as something other than JSON (or none yet): the subject, if any.
  }
  if (text === '') text = call.subject ?? '';
  text = text.replace(/\s+/g, ' ').trim();
  return text.length <= maxLength ? text : `${text.slice(0, maxLength - 1)}…`;
}

const ENDINGS: Record<NonNullable<Delegation['ended']>, string> = {
  done: 'finished',
  'step-limit': 'stopped at its step limit: its goal may be incomplete',
  cancelled: 'was cancelled before it finished',
  error: 'stopped with an error',
};

/**
 * The task card's line about its child: what it is doing now while it works ("Now: write
 * CHANGELOG.md — Waiting for approval"), how it ended once it has.
 */
export function delegationActivity(delegation: Delegation): string {
  const count = delegation.calls.length;
  const calls = `${count} call${count === 1 ? '' : 's'}`;
  if (delegation.ended !== undefined) return `The delegated agent (${delegation.agent}) made ${calls} and ${ENDINGS[delegation.ended]}.`;
  const current = currentChildCall(delegation);
  if (current === undefined) return `The delegated agent (${delegation.agent}) is thinking…`;
  const subject = childCallSubject(current);
  return `Now: ${current.tool || 'tool'}${subject === '' ? '' : ` ${subject}`} — ${childCallLabel(current)}`;
}
