// Issue 14 item 10 in the CLI: `zuno sessions` nests delegated tasks under their parent, as the
// editor's history does; titles a person or an old version wrote must not break the listing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nestTasks } from '../../../src/cli/sessions-command';
import { delegatedSessionTitle } from '../../../src/core/delegation';
import type { SessionSummary } from '../../../src/store/store';

const session = (id: string, updatedAt: number, title?: string): SessionSummary => ({
  id,
  workspace: '/w',
  status: 'done',
  createdAt: updatedAt,
  updatedAt,
  bytes: 1,
  dir: `/state/${id}`,
  ...(title !== undefined ? { title } : {}),
});
const task = (id: string, updatedAt: number, parent: string, goal = `goal of ${id}`): SessionSummary =>
  session(id, updatedAt, delegatedSessionTitle({ parentSessionId: parent, parentCallId: `call_${id}`, agent: 'general', goal }));

test('issue 14 item 10: tasks follow their parent in the order they ran, tasks of tasks one level deeper; an orphaned task stands on its own', () => {
  const listed = nestTasks([
    session('newest', 50, 'latest chat'),
    task('orphan', 45, 'deleted-parent'),
    session('parent', 40, 'the chat'),
    task('second', 30, 'parent'),
    task('grandchild', 25, 'second'),
    task('first', 20, 'parent'),
  ]);
  assert.deepEqual(
    listed.map((entry) => [entry.session.id, entry.depth, entry.origin?.parentSessionId]),
    [
      ['newest', 0, undefined],
      ['orphan', 0, 'deleted-parent'],
      ['parent', 0, undefined],
      ['first', 1, 'parent'],
      ['second', 1, 'parent'],
      ['grandchild', 2, 'second'],
    ],
  );
});

test('issue 14 item 10: a loop of parents in hand-edited titles (or a session naming itself) lists every session once and ends', () => {
  const listed = nestTasks([task('a', 3, 'b'), task('b', 2, 'a'), task('self', 1, 'self')]);
  assert.deepEqual(listed.map((entry) => entry.session.id).sort(), ['a', 'b', 'self']);
});
