import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Store } from '../../../src/store/store';
import { planGetTool, planUpdateTool } from '../../../src/tools/plan';
import { todoGetTool, todoUpdateTool } from '../../../src/tools/todo';
import { goalGetTool, goalUpdateTool } from '../../../src/tools/goal';
import { memoryProposeTool } from '../../../src/tools/memory_propose';
import { makeTempDir, makeToolContext, removeDir } from '../../support/tool-context';
import type { ZunoConfigInput } from '../../../src/core/config';

const workspace = makeTempDir();
let store: Store;

before(async () => {
  store = await Store.open({ stateDir: join(workspace, '.zuno', 'state') });
  store.createSession({ id: 'session-1', workspace });
});
after(async () => {
  await store.close();
  removeDir(workspace);
});

function context(config: ZunoConfigInput = {}) {
  return { ...makeToolContext({ workspaceRoot: workspace, config }), workState: store, memories: store };
}

test('S2/E3/R1: get is ReadOnly and Safe; update is SideEffecting and Never', () => {
  for (const tool of [planGetTool, todoGetTool, goalGetTool]) {
    assert.deepEqual(tool.declarationsFor({}), { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' }, tool.name);
  }
  for (const tool of [planUpdateTool, todoUpdateTool, goalUpdateTool, memoryProposeTool]) {
    assert.deepEqual(tool.declarationsFor({}), { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' }, tool.name);
  }
});

test('S2: the plan persists in the store', async () => {
  assert.equal((await planGetTool.run({}, context())).output, '(no plan yet)');
  await planUpdateTool.run({ plan: '1. read\n2. patch' }, context());
  assert.equal(store.getPlan('session-1'), '1. read\n2. patch');
  assert.equal((await planGetTool.run({}, context())).output, '1. read\n2. patch');
});

test('S2: todos are replaced whole or changed by id', async () => {
  const saved = await todoUpdateTool.run(
    {
      todos: [
        { id: '1', content: 'write test', status: 'in_progress' },
        { id: '2', content: 'fix bug', status: 'pending' },
      ],
    },
    context(),
  );
  assert.match(saved.output, /\[~\] 1: write test \(in_progress\)\n\[ \] 2: fix bug \(pending\)/);
  await todoUpdateTool.run({ changes: [{ id: '1', status: 'completed' }] }, context());
  assert.deepEqual(
    store.getTodos('session-1').map((todo) => todo.status),
    ['completed', 'pending'],
  );
  assert.match((await todoGetTool.run({}, context())).output, /\[x\] 1: write test/);
});

test('S2: an unknown todo id or a bad status is refused and nothing changes', async () => {
  const before = store.getTodos('session-1');
  await assert.rejects(
    todoUpdateTool.run({ changes: [{ id: '9', status: 'completed' }] }, context()),
    /no todo with id "9".*known ids: 1, 2/,
  );
  assert.equal(todoUpdateTool.parse({ changes: [{ id: '1', status: 'done' }] }).success, false);
  assert.equal(todoUpdateTool.parse({ todos: [], changes: [{ id: '1' }] }).success, false);
  await assert.rejects(
    todoUpdateTool.run(
      {
        todos: [
          { id: 'a', content: 'x', status: 'pending' },
          { id: 'a', content: 'y', status: 'pending' },
        ],
      },
      context(),
    ),
    /"a" is used more than once/,
  );
  assert.deepEqual(store.getTodos('session-1'), before);
});

test('S2: the goal and its status persist', async () => {
  assert.equal((await goalGetTool.run({}, context())).output, '(no goal set)');
  await goalUpdateTool.run({ text: 'ship 1.0' }, context());
  await goalUpdateTool.run({ text: 'ship 1.0', status: 'achieved' }, context());
  assert.equal((await goalGetTool.run({}, context())).output, 'Goal (achieved): ship 1.0');
  assert.equal(goalUpdateTool.parse({ text: 'x', status: 'won' }).success, false);
});

test('S2: work-state tools are unavailable where nothing persists them', () => {
  const bare = makeToolContext({ workspaceRoot: workspace });
  assert.match(planGetTool.unavailableReason(bare) ?? '', /not persisted/);
  assert.equal(planGetTool.unavailableReason(context()), undefined);
});

test('S2: memory_propose exists only when memory.enabled is set, and stores a proposal', async () => {
  assert.match(memoryProposeTool.unavailableReason(context()) ?? '', /Memory is off/);
  const enabled = context({ memory: { enabled: true } });
  assert.equal(memoryProposeTool.unavailableReason(enabled), undefined);
  const result = await memoryProposeTool.run({ text: 'Tests run with npm test.' }, enabled);
  assert.match(result.output, /Proposed memory .* \(proposed\)/);
  assert.deepEqual(
    store.listMemories('proposed').map((memory) => memory.text),
    ['Tests run with npm test.'],
  );
});
