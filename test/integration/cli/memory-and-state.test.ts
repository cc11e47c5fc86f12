// Black-box tests of the memory lifecycle and the work state shown by `zuno show` (issue 3:
// "Work state ... visible in zuno show"; memory_propose: "A user can list, accept and delete
// them from the CLI"; "Accepted memories are added to later sessions' context").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventsOf, execArgs, runZuno, temporaryWorkspace, useBuiltCli, useScriptedServers } from './cli';

useBuiltCli();

const scripted = useScriptedServers();

function memoryWorkspace(): string {
  const workspace = temporaryWorkspace();
  mkdirSync(join(workspace, '.zuno'), { recursive: true });
  writeFileSync(join(workspace, '.zuno', 'config.json'), JSON.stringify({ memory: { enabled: true } }));
  return workspace;
}

test('S2: a proposed memory is listed, and once accepted it reaches the next session’s system prompt', async () => {
  const workspace = memoryWorkspace();
  const first = await scripted([
    { toolCalls: [{ id: 'm1', name: 'memory_propose', arguments: { text: 'Run the tests with npm test.' } }] },
    { text: 'Proposed.' },
  ]);
  const proposing = await runZuno(execArgs(first.baseUrl, workspace, '--approve', 'allow', 'remember how to test'), { cwd: workspace });
  assert.equal(proposing.code, 0, proposing.stderr);
  assert.deepEqual(
    eventsOf(proposing.events, 'tool-call-finished').map((event) => event.outcome),
    ['ok'],
  );

  const listed = await runZuno(['memory', 'list', '--workspace', workspace, '--json'], { cwd: workspace });
  assert.equal(listed.code, 0, listed.stderr);
  const memories = JSON.parse(listed.stdout) as { id: string; status: string; text: string }[];
  assert.deepEqual(
    memories.map((memory) => [memory.status, memory.text]),
    [['proposed', 'Run the tests with npm test.']],
  );

  // A proposal is not yet context.
  const before = await scripted([{ text: 'ok' }]);
  assert.equal((await runZuno(execArgs(before.baseUrl, workspace, 'hello'), { cwd: workspace })).code, 0);
  assert.doesNotMatch(JSON.stringify(before.chatRequests()[0]?.body?.messages), /Run the tests with npm test/);

  const id = memories[0]?.id ?? '';
  const accepted = await runZuno(['memory', 'accept', id, '--workspace', workspace], { cwd: workspace });
  assert.equal(accepted.code, 0, accepted.stderr);
  assert.match(accepted.stdout, /^accepted .*Run the tests with npm test\./);

  const later = await scripted([{ text: 'ok' }]);
  assert.equal((await runZuno(execArgs(later.baseUrl, workspace, 'hello again'), { cwd: workspace })).code, 0);
  const system = later.chatRequests()[0]?.body?.messages.find((message) => message.role === 'system');
  assert.match(String(system?.content), /remember from earlier sessions:\n- Run the tests with npm test\./);

  const deleted = await runZuno(['memory', 'delete', id, '--workspace', workspace], { cwd: workspace });
  assert.equal(deleted.code, 0, deleted.stderr);
  const empty = await runZuno(['memory', 'list', '--workspace', workspace], { cwd: workspace });
  assert.match(empty.stdout, /No memories yet/);
  const unknown = await runZuno(['memory', 'accept', 'nope', '--workspace', workspace], { cwd: workspace });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no memory with id "nope"/);
});

test('S2: zuno show prints the session’s plan, todos and goal', async () => {
  const workspace = temporaryWorkspace();
  const server = await scripted([
    {
      toolCalls: [
        { id: 'p1', name: 'plan_update', arguments: { plan: '1. read\n2. fix' } },
        { id: 't1', name: 'todo_update', arguments: { todos: [{ id: '1', content: 'read the bug', status: 'completed' }] } },
        { id: 'g1', name: 'goal_update', arguments: { text: 'fix the bug' } },
      ],
    },
    { text: 'Planned.' },
  ]);
  const run = await runZuno(execArgs(server.baseUrl, workspace, '--approve', 'allow', 'plan it'), { cwd: workspace });
  assert.equal(run.code, 0, run.stderr);
  const sessionId = eventsOf(run.events, 'session-started')[0]?.session_id ?? '';
  const shown = await runZuno(['show', sessionId, '--workspace', workspace, '--json'], { cwd: workspace });
  const document = JSON.parse(shown.stdout) as { work_state: { plan: string; todos: unknown[]; goal: { text: string; status: string } } };
  assert.equal(document.work_state.plan, '1. read\n2. fix');
  assert.deepEqual(document.work_state.todos, [{ id: '1', content: 'read the bug', status: 'completed' }]);
  assert.deepEqual([document.work_state.goal.text, document.work_state.goal.status], ['fix the bug', 'active']);
  const human = await runZuno(['show', sessionId, '--workspace', workspace], { cwd: workspace });
  assert.match(
    human.stdout,
    /goal \(active\): fix the bug\nplan:\n {2}1\. read\n {2}2\. fix\ntodos:\n {2}\[x\] 1: read the bug \(completed\)/,
  );
});
