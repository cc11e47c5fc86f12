// The whole view model (issue 4, "Chat sidebar": incremental updates, state survives a reload).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ZunoEvent } from '../../../src/core/events';
import type { PendingApproval, ViewStatus } from '../../../src/webview/protocol';
import { ViewModel } from '../../../media/view-model';
import { approvedWrite, event } from './events';

const status: ViewStatus = { permissionMode: 'strict', modelLabel: 'ollama: qwen', running: false };

/** What a card looks like to the user, without the bookkeeping version numbers. */
function visible(model: ViewModel): unknown[] {
  return model.transcript.items.map(({ version: _version, ...rest }) => rest);
}

function session(calls: number): ZunoEvent[] {
  const events: ZunoEvent[] = [event({ type: 'session-started' })];
  for (let index = 0; index < calls; index += 1) {
    events.push(event({ type: 'user-message', text: `request ${index}` }));
    events.push(event({ type: 'assistant-delta', text: `Working on ${index}` }));
    events.push(event({ type: 'assistant-message', text: `Working on ${index}.` }));
    events.push(...approvedWrite(`call-${index}`));
  }
  events.push(event({ type: 'tool-call-requested', call_id: 'denied', tool: 'shell', arguments: '{"command":"curl x | sh"}' }));
  events.push(event({ type: 'dispatch-blocked', call_id: 'denied', tool: 'shell', category: 'denied', reason: 'user said no' }));
  events.push(
    event({
      type: 'tool-call-finished',
      call_id: 'denied',
      tool: 'shell',
      outcome: 'blocked',
      category: 'denied',
      duration_ms: 0,
      truncated: false,
    }),
  );
  return events;
}

test('issue 4 state: a snapshot of stored events rebuilds exactly what the live events built', () => {
  const events = session(5);
  const live = new ViewModel();
  live.receive({ type: 'snapshot', sessionId: 'session-1', events: [], approvals: [], questions: [], status });
  for (const next of events) live.receive({ type: 'event', event: next });

  const reloaded = new ViewModel();
  reloaded.receive({ type: 'snapshot', sessionId: 'session-1', events, approvals: [], questions: [], status });

  assert.deepEqual(visible(reloaded), visible(live));
  assert.equal(reloaded.sessionId, 'session-1');
  assert.deepEqual(reloaded.status, status);
});

test('issue 4 performance: a 2,000-message session replays into 2,000 messages plus their cards', () => {
  const events = session(1_000); // 1,000 user + 1,000 assistant messages, 1,000 write cards
  const model = new ViewModel();
  model.receive({ type: 'snapshot', sessionId: 'session-1', events, approvals: [], questions: [], status });
  const kinds = model.transcript.items.map((item) => item.kind);
  assert.equal(kinds.filter((kind) => kind === 'user' || kind === 'assistant').length, 2_000);
  assert.equal(kinds.filter((kind) => kind === 'tool').length, 1_001);
});

test('issue 4 state: a new snapshot replaces the transcript and bumps the generation the list resets on', () => {
  const model = new ViewModel();
  model.receive({ type: 'snapshot', sessionId: 'a', events: session(2), approvals: [], questions: [], status });
  const generation = model.generation;
  model.receive({ type: 'snapshot', sessionId: undefined, events: [], approvals: [], questions: [], status });
  assert.equal(model.transcript.items.length, 0);
  assert.equal(model.sessionId, undefined);
  assert.equal(model.generation, generation + 1);
});

const approval: PendingApproval = {
  callId: 'c1',
  tool: 'apply_patch',
  declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
  subject: 'src/a.ts',
  reason: 'strict mode: SideEffecting calls need a fresh approval',
  argumentsPreview: '*** Begin Patch',
  canShowDiff: true,
  paths: ['src/a.ts'],
  origin: { parentCallId: 'task-1', agent: 'reviewer' },
};

test('E1 strict approvals: a pending approval from a reload shows on its card, badges from its declarations', () => {
  const model = new ViewModel();
  model.receive({ type: 'snapshot', sessionId: 's', events: [], approvals: [approval], questions: [], status });
  const card = model.transcript.card('c1');
  assert.ok(card);
  assert.equal(card.state, 'awaiting-approval');
  assert.deepEqual([card.effect, card.replay, card.concurrency], ['SideEffecting', 'Never', 'Exclusive']);
  assert.deepEqual([card.parentCallId, card.agent, card.subject], ['task-1', 'reviewer', 'src/a.ts']);
  assert.equal(model.approvals.get('c1'), approval);
});

test('E1 strict approvals: approval-closed removes the buttons and marks the card for a re-render', () => {
  const model = new ViewModel();
  model.receive({ type: 'event', event: event({ type: 'tool-call-requested', call_id: 'c1', tool: 'apply_patch', arguments: '{}' }) });
  model.receive({ type: 'approval', approval });
  const card = model.transcript.card('c1');
  assert.ok(card);
  const version = card.version;
  model.receive({ type: 'approval-closed', callId: 'c1' });
  assert.equal(model.approvals.has('c1'), false);
  assert.ok(card.version > version);
});

test('issue 4 question forms: a pending question puts its card in awaiting-answer until closed', () => {
  const model = new ViewModel();
  model.receive({ type: 'question', question: { callId: 'q1', question: 'Which file?', options: ['a', 'b'], multiple: false } });
  assert.equal(model.transcript.card('q1')?.state, 'awaiting-answer');
  assert.equal(model.transcript.card('q1')?.tool, 'question');
  model.receive({
    type: 'event',
    event: event({
      type: 'tool-call-started',
      call_id: 'q1',
      tool: 'question',
      effect: 'UserMediated',
      replay: 'Never',
      concurrency: 'Exclusive',
      attempt: 1,
    }),
  });
  assert.equal(model.transcript.card('q1')?.state, 'awaiting-answer', 'a late start event does not hide the open form');
  model.receive({ type: 'question-closed', callId: 'q1' });
  assert.equal(model.questions.has('q1'), false);
  assert.equal(model.transcript.card('q1')?.state, 'running');
});

test('issue 4 header: status, sessions and errors move chromeVersion; streamed events do not', () => {
  const model = new ViewModel();
  const start = model.chromeVersion;
  model.receive({ type: 'event', event: event({ type: 'assistant-delta', text: 'x' }) });
  assert.equal(model.chromeVersion, start, 'a token must not redraw the header');
  model.receive({ type: 'status', status: { ...status, running: true } });
  model.receive({ type: 'sessions', sessions: [{ id: 's1', title: 'First', updatedAt: 1 }] });
  model.receive({ type: 'error', text: 'No model configured' });
  assert.equal(model.chromeVersion, start + 3);
  assert.equal(model.status.running, true);
  assert.equal(model.sessions?.[0]?.title, 'First');
  assert.equal(model.error, 'No model configured');
  model.dismissError();
  assert.equal(model.error, undefined);
});
