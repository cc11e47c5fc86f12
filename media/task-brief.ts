// A delegated task opened from the history (issue 14 item 10): its goal is the brief the agent got.
import { actionButton, element } from './dom';

/** The goal as the task's brief, naming who gave it, instead of a "You" message the user never typed. */
export function taskBrief(goal: string, origin: { readonly agent: string; readonly parentSessionId: string }): HTMLElement {
  return element(
    'article',
    { className: 'message task-brief', attributes: { 'data-testid': 'task-brief' } },
    element(
      'div',
      { className: 'message-author' },
      element('span', { text: `Task for the ${origin.agent} agent, delegated by another chat · ` }),
      actionButton(
        'Open that chat',
        'open-session',
        { 'data-session-id': origin.parentSessionId, 'data-testid': 'open-parent' },
        'link-button',
      ),
    ),
    element('div', { className: 'message-body plain', text: goal }),
  );
}
