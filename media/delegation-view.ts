/**
 * Draws a delegated task inside its card (issue 14 item 3): a line saying what the child is doing
 * (or how it ended), then its calls, one line each, with a pending approval's form right under
 * the call it is about. Text goes in through `textContent` (media/dom.ts).
 */
import { childCallLabel, childCallSubject, delegationActivity, type Delegation } from './delegation';
import { element } from './dom';

/** `approvalFor(callId)`: the approval form of a child call that waits for the user, if any. */
export function renderDelegation(delegation: Delegation, approvalFor: (callId: string) => HTMLElement | undefined): HTMLElement {
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
  for (const call of delegation.calls) {
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
        approvalFor(call.callId),
      ),
    );
  }
  box.append(list);
  return box;
}
