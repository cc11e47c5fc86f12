// The words of a readable approval card (issue 14 item 3).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { approvedText, changeLabel, diffCounts, filesSummary, ruleText, todoLine } from '../../../media/approval-format';
import type { FileDiffPreview } from '../../../src/webview/protocol';

const file = (overrides: Partial<FileDiffPreview>): FileDiffPreview => ({
  path: 'src/cart.js',
  change: 'update',
  added: 3,
  removed: 1,
  hunks: [],
  omittedLines: 0,
  ...overrides,
});

test('issue 14 item 3: a file header says what happens to it and its +/- counts', () => {
  assert.equal(diffCounts(file({})), '+3 \u22121');
  assert.equal(changeLabel(file({})), 'changed');
  assert.equal(changeLabel(file({ change: 'create' })), 'new file');
  assert.equal(changeLabel(file({ change: 'delete' })), 'deleted');
  assert.equal(changeLabel(file({ change: 'move', movedTo: 'lib/cart.js' })), 'moved to lib/cart.js');
  assert.equal(filesSummary([file({}), file({ path: 'b', added: 2, removed: 4 })]), '2 files, +5 \u22125');
});

test('issue 14 item 3: a todo reads as a mark, its id, its text and its status in words', () => {
  assert.equal(todoLine({ id: '1', content: 'Fix the total', status: 'in_progress' }), '◐ 1. Fix the total (in progress)');
  assert.equal(todoLine({ id: '2', status: 'completed' }), '● 2. (completed)');
  assert.equal(todoLine({ id: '3', content: 'x', status: 'weird' }), '• 3. x (weird)');
});

test('issue 14 item 4: an approved card names the rule "Allow like this" added, and a plain approval says only that', () => {
  assert.equal(
    approvedText({ tool: 'shell', match: 'npm test *', action: 'allow' }),
    'Approved, and added the rule "shell: npm test *" to zuno.permission.rules.',
  );
  assert.equal(approvedText(undefined), 'Approved.');
  assert.equal(ruleText({ tool: 'todo_update', action: 'allow' }), 'todo_update (every call)');
});
