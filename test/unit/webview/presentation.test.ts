// Card words and tones (issue 4 "Blocked cards", "Indeterminate cards"; SPEC B1-B3, R3, T1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BLOCKED_EXPLANATION,
  INDETERMINATE_EXPLANATION,
  NOT_STARTED_ERROR_EXPLANATION,
  badges,
  ICONS_USED,
  cardStatus,
  describeOrigin,
  formatArguments,
  formatDuration,
  summarizeArguments,
} from '../../../media/presentation';
import { outputLineCount } from '../../../media/call-output';
import { Transcript, type ToolItem } from '../../../media/transcript';
import { event } from './events';

function finished(
  outcome: 'ok' | 'error' | 'blocked' | 'indeterminate' | 'cancelled',
  category?: 'denied' | 'invalid_arguments' | 'unavailable',
): ToolItem {
  const transcript = new Transcript();
  transcript.apply(event({ type: 'tool-call-requested', call_id: 'c1', tool: 'shell', arguments: '{"command":"make"}' }));
  if (outcome === 'blocked' && category !== undefined) {
    transcript.apply(event({ type: 'dispatch-blocked', call_id: 'c1', tool: 'shell', category, reason: `reason for ${category}` }));
  }
  transcript.apply(
    event({
      type: 'tool-call-finished',
      call_id: 'c1',
      tool: 'shell',
      outcome,
      ...(category ? { category } : {}),
      duration_ms: 5,
      truncated: false,
    }),
  );
  const card = transcript.card('c1');
  assert.ok(card);
  return card;
}

for (const category of ['denied', 'invalid_arguments', 'unavailable'] as const) {
  test(`B2: a blocked (${category}) card reads "Not run — blocked: ${category}" with its reason and that nothing ran`, () => {
    const status = cardStatus(finished('blocked', category));
    assert.equal(status.tone, 'blocked');
    assert.equal(status.label, `Not run — blocked: ${category}`);
    assert.equal(status.explanation, `reason for ${category} ${BLOCKED_EXPLANATION}`);
  });
}

test('R3: an indeterminate card explains the effect may have happened and will not be retried', () => {
  const status = cardStatus(finished('indeterminate'));
  assert.equal(status.tone, 'indeterminate');
  assert.equal(status.explanation, 'The effect may have happened; it will not be retried automatically.');
  assert.equal(status.explanation, INDETERMINATE_EXPLANATION);
});

test('B3: error, cancelled, ok and blocked each have their own tone, so none passes for another', () => {
  const tones = [finished('ok'), finished('error'), finished('cancelled'), finished('indeterminate'), finished('blocked', 'denied')].map(
    (card) => cardStatus(card).tone,
  );
  assert.deepEqual(tones, ['ok', 'error', 'cancelled', 'indeterminate', 'blocked']);
  assert.equal(cardStatus(finished('error')).label, 'Failed');
  assert.equal(cardStatus(finished('cancelled')).label, 'Cancelled');
});

test('B3: an error card says it ran only when the call started; one that failed while being prepared says it did not run', () => {
  const notStarted = finished('error');
  assert.equal(notStarted.started, false);
  assert.deepEqual(cardStatus(notStarted), { tone: 'error', label: 'Failed', explanation: NOT_STARTED_ERROR_EXPLANATION });

  const transcript = new Transcript();
  transcript.apply(event({ type: 'tool-call-requested', call_id: 'c1', tool: 'apply_patch', arguments: '{}' }));
  transcript.apply(
    event({
      type: 'tool-call-started',
      call_id: 'c1',
      tool: 'apply_patch',
      effect: 'SideEffecting',
      replay: 'Never',
      concurrency: 'Exclusive',
      attempt: 1,
    }),
  );
  transcript.apply(
    event({ type: 'tool-call-finished', call_id: 'c1', tool: 'apply_patch', outcome: 'error', duration_ms: 3, truncated: false }),
  );
  const ran = transcript.card('c1');
  assert.ok(ran);
  assert.equal(ran.started, true);
  assert.deepEqual(cardStatus(ran), { tone: 'error', label: 'Failed', explanation: 'It ran and reported an error.' });
});

test('issue 4 tool cards: live states read as Queued, Waiting for approval, Running', () => {
  const transcript = new Transcript();
  transcript.apply(event({ type: 'tool-call-requested', call_id: 'c1', tool: 'write', arguments: '{}' }));
  const card = transcript.card('c1');
  assert.ok(card);
  assert.deepEqual(cardStatus(card), { tone: 'pending', label: 'Queued' });
  transcript.apply(event({ type: 'approval-requested', call_id: 'c1', tool: 'write' }));
  assert.deepEqual(cardStatus(card), { tone: 'pending', label: 'Waiting for approval' });
  transcript.apply(
    event({
      type: 'tool-call-started',
      call_id: 'c1',
      tool: 'write',
      effect: 'SideEffecting',
      replay: 'Never',
      concurrency: 'Exclusive',
      attempt: 2,
    }),
  );
  assert.deepEqual(cardStatus(card), { tone: 'running', label: 'Running' });
  assert.deepEqual(
    badges(card).map((badge) => [badge.kind, badge.text]),
    [
      ['effect', 'SideEffecting'],
      ['replay', 'replay: Never'],
      ['concurrency', 'Exclusive'],
      ['attempt', 'attempt 2'],
    ],
  );
  // issue 14 item 5: drawn as codicons, with the meaning in a tooltip that still names the declaration.
  for (const badge of badges(card)) {
    assert.match(badge.icon, /^[a-z-]+$/, `${badge.kind} is a codicon name, not words`);
    assert.ok(ICONS_USED.includes(badge.icon));
    assert.ok(badge.tooltip.trim() !== '', `${badge.kind} has a tooltip`);
  }
  assert.match(badges(card)[1]?.tooltip ?? '', /never run again automatically.*\(Never\)/);
});

test('T1: no badges are invented before the runtime says what the declarations are', () => {
  const transcript = new Transcript();
  transcript.apply(event({ type: 'tool-call-requested', call_id: 'c1', tool: 'mystery', arguments: '{}' }));
  const card = transcript.card('c1');
  assert.ok(card);
  assert.deepEqual(badges(card), []);
});

test('issue 4 tool cards: the argument summary leads with the subject and stays plain text', () => {
  assert.equal(summarizeArguments('{"timeout":5,"command":"npm test"}'), 'command: npm test, timeout: 5');
  assert.equal(
    summarizeArguments('{"path":"<img src=x onerror=alert(1)>"}'),
    'path: <img src=x onerror=alert(1)>',
    "escaping is the DOM's job: it goes in textContent",
  );
  assert.equal(summarizeArguments('not json\n at all'), 'not json at all');
  assert.equal(summarizeArguments(''), '');
  const long = summarizeArguments(JSON.stringify({ content: 'y'.repeat(1_000) }));
  assert.ok(long.length <= 160 && long.endsWith('…'));
  assert.equal(formatArguments('{"a":1}'), '{\n  "a": 1\n}');
  assert.equal(formatArguments('x'.repeat(10), 5), 'xxxx…');
});

test('issue 4 tool cards: durations and output line counts read naturally', () => {
  assert.deepEqual([formatDuration(12), formatDuration(1_500), formatDuration(125_000)], ['12 ms', '1.5 s', '2 min 5 s']);
  const transcript = new Transcript();
  transcript.apply(event({ type: 'tool-call-output', call_id: 'c1', chunk: 'one\ntwo\nthree' }));
  const card = transcript.card('c1');
  assert.ok(card);
  assert.equal(outputLineCount(card), 3);
});

test('issue 4 approvals: a delegated child call names its agent and parent call', () => {
  const transcript = new Transcript();
  transcript.noteApproval({
    callId: 'child',
    tool: 'write',
    declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
    reason: 'strict',
    argumentsPreview: '',
    canShowDiff: true,
    origin: { parentCallId: 'task-7', agent: 'explorer' },
  });
  const card = transcript.card('child');
  assert.ok(card);
  assert.equal(describeOrigin(card, 'task'), 'Delegated: requested by agent "explorer" under call task task-7');
  transcript.apply(event({ type: 'tool-call-requested', call_id: 'top', tool: 'read', arguments: '{}' }));
  const top = transcript.card('top');
  assert.ok(top);
  assert.equal(describeOrigin(top, undefined), undefined);
});
