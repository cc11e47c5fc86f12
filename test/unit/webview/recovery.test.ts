// Issue 14 item 11: after a reload mid-run, one recovery card in plain words with Resume, instead
// of "Cancelled: Interrupted…", "Session resumed." and the raw model-facing recovery notice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cutOffCall, recoveryHeadline } from '../../../media/recovery-format';
import { ViewModel } from '../../../media/view-model';
import type { ZunoEvent } from '../../../src/core/events';
import { RESUME_PROMPT } from '../../../src/webview/recovery-words';
import { event } from './events';

/** A run cut off while `npm test` ran, as the store keeps it. */
const cutOff: ZunoEvent[] = [
  event({ type: 'session-started' }),
  event({ type: 'user-message', text: 'Fix the failing test' }),
  event({ type: 'tool-call-requested', call_id: 'call_14_0', tool: 'shell', arguments: '{"command":"npm test"}' }),
  event({
    type: 'tool-call-started',
    call_id: 'call_14_0',
    tool: 'shell',
    effect: 'SideEffecting',
    replay: 'Never',
    concurrency: 'Exclusive',
    attempt: 1,
  }),
];
const NOTICE = 'RECOVERY NOTICE: call_14_0 (shell) was interrupted; its outcome is indeterminate.';
/** What the resumed run adds: the runtime's notice, then the prompt Resume sent. */
const resumed: ZunoEvent[] = [
  event({ type: 'session-started', resumed: true }),
  event({ type: 'recovery-notice', call_id: 'call_14_0', attempt: 1, tool: 'shell', text: NOTICE }),
  event({ type: 'user-message', text: RESUME_PROMPT }),
  event({ type: 'assistant-message', text: 'The test passes now.' }),
];

const snapshot = (events: readonly ZunoEvent[], interrupted: boolean) => ({
  type: 'snapshot' as const,
  sessionId: 's1',
  events,
  approvals: [],
  questions: [],
  status: { permissionMode: 'strict', modelLabel: 'm', running: false },
  ...(interrupted ? { interrupted } : {}),
});

test('issue 14 item 11: a reload mid-run shows one recovery card naming the call cut off, with Resume, and nothing else about it', () => {
  const model = new ViewModel();
  model.receive(snapshot(cutOff, true));
  const kinds = model.transcript.items.map((item) => item.kind);
  assert.deepEqual(kinds, ['user', 'tool', 'recovery']);
  const recovery = model.transcript.items[2];
  assert.ok(recovery?.kind === 'recovery');
  assert.deepEqual(recovery.callIds, ['call_14_0']);
  assert.equal(recovery.resumable, true);
  assert.equal(model.transcript.card('call_14_0')?.outcome, 'indeterminate', 'the call is not shown as still running');
  const card = model.transcript.card('call_14_0');
  assert.ok(card);
  assert.equal(recoveryHeadline([cutOffCall(card)]), 'Zuno stopped while `npm test` was running; it was not re-run.');
});

test('issue 14 item 11: Resume folds the runtime notice and its own prompt into the same card: no raw notice, no "Session resumed.", no made-up user message', () => {
  const model = new ViewModel();
  model.receive(snapshot(cutOff, true));
  for (const live of resumed) model.receive({ type: 'event', event: live });
  const kinds = model.transcript.items.map((item) => item.kind);
  assert.deepEqual(kinds, ['user', 'tool', 'recovery', 'assistant']);
  const recovery = model.transcript.items[2];
  assert.ok(recovery?.kind === 'recovery');
  assert.equal(recovery.resumed, true);
  assert.equal(recovery.resumable, false, 'Resume is offered once');
  assert.equal(recovery.noticeText, NOTICE, 'what the model was told stays available under Details');

  // Reloaded later: the stored events alone draw the same single card.
  const later = new ViewModel();
  later.receive(snapshot([...cutOff, ...resumed], false));
  assert.deepEqual(
    later.transcript.items.map((item) => item.kind),
    ['user', 'tool', 'recovery', 'assistant'],
  );
  const again = later.transcript.items[2];
  assert.ok(again?.kind === 'recovery' && again.resumed && !again.resumable);
});

test('issue 14 item 11: a message typed instead of Resume is the user message it is; the card stops offering Resume', () => {
  const model = new ViewModel();
  model.receive(snapshot(cutOff, true));
  for (const live of [...resumed.slice(0, 2), event({ type: 'user-message', text: 'What happened?' })])
    model.receive({ type: 'event', event: live });
  const recovery = model.transcript.items[2];
  assert.ok(recovery?.kind === 'recovery' && !recovery.resumable && !recovery.resumed);
  const typed = model.transcript.items[3];
  assert.ok(typed?.kind === 'user' && typed.text === 'What happened?');
  // The resume prompt typed later, with no recovery card open, is shown like any message.
  model.receive({ type: 'event', event: event({ type: 'user-message', text: RESUME_PROMPT }) });
  assert.equal(model.transcript.items.at(-1)?.kind, 'user');
});

test('issue 14 item 11: the headline names what was cut off in plain words', () => {
  assert.equal(recoveryHeadline([]), 'Zuno stopped before it finished (the window was closed or reloaded).');
  assert.equal(
    recoveryHeadline(['npm test', 'write a.txt', 'shell b', 'c', 'd']),
    'Zuno stopped while 5 calls were running (`npm test`, `write a.txt`, `shell b` and 2 more); they were not re-run.',
  );
  assert.equal(cutOffCall({ tool: 'write', argumentsText: '{"path":"a.txt","content":"x"}', subject: 'a.txt' }), 'write a.txt');
  assert.equal(cutOffCall({ tool: 'shell', argumentsText: 'not json' }), 'shell not json');
});
