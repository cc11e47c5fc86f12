// UI-only state (issue 4 "State": hiding, moving or reloading the view loses nothing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UiState } from '../../../media/ui-state';

test('issue 4 state: the composer draft and expanded cards survive a reload through setState', () => {
  const before = new UiState();
  before.draft = 'half a thought';
  before.toggleExpanded('c1');
  before.toggleExpanded('c2');
  before.toggleExpanded('c2');
  const saved: unknown = JSON.parse(JSON.stringify(before.persisted()));
  const after = UiState.restore(saved);
  assert.equal(after.draft, 'half a thought');
  assert.deepEqual([...after.expanded], ['c1']);
});

test('issue 4 state: a corrupt saved state is ignored field by field, not thrown on', () => {
  assert.equal(UiState.restore(undefined).draft, '');
  assert.equal(UiState.restore('nonsense').draft, '');
  const restored = UiState.restore({ draft: 42, expanded: ['ok', 7, null] });
  assert.equal(restored.draft, '');
  assert.deepEqual([...restored.expanded], ['ok']);
});

test('issue 4 approvals: a sent decision and its deny reason are forgotten once the host closes the approval', () => {
  const ui = new UiState();
  ui.decided.add('c1');
  ui.denyReasons.set('c1', 'no');
  ui.questionDraft('q1').selected.push('a');
  ui.answered.add('q1');
  ui.receive({ type: 'approval-closed', callId: 'c1' });
  ui.receive({ type: 'question-closed', callId: 'q1' });
  assert.equal(ui.decided.has('c1'), false);
  assert.equal(ui.denyReasons.has('c1'), false);
  assert.equal(ui.answered.has('q1'), false);
  assert.deepEqual(ui.questionDraft('q1').selected, []);
});

test('issue 4 approvals: an error from the host gives the decision buttons back instead of leaving them disabled', () => {
  const ui = new UiState();
  ui.decided.add('c1');
  ui.answered.add('q1');
  assert.deepEqual(ui.receive({ type: 'error', text: 'The file changed since the preview; look again.' }), ['c1', 'q1']);
  assert.equal(ui.decided.size + ui.answered.size, 0);
  assert.deepEqual(ui.receive({ type: 'error', text: 'again' }), [], 'nothing left to reopen');
});
