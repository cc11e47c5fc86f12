/**
 * Draws a delegated task inside its card (issue 14 item 3): a line saying what the child is doing
 * (or how it ended), then its calls, one line each, with a pending approval's form right under
 * the call it is about. Each call opens like a top-level card: exit code and last lines of a
 * command, and its arguments and output under a toggle. Text goes in through `textContent` (media/dom.ts).
 */
import { callDetails, shellResult } from './call-details';
import { childCallLabel, childCallSubject, delegationActivity, type Delegation } from './delegation';
import { element } from './dom';

/**
 * The key under which an open child call is remembered in `UiState.expanded`: a child numbers its
 * calls in its own session, so its ids can equal the parent's and need the task's id beside them.
 */
export const childDetailsKey = (taskCallId: string, childCallId: string): string => `child:${taskCallId}:${childCallId}`;

export interface DelegationDrawing {
  /** The task call whose card this is; the child's toggles name it so the card is redrawn. */
  readonly taskCallId: string;
  /** The approval form of a child call that waits for the user, if any. */
  readonly approvalFor: (callId: string) => HTMLElement | undefined;
  /** Whether the user opened the child call's output. */
  readonly isOpen: (callId: string) => boolean;
}

export function renderDelegation(delegation: Delegation, drawing: DelegationDrawing): HTMLElement {
  const box = element(
    'div',
    { className: 'delegation', attributes: { 'data-testid': 'delegation', 'data-child-session': delegation.childSessionId } },
    element('div', {
      className: 'delegation-activity',
      text: delegationActivity(delegation),
      attributes: { 'data-testid': 'child-activity', 'aria-live': 'polite' },
    }),
  );
  if (delegation.calls.length === 0) return box;
  const list = element('ol', {
    className: 'child-calls',
    attributes: { 'data-testid': 'child-calls', 'aria-label': 'Calls of the delegated agent' },
  });
  delegation.calls.forEach((call, index) => {
    const label = childCallLabel(call);
    const tone = call.outcome ?? (call.state === 'running' ? 'running' : 'pending');
    list.append(
      element(
        'li',
        {
          className: `child-call tone-${tone}`,
          attributes: {
            'data-testid': 'child-call',
            'data-call-id': call.callId,
            'data-tool': call.tool,
            'data-state': call.state,
            'data-outcome': call.outcome ?? '',
          },
        },
        element('span', { className: 'tool-name', text: call.tool || 'tool' }),
        element('span', { className: 'row-subject', text: childCallSubject(call) }),
        element('span', { className: 'tool-status', text: label, attributes: { 'data-testid': 'child-call-status' } }),
        drawing.approvalFor(call.callId),
        shellResult(call),
        ...callDetails(call, drawing.isOpen(call.callId), {
          action: 'toggle-child-details',
          // By position, not id: a model-made id is no safe CSS selector for restoring focus.
          attributes: { 'data-call-id': drawing.taskCallId, 'data-child-call-id': call.callId, 'data-focus-key': `toggle-child-${index}` },
        }),
      ),
    );
  });
  box.append(list);
  return box;
}
