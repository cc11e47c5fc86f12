// The plan/todo panel (issue 14 item 14): rebuilt from the chat's own plan_update and todo_update
// calls, each taking effect only when it finished ok; the folding is remembered across reloads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ZunoEvent, ZunoEventBody } from '../../../src/core/events';
import { UiState } from '../../../media/ui-state';
import { WorkState } from '../../../media/work-state';

const at = (body: ZunoEventBody): ZunoEvent => ({ ...body, ts: 1, session_id: 's1' });
function call(
  state: WorkState,
  callId: string,
  tool: string,
  args: unknown,
  outcome: 'ok' | 'error' | 'blocked' = 'ok',
  parent?: string,
): void {
  state.apply(at({ type: 'tool-call-requested', call_id: callId, tool, arguments: JSON.stringify(args) }));
  state.apply(
    at({
      type: 'tool-call-started',
      call_id: callId,
      tool,
      effect: 'SideEffecting',
      replay: 'Safe',
      concurrency: 'Exclusive',
      attempt: 1,
      ...(parent === undefined ? {} : { parent_call_id: parent }),
    }),
  );
  state.apply(at({ type: 'tool-call-finished', call_id: callId, tool, outcome, duration_ms: 1, truncated: false }));
}

test('issue 14 item 14: a todo list replaces, changes by id update it, and the first in-progress item is current', () => {
  const state = new WorkState();
  assert.equal(state.empty, true);
  call(state, 'c1', 'todo_update', {
    todos: [
      { id: '1', content: 'Read the test', status: 'in_progress' },
      { id: '2', content: 'Fix the total', status: 'pending' },
      { id: '3', content: 'Run npm test', status: 'pending' },
    ],
  });
  assert.equal(state.empty, false);
  assert.equal(state.current?.id, '1');
  assert.equal(state.done, 0);
  const before = state.version;
  call(state, 'c2', 'todo_update', {
    changes: [
      { id: '1', status: 'completed' },
      { id: '2', status: 'in_progress', content: 'Fix the total in cart.js' },
    ],
  });
  assert.ok(state.version > before, 'the panel is redrawn');
  assert.deepEqual(state.todos, [
    { id: '1', content: 'Read the test', status: 'completed' },
    { id: '2', content: 'Fix the total in cart.js', status: 'in_progress' },
    { id: '3', content: 'Run npm test', status: 'pending' },
  ]);
  assert.equal(state.current?.id, '2');
  assert.equal(state.done, 1);
  call(state, 'c3', 'plan_update', { plan: '1. Read\n2. Fix\n3. Test\n' });
  assert.equal(state.plan, '1. Read\n2. Fix\n3. Test');
});

test('issue 14 item 14: an update that failed, was blocked, is malformed or belongs to a delegated child changes nothing', () => {
  const state = new WorkState();
  call(state, 'c1', 'todo_update', { todos: [{ id: '1', content: 'Only item', status: 'pending' }] });
  const kept = state.todos;
  call(state, 'c2', 'todo_update', { changes: [{ id: '1', status: 'completed' }] }, 'error');
  call(state, 'c3', 'todo_update', { changes: [{ id: '1', status: 'completed' }] }, 'blocked');
  call(state, 'c4', 'todo_update', { changes: [{ id: '1', status: 'completed' }] }, 'ok', 'task_call');
  call(state, 'c5', 'plan_update', { plan: 42 });
  state.apply(at({ type: 'tool-call-requested', call_id: 'c6', tool: 'todo_update', arguments: '{not json' }));
  state.apply(at({ type: 'tool-call-finished', call_id: 'c6', tool: 'todo_update', outcome: 'ok', duration_ms: 1, truncated: false }));
  assert.equal(state.todos, kept);
  assert.equal(state.plan, undefined);
  state.reset();
  assert.equal(state.empty, true, 'a snapshot of another chat starts empty');
});

test('issue 14 item 14: the folded panel is remembered across a reload of the view', () => {
  const ui = UiState.restore(undefined);
  assert.equal(ui.workPanelCollapsed, false);
  ui.workPanelCollapsed = true;
  const restored = UiState.restore(JSON.parse(JSON.stringify(ui.persisted())));
  assert.equal(restored.workPanelCollapsed, true);
  assert.equal(UiState.restore({ workPanelCollapsed: 'yes' }).workPanelCollapsed, false, 'a bad saved value is ignored');
});
