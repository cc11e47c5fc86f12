// Work state (plan, todos, goal: issue 3 "Work state") and memories ("memory_propose"):
// persisted per session, validated with errors the model can act on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ToolError } from '../../../src/core/errors';
import { Store, WorkStateError } from '../../../src/store/store';
import type { TodoItem } from '../../../src/store/store';
import { temporaryDirectory } from '../../support/store-fixtures';

async function sessionStore(context: Parameters<typeof temporaryDirectory>[0], stateDir = temporaryDirectory(context)): Promise<Store> {
  const store = await Store.open({ stateDir });
  context.after(() => store.close());
  if (!store.getSession('s1')) store.createSession({ id: 's1', workspace: '/w' });
  return store;
}

const isWorkStateError =
  (pattern: RegExp) =>
  (error: unknown): boolean =>
    error instanceof WorkStateError && error instanceof ToolError && pattern.test(error.message);

test('S2: the plan is per session and replaced as a whole', async (context) => {
  const store = await sessionStore(context);
  store.createSession({ id: 's2', workspace: '/w' });
  assert.equal(store.getPlan('s1'), undefined);
  store.setPlan('s1', '1. read\n2. patch');
  store.setPlan('s1', '1. read\n2. patch\n3. test');
  assert.equal(store.getPlan('s1'), '1. read\n2. patch\n3. test');
  assert.equal(store.getPlan('s2'), undefined);
  assert.throws(() => store.setPlan('missing', 'x'), /There is no session "missing"/);
});

test('S2: todos keep their order; a list with a repeated id, an empty field or an unknown status is refused whole', async (context) => {
  const store = await sessionStore(context);
  const todos: TodoItem[] = [
    { id: 'a', content: 'read the code', status: 'completed' },
    { id: 'b', content: 'write the patch', status: 'in_progress' },
    { id: 'c', content: 'run the tests', status: 'pending' },
  ];
  assert.deepEqual(store.setTodos('s1', todos), todos);
  const bad = [
    { id: 'a', content: 'x', status: 'pending' },
    { id: 'a', content: '', status: 'done' },
  ] as unknown as TodoItem[];
  assert.throws(
    () => store.setTodos('s1', bad),
    isWorkStateError(
      /The todo list was not changed: the id "a" is used more than once; ids must be unique; todo 2 has empty content; todo 2 has the status "done", which is not one of pending, in_progress, completed, cancelled\./,
    ),
  );
  assert.deepEqual(store.getTodos('s1'), todos, 'nothing changed');
  assert.deepEqual(store.setTodos('s1', []), []);
});

test('S2: todo updates change existing items by id; an unknown id or a bad status changes nothing', async (context) => {
  const store = await sessionStore(context);
  store.setTodos('s1', [
    { id: 'a', content: 'read', status: 'pending' },
    { id: 'b', content: 'patch', status: 'pending' },
  ]);
  assert.deepEqual(
    store.updateTodos('s1', [
      { id: 'a', status: 'completed' },
      { id: 'b', content: 'patch carefully' },
    ]),
    [
      { id: 'a', content: 'read', status: 'completed' },
      { id: 'b', content: 'patch carefully', status: 'pending' },
    ],
  );
  assert.throws(
    () =>
      store.updateTodos('s1', [
        { id: 'b', status: 'cancelled' },
        { id: 'z', status: 'completed' },
      ]),
    isWorkStateError(/No todo was changed: there is no todo with id "z" \(known ids: a, b\)/),
  );
  assert.throws(
    () => store.updateTodos('s1', [{ id: 'a', status: 'finished' as 'completed' }]),
    isWorkStateError(/todo "a" has the status "finished"/),
  );
  assert.equal(store.getTodos('s1')[1]?.status, 'pending');
});

test('S2: the goal is set with a status, validated, and survives a reopen with the plan and todos', async (context) => {
  const stateDir = temporaryDirectory(context);
  const store = await Store.open({ stateDir });
  store.createSession({ id: 's1', workspace: '/w' });
  assert.equal(store.getGoal('s1'), undefined);
  assert.equal(store.setGoal('s1', { text: 'ship the store' }).status, 'active');
  store.setGoal('s1', { text: 'ship the store', status: 'achieved' });
  assert.throws(() => store.setGoal('s1', { text: '  ' }), isWorkStateError(/its text is empty/));
  assert.throws(
    () => store.setGoal('s1', { text: 'x', status: 'won' as 'achieved' }),
    isWorkStateError(/"won" is not a goal status; use one of active, achieved, abandoned/),
  );
  store.setPlan('s1', 'plan');
  store.setTodos('s1', [{ id: 'a', content: 'read', status: 'pending' }]);
  await store.close();

  const reopened = await Store.open({ stateDir, readOnly: true });
  context.after(() => reopened.close());
  assert.deepEqual([reopened.getGoal('s1')?.text, reopened.getGoal('s1')?.status], ['ship the store', 'achieved']);
  assert.equal(reopened.getPlan('s1'), 'plan');
  assert.deepEqual(reopened.getTodos('s1'), [{ id: 'a', content: 'read', status: 'pending' }]);
});

test('issue 2 §8: memory_propose: proposed, listed by status, accepted, deleted; the same text is stored once', async (context) => {
  const stateDir = temporaryDirectory(context);
  const store = await sessionStore(context, stateDir);
  const tabs = store.proposeMemory('  The project uses tabs.  ', 's1');
  assert.deepEqual([tabs.text, tabs.status, tabs.sourceSessionId], ['The project uses tabs.', 'proposed', 's1']);
  assert.equal(store.proposeMemory('The project uses tabs.').id, tabs.id);
  const tests = store.proposeMemory('Run npm test before committing.');
  const accepted = store.acceptMemory(tabs.id);
  assert.equal(accepted.status, 'accepted');
  assert.equal(typeof accepted.acceptedAt, 'number');
  assert.deepEqual(
    store.listMemories('accepted').map((memory) => memory.id),
    [tabs.id],
  );
  assert.deepEqual(
    store.listMemories('proposed').map((memory) => memory.id),
    [tests.id],
  );
  store.deleteMemory(tests.id);
  assert.deepEqual(
    store.listMemories().map((memory) => memory.id),
    [tabs.id],
  );
  assert.throws(() => store.acceptMemory(tests.id), isWorkStateError(new RegExp(`There is no memory with id "${tests.id}"`)));
  assert.throws(() => store.deleteMemory('nope'), isWorkStateError(/There is no memory with id "nope"/));
  assert.throws(() => store.proposeMemory(' '), isWorkStateError(/its text is empty/));
  assert.throws(() => store.proposeMemory('x'.repeat(2001)), isWorkStateError(/2001 characters, and at most 2000/));
  await store.close();

  const reopened = await Store.open({ stateDir, readOnly: true });
  context.after(() => reopened.close());
  assert.deepEqual(
    reopened.listMemories().map((memory) => [memory.text, memory.status]),
    [['The project uses tabs.', 'accepted']],
  );
});
