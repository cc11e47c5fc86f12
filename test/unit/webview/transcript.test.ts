// The webview's transcript reducer (issue 4, "Chat sidebar"): events in, cards and messages out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OUTPUT_KEEP_CHARS } from '../../../media/call-output';
import { Transcript, type ToolItem } from '../../../media/transcript';
import { compactionLabel } from '../../../media/presentation';
import { approvedWrite, event } from './events';

function card(transcript: Transcript, callId: string): ToolItem {
  const found = transcript.card(callId);
  assert.ok(found, `no card for ${callId}`);
  return found;
}

test('issue 4 streaming: deltas append to one assistant message and assistant-message replaces them with the final text', () => {
  const transcript = new Transcript();
  transcript.apply(event({ type: 'user-message', text: 'hello' }));
  transcript.apply(event({ type: 'assistant-delta', text: 'Hel' }));
  transcript.apply(event({ type: 'assistant-delta', text: 'lo **the' }));
  const streaming = transcript.items[1];
  assert.equal(streaming?.kind, 'assistant');
  assert.deepEqual(streaming.kind === 'assistant' && { text: streaming.text, streaming: streaming.streaming }, {
    text: 'Hello **the',
    streaming: true,
  });
  transcript.apply(event({ type: 'assistant-message', text: 'Hello **there**' }));
  assert.equal(transcript.items.length, 2);
  const final = transcript.items[1];
  assert.deepEqual(final?.kind === 'assistant' && { text: final.text, streaming: final.streaming }, {
    text: 'Hello **there**',
    streaming: false,
  });
});

test('issue 4 streaming: text after a tool card starts a new message below it', () => {
  const transcript = new Transcript();
  transcript.apply(event({ type: 'assistant-delta', text: 'Let me look.' }));
  transcript.apply(event({ type: 'tool-call-requested', call_id: 'c1', tool: 'read', arguments: '{"path":"a"}' }));
  transcript.apply(event({ type: 'assistant-delta', text: 'Found it.' }));
  transcript.apply(event({ type: 'assistant-message', text: 'Found it.' }));
  assert.deepEqual(
    transcript.items.map((item) => (item.kind === 'assistant' ? `assistant:${item.text}:${item.streaming}` : item.kind)),
    ['assistant:Let me look.:false', 'tool', 'assistant:Found it.:false'],
  );
});

test('issue 4 streaming: assistant-message without deltas (a provider that does not stream) still shows', () => {
  const transcript = new Transcript();
  transcript.apply(event({ type: 'assistant-message', text: 'Done.' }));
  assert.deepEqual(
    transcript.items.map((item) => item.kind === 'assistant' && item.text),
    ['Done.'],
  );
});

test('issue 4 tool cards: a card goes requested -> awaiting-approval -> approved -> running -> finished with T1 declarations', () => {
  const transcript = new Transcript();
  const [requested, asked, resolved, started, output, finished] = approvedWrite('c1');
  const states: string[] = [];
  for (const next of [requested, asked, resolved, started, output, finished]) {
    assert.ok(next);
    transcript.apply(next);
    states.push(card(transcript, 'c1').state);
  }
  assert.deepEqual(states, ['requested', 'awaiting-approval', 'approved', 'running', 'running', 'finished']);
  const done = card(transcript, 'c1');
  assert.equal(done.tool, 'write');
  assert.equal(done.argumentsText, '{"path":"a.txt","content":"hi"}');
  assert.deepEqual([done.effect, done.replay, done.concurrency], ['SideEffecting', 'Never', 'Exclusive']);
  assert.equal(done.subject, 'a.txt');
  assert.equal(done.output, 'wrote 2 bytes\n');
  assert.equal(done.outcome, 'ok');
  assert.equal(done.durationMs, 12);
  assert.deepEqual(done.decision, { approved: true });
  assert.equal(transcript.items.length, 1, 'every event of one call lands on the same card');
});

test('B1/B2: dispatch-blocked marks the card blocked with its category and reason before the finished event', () => {
  const transcript = new Transcript();
  transcript.apply(event({ type: 'tool-call-requested', call_id: 'c1', tool: 'shell', arguments: '{"command":"rm -rf /"}' }));
  transcript.apply(event({ type: 'approval-requested', call_id: 'c1', tool: 'shell' }));
  transcript.apply(event({ type: 'approval-resolved', call_id: 'c1', tool: 'shell', approved: false, reason: 'too dangerous' }));
  assert.equal(card(transcript, 'c1').state, 'awaiting-approval', 'a denial alone does not finish the card; the block does');
  transcript.apply(
    event({ type: 'dispatch-blocked', call_id: 'c1', tool: 'shell', category: 'denied', reason: 'The user denied it: too dangerous' }),
  );
  const blocked = card(transcript, 'c1');
  assert.deepEqual(
    [blocked.state, blocked.outcome, blocked.category, blocked.blockedReason],
    ['finished', 'blocked', 'denied', 'The user denied it: too dangerous'],
  );
  transcript.apply(
    event({
      type: 'tool-call-finished',
      call_id: 'c1',
      tool: 'shell',
      outcome: 'blocked',
      category: 'denied',
      duration_ms: 0,
      truncated: false,
    }),
  );
  assert.deepEqual([card(transcript, 'c1').outcome, card(transcript, 'c1').category], ['blocked', 'denied']);
});

test('issue 14 item 4: the rule added with an approval stays on the card, also when replayed from the store', () => {
  const transcript = new Transcript();
  transcript.apply(event({ type: 'tool-call-requested', call_id: 'c1', tool: 'shell', arguments: '{"command":"npm test"}' }));
  transcript.apply(event({ type: 'approval-requested', call_id: 'c1', tool: 'shell' }));
  transcript.apply(
    event({
      type: 'approval-resolved',
      call_id: 'c1',
      tool: 'shell',
      approved: true,
      added_rule: { tool: 'shell', match: 'npm test *', action: 'allow' },
    }),
  );
  assert.deepEqual(card(transcript, 'c1').decision, { approved: true, addedRule: { tool: 'shell', match: 'npm test *', action: 'allow' } });
});

test('B2: a blocked outcome replayed from the store without dispatch-blocked keeps its category', () => {
  const transcript = new Transcript();
  transcript.apply(
    event({
      type: 'tool-call-finished',
      call_id: 'c9',
      tool: 'webfetch',
      outcome: 'blocked',
      category: 'unavailable',
      duration_ms: 0,
      truncated: false,
    }),
  );
  const blocked = card(transcript, 'c9');
  assert.deepEqual([blocked.tool, blocked.outcome, blocked.category], ['webfetch', 'blocked', 'unavailable']);
});

test('R3: an indeterminate outcome and its recovery notice (naming the attempt) both show', () => {
  const transcript = new Transcript();
  transcript.apply(
    event({
      type: 'tool-call-started',
      call_id: 'c1',
      tool: 'shell',
      effect: 'SideEffecting',
      replay: 'Never',
      concurrency: 'Exclusive',
      attempt: 1,
    }),
  );
  transcript.apply(
    event({ type: 'tool-call-finished', call_id: 'c1', tool: 'shell', outcome: 'indeterminate', duration_ms: 30_000, truncated: false }),
  );
  transcript.apply(
    event({
      type: 'recovery-notice',
      call_id: 'c1',
      attempt: 2,
      tool: 'shell',
      text: 'The previous shell call timed out; check state first.',
    }),
  );
  assert.equal(card(transcript, 'c1').outcome, 'indeterminate');
  // Issue 14 item 11: the notice is one recovery card naming the call; its model-facing text is kept for Details.
  const notice = transcript.items[1];
  assert.ok(notice?.kind === 'recovery');
  assert.deepEqual(notice.callIds, ['c1']);
  assert.equal(notice.noticeText, 'The previous shell call timed out; check state first.');
});

test('issue 4 tool cards: a delegated child call records its parent call', () => {
  const transcript = new Transcript();
  transcript.apply(
    event({
      type: 'tool-call-started',
      call_id: 'task-1',
      tool: 'task',
      effect: 'Delegating',
      replay: 'Never',
      concurrency: 'Exclusive',
      attempt: 1,
    }),
  );
  transcript.apply(event({ type: 'approval-requested', call_id: 'child-1', tool: 'write', parent_call_id: 'task-1' }));
  transcript.apply(
    event({
      type: 'tool-call-started',
      call_id: 'child-1',
      tool: 'write',
      effect: 'SideEffecting',
      replay: 'Never',
      concurrency: 'Exclusive',
      attempt: 1,
      parent_call_id: 'task-1',
    }),
  );
  assert.equal(card(transcript, 'child-1').parentCallId, 'task-1');
  assert.equal(card(transcript, 'task-1').parentCallId, undefined);
});

test('issue 4 tool cards: output keeps only the tail within OUTPUT_KEEP_CHARS and counts every line', () => {
  const transcript = new Transcript();
  const line = `${'x'.repeat(99)}\n`;
  const lines = 1_000; // 100,000 characters, three times the cap
  for (let index = 0; index < lines; index += 1) transcript.apply(event({ type: 'tool-call-output', call_id: 'c1', chunk: line }));
  const running = card(transcript, 'c1');
  assert.ok(running.output.length <= OUTPUT_KEEP_CHARS);
  assert.ok(running.output.startsWith('x'), 'the kept tail starts at a line boundary');
  assert.equal(running.output.length + running.droppedOutputChars, lines * line.length);
  assert.equal(running.outputLines, lines);
});

test('issue 4: versions go up only on the items an event touched (the view re-renders just those)', () => {
  const transcript = new Transcript();
  transcript.apply(event({ type: 'user-message', text: 'go' }));
  transcript.apply(event({ type: 'tool-call-requested', call_id: 'c1', tool: 'read', arguments: '{}' }));
  transcript.apply(event({ type: 'assistant-delta', text: 'a' }));
  const before = transcript.items.map((item) => item.version);
  transcript.apply(event({ type: 'assistant-delta', text: 'b' }));
  const after = transcript.items.map((item) => item.version);
  assert.deepEqual(after.slice(0, 2), before.slice(0, 2));
  assert.equal(after[2], (before[2] ?? 0) + 1);
});

test('issue 4: session-finished closes a stream and records why; issue 14 item 11: a resumed session adds no "Session resumed." line', () => {
  const transcript = new Transcript();
  transcript.apply(event({ type: 'session-started', resumed: true }));
  transcript.apply(event({ type: 'assistant-delta', text: 'partial' }));
  transcript.apply(event({ type: 'session-finished', reason: 'cancelled' }));
  assert.deepEqual(
    transcript.items.map((item) => item.kind),
    ['assistant', 'session-end'],
  );
  const message = transcript.items[0];
  assert.ok(message?.kind === 'assistant' && !message.streaming);
  const end = transcript.items[1];
  assert.ok(end?.kind === 'session-end' && end.reason === 'cancelled');
});

test('issue 4/5 reload mid-turn (R3): a run cut off by a reload leaves no card waiting forever; running is indeterminate, never started is cancelled', () => {
  const interrupted = [
    event({ type: 'session-started' }),
    ...approvedWrite('done'),
    event({ type: 'tool-call-requested', call_id: 'ran', tool: 'shell', arguments: '{"command":"make"}' }),
    event({
      type: 'tool-call-started',
      call_id: 'ran',
      tool: 'shell',
      effect: 'SideEffecting',
      replay: 'Never',
      concurrency: 'Exclusive',
      attempt: 1,
    }),
    event({ type: 'tool-call-requested', call_id: 'asked', tool: 'write', arguments: '{"path":"b.txt","content":"x"}' }),
    event({ type: 'approval-requested', call_id: 'asked', tool: 'write', subject: 'b.txt' }),
  ];
  const states = (transcript: Transcript): string[] =>
    ['done', 'ran', 'asked'].map((id) => `${id}:${card(transcript, id).state}:${card(transcript, id).outcome ?? ''}`);

  // The snapshot after a reload: the stored events, then the controller's "Interrupted" end.
  const reloaded = new Transcript();
  for (const stored of interrupted) reloaded.apply(stored);
  assert.deepEqual(states(reloaded), ['done:finished:ok', 'ran:running:', 'asked:awaiting-approval:']);
  reloaded.apply(event({ type: 'session-finished', reason: 'cancelled', message: 'Interrupted' }));
  assert.deepEqual(states(reloaded), ['done:finished:ok', 'ran:finished:indeterminate', 'asked:finished:cancelled']);

  // Later, the stored events only: the next run of the session starts with no end in between.
  const later = new Transcript();
  for (const stored of interrupted) later.apply(stored);
  later.apply(event({ type: 'session-started', resumed: true }));
  assert.deepEqual(states(later), ['done:finished:ok', 'ran:finished:indeterminate', 'asked:finished:cancelled']);
});

test('issue 10 item 2: a context-compacted event draws a divider after the earlier messages, which stay shown, naming what the handoff kept', () => {
  const transcript = new Transcript();
  transcript.apply(event({ type: 'user-message', text: 'first' }));
  transcript.apply(event({ type: 'assistant-message', text: 'answer' }));
  transcript.apply(
    event({
      type: 'context-compacted',
      reason: 'threshold',
      message_index: 2,
      tokens_before: 19_500,
      tokens_after: 2_300,
      kept: ['1 request', 'goal', '2 todos'],
      summary: 'S',
    }),
  );
  transcript.apply(event({ type: 'user-message', text: 'second' }));
  assert.deepEqual(
    transcript.items.map((item) => item.kind),
    ['user', 'assistant', 'compaction', 'user'],
  );
  const divider = transcript.items[2];
  assert.ok(divider?.kind === 'compaction');
  assert.equal(
    compactionLabel(divider),
    'Context compacted (the context was filling up): about 19,500 → 2,300 tokens. Messages above are no longer sent to the model. The model now gets a handoff with: 1 request, goal, 2 todos.',
  );
});

test("issue 10 item 4: an answer's reasoning is kept on its message, for the view to show collapsed", () => {
  const transcript = new Transcript();
  transcript.apply(event({ type: 'assistant-delta', text: 'Reading.' }));
  transcript.apply(event({ type: 'assistant-message', text: 'Reading.', reasoning: 'The user wants a.txt first.' }));
  transcript.apply(event({ type: 'assistant-message', text: 'Done.' }));
  assert.deepEqual(
    transcript.items.map((item) => item.kind === 'assistant' && [item.text, item.reasoning ?? null]),
    [
      ['Reading.', 'The user wants a.txt first.'],
      ['Done.', null],
    ],
  );
});
