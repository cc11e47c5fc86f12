// Issue 14 item 3: a delegated task's child calls drawn inside the task's card, live, from the
// child session's own events (the parent's `delegation-started` links them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { childCallLabel, childCallSubject, delegationActivity, type Delegation } from '../../../media/delegation';
import type { ToolItem } from '../../../media/transcript';
import { ViewModel } from '../../../media/view-model';
import type { PendingApproval, ViewStatus } from '../../../src/webview/protocol';
import { event } from './events';
import { detailsLabel, OUTPUT_KEEP_CHARS } from '../../../media/call-output';
import { exitLabel, lastLines } from '../../../media/rows';

const status: ViewStatus = { permissionMode: 'strict', modelLabel: 'm', running: true };
const PARENT = 'parent-session';
const CHILD = 'child-session';

function taskCard(model: ViewModel): ToolItem & { delegation: Delegation } {
  const card = model.transcript.card('call_2_0');
  assert.ok(card?.delegation, 'the task card has its delegation');
  // A copy for the narrowed type; the delegation itself is the card's (shared), so it stays live.
  return { ...card, delegation: card.delegation };
}

/** A parent whose first call (call_1_0) is a finished read, then a running task call_2_0 with its child started. */
function runningTask(): ViewModel {
  const model = new ViewModel();
  model.receive({ type: 'snapshot', sessionId: PARENT, events: [], approvals: [], questions: [], status });
  const parentEvents = [
    event({ type: 'tool-call-requested', call_id: 'call_1_0', tool: 'read', arguments: '{"path":"a.txt"}' }, PARENT),
    event({ type: 'tool-call-finished', call_id: 'call_1_0', tool: 'read', outcome: 'ok', duration_ms: 1, truncated: false }, PARENT),
    event({ type: 'tool-call-requested', call_id: 'call_2_0', tool: 'task', arguments: '{"goal":"Write CHANGELOG.md"}' }, PARENT),
    event(
      {
        type: 'tool-call-started',
        call_id: 'call_2_0',
        tool: 'task',
        effect: 'Delegating',
        replay: 'Never',
        concurrency: 'ParallelSafe',
        attempt: 1,
      },
      PARENT,
    ),
    event({ type: 'delegation-started', call_id: 'call_2_0', child_session_id: CHILD, agent: 'general' }, PARENT),
    event({ type: 'session-started', resumed: false }, CHILD),
    event({ type: 'user-message', text: 'Write CHANGELOG.md' }, CHILD),
  ];
  for (const each of parentEvents) model.receive({ type: 'event', event: each });
  return model;
}

const childApproval: PendingApproval = {
  callId: 'call_1_0',
  tool: 'write',
  declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
  subject: '/workspace/CHANGELOG.md', // absolute, as the policy sees it; the row shows the model's relative path
  reason: 'strict',
  argumentsPreview: '{}',
  canShowDiff: true,
  origin: { parentCallId: 'call_2_0', agent: 'general' },
};

test('issue 14 item 3: child events go into the task card, even when the child reuses an id of the parent (call_1_0)', () => {
  const model = runningTask();
  const itemsBefore = model.transcript.items.length;
  model.receive({
    type: 'event',
    event: event(
      { type: 'tool-call-requested', call_id: 'call_1_0', tool: 'write', arguments: '{"path":"CHANGELOG.md","content":"x"}' },
      CHILD,
    ),
  });
  model.receive({ type: 'approval', approval: childApproval });
  const task = taskCard(model);
  assert.equal(model.approvalItemKey('call_1_0'), task.key, 'the task card draws the approval');
  assert.equal(delegationActivity(task.delegation), 'Now: write CHANGELOG.md — Waiting for approval');
  model.receive({ type: 'approval-closed', callId: 'call_1_0' });
  for (const body of [
    { type: 'approval-resolved', call_id: 'call_1_0', tool: 'write', approved: true },
    {
      type: 'tool-call-started',
      call_id: 'call_1_0',
      tool: 'write',
      effect: 'SideEffecting',
      replay: 'Never',
      concurrency: 'Exclusive',
      attempt: 1,
    },
  ] as const)
    model.receive({ type: 'event', event: event(body, CHILD) });
  assert.equal(delegationActivity(task.delegation), 'Now: write CHANGELOG.md — Running');
  for (const body of [
    { type: 'tool-call-finished', call_id: 'call_1_0', tool: 'write', outcome: 'ok', duration_ms: 3, truncated: false },
    { type: 'assistant-message', text: 'Wrote CHANGELOG.md.' },
    { type: 'session-finished', reason: 'done' },
  ] as const)
    model.receive({ type: 'event', event: event(body, CHILD) });
  model.receive({
    type: 'event',
    event: event(
      { type: 'tool-call-finished', call_id: 'call_2_0', tool: 'task', outcome: 'ok', duration_ms: 9, truncated: false },
      PARENT,
    ),
  });
  model.receive({ type: 'event', event: event({ type: 'session-finished', reason: 'done' }, PARENT) });

  // No new top-level item for the child: its call and its end stay in the task card.
  assert.equal(model.transcript.items.length, itemsBefore + 1, 'only the parent session end was added');
  const parentRead = model.transcript.card('call_1_0');
  assert.deepEqual([parentRead?.tool, parentRead?.outcome, parentRead?.parentCallId], ['read', 'ok', undefined]);
  assert.equal(model.transcript.card('call_2_0')?.outcome, 'ok');
  assert.deepEqual(
    task.delegation?.calls.map((call) => [call.callId, call.tool, call.outcome, call.approved, childCallLabel(call)]),
    [['call_1_0', 'write', 'ok', true, 'Done']],
  );
  assert.equal(task.delegation?.answer, 'Wrote CHANGELOG.md.');
  assert.equal(delegationActivity(task.delegation), 'The delegated agent (general) made 1 call and finished.');
});

test('issue 14 item 3: a child cut off by its run ending reads as cancelled or indeterminate, and the activity says how it ended', () => {
  const model = runningTask();
  for (const body of [
    { type: 'tool-call-requested', call_id: 'c1', tool: 'shell', arguments: '{"command":"npm test"}' },
    {
      type: 'tool-call-started',
      call_id: 'c1',
      tool: 'shell',
      effect: 'SideEffecting',
      replay: 'Never',
      concurrency: 'Exclusive',
      attempt: 1,
    },
    { type: 'tool-call-requested', call_id: 'c2', tool: 'write', arguments: '{"path":"b.txt"}' },
    { type: 'session-finished', reason: 'step-limit' },
  ] as const)
    model.receive({ type: 'event', event: event(body, CHILD) });
  const task = taskCard(model);
  assert.deepEqual(
    task.delegation?.calls.map((call) => [call.tool, childCallSubject(call), call.outcome]),
    [
      ['shell', 'npm test', 'indeterminate'],
      ['write', 'b.txt', 'cancelled'],
    ],
  );
  assert.equal(
    delegationActivity(task.delegation),
    'The delegated agent (general) made 2 calls and stopped at its step limit: its goal may be incomplete.',
  );
});

test("issue 14 item 3: the child's usage does not move this chat's context meter (it is the child's own context)", () => {
  const model = runningTask();
  model.receive({
    type: 'event',
    event: event({ type: 'usage', input_tokens: 5000, output_tokens: 10, context_window: 8000, estimated_next_input_tokens: 5010 }, CHILD),
  });
  assert.equal(model.meter.requests, 0);
  model.receive({
    type: 'event',
    event: event({ type: 'usage', input_tokens: 100, output_tokens: 10, context_window: 8000, estimated_next_input_tokens: 110 }, PARENT),
  });
  assert.deepEqual([model.meter.requests, model.meter.used], [1, 110]);
});

test('issue 14 item 3: an approval from a delegated agent whose task card is unknown keeps its own card (as before)', () => {
  const model = new ViewModel();
  model.receive({
    type: 'snapshot',
    sessionId: PARENT,
    events: [],
    approvals: [{ ...childApproval, callId: 'lone' }],
    questions: [],
    status,
  });
  const card = model.transcript.card('lone');
  assert.equal(card?.state, 'awaiting-approval');
  assert.equal(card?.parentCallId, 'call_2_0');
  assert.equal(model.approvalItemKey('lone'), card?.key);
});

test("issue 14 item 3: a child call keeps its output (capped like a top-level card's) and exit code, apart from the parent's call with the same id", () => {
  const model = runningTask();
  const parentOutputBefore = model.transcript.card('call_1_0')?.output;
  const longLine = `${'x'.repeat(99)}\n`;
  for (const body of [
    { type: 'tool-call-requested', call_id: 'call_1_0', tool: 'shell', arguments: '{"command":"npm test"}' },
    {
      type: 'tool-call-started',
      call_id: 'call_1_0',
      tool: 'shell',
      effect: 'SideEffecting',
      replay: 'Never',
      concurrency: 'Exclusive',
      attempt: 1,
    },
    // More than the view keeps, then the lines that matter at the end.
    { type: 'tool-call-output', call_id: 'call_1_0', chunk: longLine.repeat(Math.ceil(OUTPUT_KEEP_CHARS / longLine.length) + 10) },
    { type: 'tool-call-output', call_id: 'call_1_0', chunk: '1 failing\nnpm ERR! Test failed.\n' },
    { type: 'tool-call-finished', call_id: 'call_1_0', tool: 'shell', outcome: 'error', duration_ms: 40, truncated: true, exit_code: 1 },
  ] as const)
    model.receive({ type: 'event', event: event(body, CHILD) });
  const child = taskCard(model).delegation.calls[0];
  assert.ok(child);
  assert.equal(child.exitCode, 1);
  assert.equal(child.truncated, true);
  assert.ok(child.output.length <= OUTPUT_KEEP_CHARS, 'the kept tail is capped');
  assert.ok(child.droppedOutputChars > 0, 'what was dropped is counted');
  assert.ok(child.output.endsWith('1 failing\nnpm ERR! Test failed.\n'), 'the end of the output is kept');
  assert.ok(child.output.startsWith('x'), 'the kept tail starts at a whole line');
  const lines = Math.ceil(OUTPUT_KEEP_CHARS / longLine.length) + 12;
  assert.equal(detailsLabel(child), `Output (${lines} lines)`);
  assert.deepEqual([exitLabel(child), lastLines(child.output, 2)], ['exit 1', ['1 failing', 'npm ERR! Test failed.']]);
  // The parent's own call_1_0 (a read) got none of it.
  assert.equal(model.transcript.card('call_1_0')?.output, parentOutputBefore);
});

test('issue 14 item 3: a child call with only arguments opens as "Details"; one with nothing yet has no toggle', () => {
  const model = runningTask();
  model.receive({
    type: 'event',
    event: event({ type: 'tool-call-requested', call_id: 'c1', tool: 'write', arguments: '{"path":"a"}' }, CHILD),
  });
  model.receive({
    type: 'event',
    event: event(
      {
        type: 'tool-call-started',
        call_id: 'c2',
        tool: 'read',
        effect: 'ReadOnly',
        replay: 'Safe',
        concurrency: 'ParallelSafe',
        attempt: 1,
      },
      CHILD,
    ),
  });
  const [write, read] = taskCard(model).delegation.calls;
  assert.ok(write && read);
  assert.equal(detailsLabel(write), 'Details');
  assert.equal(detailsLabel(read), undefined);
  model.receive({ type: 'event', event: event({ type: 'tool-call-output', call_id: 'c2', chunk: 'one line' }, CHILD) });
  assert.equal(detailsLabel(read), 'Output (1 line)');
});
