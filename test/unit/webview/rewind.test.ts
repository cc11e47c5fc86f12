// Restoring files from the chat, the view's side (issue 13): a message gets its checkpoint, a
// restore marks the cards whose changes it undid (and an undo removes the marks), the preview is
// held only while asked for, and the words say a restore does not undo outside effects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ZunoEvent } from '../../../src/core/events';
import type { RewindPreviewView, ViewStatus } from '../../../src/webview/protocol';
import { rewindSummary } from '../../../media/presentation';
import type { RewindItem, ToolItem, UserItem } from '../../../media/transcript';
import { ViewModel } from '../../../media/view-model';
import { approvedWrite, event } from './events';

const status: ViewStatus = { permissionMode: 'strict', modelLabel: 'm', running: false };

/** Two turns, each a message, its checkpoint and a write; then a read-only call in the second. */
function twoTurns(): ZunoEvent[] {
  return [
    event({ type: 'session-started' }),
    event({ type: 'user-message', text: 'first message' }),
    event({ type: 'checkpoint-created', checkpoint_id: 'cp-1', message_index: 0 }),
    ...approvedWrite('w1'),
    event({ type: 'session-finished', reason: 'done' }),
    event({ type: 'session-started', resumed: true }),
    event({ type: 'user-message', text: 'second message' }),
    event({ type: 'checkpoint-created', checkpoint_id: 'cp-3', message_index: 3 }),
    ...approvedWrite('w2'),
    event({
      type: 'tool-call-started',
      call_id: 'r1',
      tool: 'read',
      effect: 'ReadOnly',
      replay: 'Safe',
      concurrency: 'ParallelSafe',
      attempt: 1,
    }),
    event({ type: 'tool-call-finished', call_id: 'r1', tool: 'read', outcome: 'ok', duration_ms: 1, truncated: false }),
    event({ type: 'session-finished', reason: 'done' }),
  ];
}

const users = (model: ViewModel): UserItem[] => model.transcript.items.filter((item): item is UserItem => item.kind === 'user');
const rolledBack = (model: ViewModel): Record<string, string | undefined> =>
  Object.fromEntries(
    model.transcript.items.filter((item): item is ToolItem => item.kind === 'tool').map((card) => [card.callId, card.rolledBackTo]),
  );

test('issue 13: each user message whose turn took a checkpoint can be restored to, live and after a reload', () => {
  const live = new ViewModel();
  live.receive({ type: 'snapshot', sessionId: 'session-1', events: [], approvals: [], questions: [], status });
  for (const next of twoTurns()) live.receive({ type: 'event', event: next });
  const reloaded = new ViewModel();
  reloaded.receive({ type: 'snapshot', sessionId: 'session-1', events: twoTurns(), approvals: [], questions: [], status });
  for (const model of [live, reloaded])
    assert.deepEqual(
      users(model).map((item) => [item.text, item.checkpointId]),
      [
        ['first message', 'cp-1'],
        ['second message', 'cp-3'],
      ],
    );
});

test('issue 13: a restore marks the side-effecting cards from its message on as rolled back, records what it did, and its undo removes the marks', () => {
  const model = new ViewModel();
  const rewind = event({ type: 'rewind', checkpoint_id: 'cp-3', restored: ['a.txt'], removed: ['new.txt'], undo_checkpoint_id: 'cp-5' });
  model.receive({ type: 'snapshot', sessionId: 'session-1', events: [...twoTurns(), rewind], approvals: [], questions: [], status });
  assert.deepEqual(
    rolledBack(model),
    { w1: undefined, w2: 'cp-3', r1: undefined },
    'only later side effects were rolled back; a read has nothing to roll back',
  );
  const record = model.transcript.items.at(-1) as RewindItem;
  assert.equal(record.kind, 'rewind');
  assert.equal(model.transcript.checkpointItem('cp-5'), record, 'the restore itself is the place to undo it from');
  assert.match(rewindSummary(record), /^Files restored to before “second message”: 1 file put back, 1 added file removed\. .*not undone/);

  model.receive({
    type: 'event',
    event: event({ type: 'rewind', checkpoint_id: 'cp-5', restored: ['a.txt'], removed: [], undo_checkpoint_id: 'cp-7' }),
  });
  assert.deepEqual(rolledBack(model), { w1: undefined, w2: undefined, r1: undefined }, 'undoing the restore brings the changes back');
});

test('issue 13: the preview is held only for the restore the user opened, and closes when the host says so', () => {
  const model = new ViewModel();
  model.receive({ type: 'snapshot', sessionId: 'session-1', events: twoTurns(), approvals: [], questions: [], status });
  const preview: RewindPreviewView = {
    checkpointId: 'cp-1',
    files: [{ path: 'a.txt', change: 'modified', conflict: false, diff: '-b\n+a\n' }],
    overLimit: [],
    nested: [],
    limitMb: 10,
  };
  model.receive({ type: 'rewind-preview', preview });
  assert.equal(model.rewind, undefined, 'a preview nobody asked for is dropped');

  const first = users(model)[0];
  const before = first?.version ?? 0;
  model.openRewind('cp-1', false);
  assert.deepEqual(model.rewind, { checkpointId: 'cp-1', fork: false, busy: true });
  model.receive({ type: 'rewind-preview', preview });
  assert.deepEqual(model.rewind, { checkpointId: 'cp-1', fork: false, busy: false, preview });
  assert.ok((first?.version ?? 0) > before, 'the message is drawn again with its preview');
  model.confirmRewind();
  // Read through a function: the assertions above narrowed `model.rewind` for the compiler.
  const current = (): ViewModel['rewind'] => model.rewind;
  assert.equal(current()?.busy, true);
  model.receive({ type: 'rewind-closed', checkpointId: 'cp-1' });
  assert.equal(model.rewind, undefined);
});
