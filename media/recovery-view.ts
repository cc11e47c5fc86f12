/**
 * The recovery card (issue 14 item 11): after Zuno stopped mid-run, one card says in plain words
 * which calls were cut off and that none is re-run, offers Resume, and keeps the model-facing
 * recovery notice under Details instead of showing it raw.
 */
import { actionButton, element } from './dom';
import { cutOffCall, recoveryHeadline } from './recovery-format';
import type { RecoveryItem, ToolItem } from './transcript';

/** Text with `backticked` parts as code elements; every part goes in as text, never as markup. */
function withCode(text: string): HTMLElement[] {
  return text.split('`').map((part, index) => element(index % 2 === 1 ? 'code' : 'span', { text: part }));
}

/** What the user can do now, or what they did. */
function nextStep(item: RecoveryItem, cutOff: number): string {
  if (item.resumed) return 'Resumed: Zuno was told what was cut off and continued.';
  const check =
    cutOff === 0 ? '' : cutOff === 1 ? 'Its effect may or may not have happened. ' : 'Their effects may or may not have happened. ';
  return item.resumable ? `${check}Resume to let Zuno continue, or send a message.` : `${check}The chat continued after this.`;
}

export function recoveryCard(item: RecoveryItem, card: (callId: string) => ToolItem | undefined): HTMLElement {
  const calls = item.callIds.map((callId) => card(callId)).filter((found): found is ToolItem => found !== undefined);
  const node = element(
    'div',
    { className: 'recovery-card', attributes: { 'data-testid': 'recovery-card', role: 'status' } },
    element('div', { className: 'recovery-headline' }, ...withCode(recoveryHeadline(calls.map(cutOffCall)))),
    element('div', { className: 'recovery-next', text: nextStep(item, calls.length) }),
  );
  if (item.resumable)
    node.append(
      actionButton('Resume', 'resume', { 'data-testid': 'resume', title: 'Continue this chat from where Zuno stopped' }, 'button primary'),
    );
  if (item.noticeText !== undefined)
    node.append(
      element(
        'details',
        { className: 'recovery-details' },
        element('summary', { text: 'What Zuno was told' }),
        element('pre', { className: 'recovery-notice-text', text: item.noticeText, attributes: { 'data-testid': 'recovery-notice' } }),
      ),
    );
  return node;
}
