// Issue 9, black box: `zuno sessions` lists a workspace's sessions with title, date and size and
// deletes them; `history.max_sessions` is applied when zuno exec starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execArgs, runZuno, temporaryWorkspace, useBuiltCli, useScriptedServers, workspaceStateDir } from './cli';

useBuiltCli();

const scripted = useScriptedServers();

test('issue 9: zuno sessions lists newest first with date, status, size and title; delete removes a session and its folder; bad input is exit 2', async () => {
  const workspace = temporaryWorkspace({ 'a.txt': 'a\n' });
  const server = await scripted([{ text: 'first answer' }, { text: 'second answer' }]);
  const ids: string[] = [];
  for (const prompt of ['first prompt', 'second prompt']) {
    const run = await runZuno(execArgs(server.baseUrl, workspace, prompt), { cwd: workspace });
    assert.equal(run.code, 0, run.stderr);
    ids.push(run.events[0]?.session_id ?? '');
  }
  const listed = await runZuno(['sessions', '--json'], { cwd: workspace });
  assert.equal(listed.code, 0, listed.stderr);
  const rows = JSON.parse(listed.stdout) as { id: string; status: string; bytes: number; updatedAt: number }[];
  assert.deepEqual(
    rows.map((row) => row.id),
    [...ids].reverse(),
    'newest first',
  );
  for (const row of rows) {
    assert.equal(row.status, 'done');
    assert.ok(row.bytes > 0, 'the size on disk is given');
  }
  const text = await runZuno(['sessions', 'list'], { cwd: workspace });
  assert.match(text.stdout, new RegExp(`^${ids[1]}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  done\\s+[\\d.]+ (B|KiB)  `, 'm'));

  const deleted = await runZuno(['sessions', 'delete', ids[0] ?? ''], { cwd: workspace });
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.equal(deleted.stdout, `deleted ${ids[0]}\n`);
  assert.equal(existsSync(join(workspaceStateDir(workspace), 'sessions', ids[0] ?? '')), false);
  const again = await runZuno(['sessions', 'delete', ids[0] ?? ''], { cwd: workspace });
  assert.equal(again.code, 2);
  assert.match(again.stderr, new RegExp(`There is no session "${ids[0]}" in .*zuno sessions`));
  const usage = await runZuno(['sessions', 'remove', 'x'], { cwd: workspace });
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /zuno sessions takes list or delete \(got "remove"\)/);
});

test('issue 9: history.max_sessions keeps the newest sessions, the new run included', async () => {
  const workspace = temporaryWorkspace({ '.zuno/config.json': JSON.stringify({ history: { max_sessions: 2 } }) });
  const server = await scripted([{ text: 'one' }, { text: 'two' }, { text: 'three' }, { text: 'four' }]);
  const ids: string[] = [];
  for (let index = 0; index < 4; index++) {
    const run = await runZuno(execArgs(server.baseUrl, workspace, `prompt ${index}`), { cwd: workspace });
    assert.equal(run.code, 0, run.stderr);
    ids.push(run.events[0]?.session_id ?? '');
  }
  const listed = await runZuno(['sessions', '--json'], { cwd: workspace });
  // Retention runs once the new session exists, so it counts: two remain, the one that just ran included.
  assert.deepEqual(
    (JSON.parse(listed.stdout) as { id: string }[]).map((row) => row.id),
    [ids[3], ids[2]],
  );
});

test('issue 14 item 10: zuno sessions nests a delegated task under the session that delegated it, titled by its goal; --json gives its parent id', async () => {
  const workspace = temporaryWorkspace({ 'a.txt': 'a\n' });
  // Parent asks for a task, the child answers, the parent ends; then a later session of its own.
  const server = await scripted([
    { toolCalls: [{ id: 'call_task', name: 'task', arguments: { goal: 'Summarize a.txt for the notes' } }] },
    { text: 'a.txt holds one line.' },
    { text: 'The task is done.' },
    { text: 'A later chat.' },
  ]);
  const parent = await runZuno(execArgs(server.baseUrl, workspace, '--approve', 'allow', 'delegate the summary'), { cwd: workspace });
  assert.equal(parent.code, 0, parent.stderr);
  const parentId = parent.events[0]?.session_id ?? '';
  const started = parent.events.find((event) => event.type === 'delegation-started');
  const childId = started?.type === 'delegation-started' ? started.child_session_id : '';
  assert.notEqual(childId, '', 'the run delegated');
  const later = await runZuno(execArgs(server.baseUrl, workspace, 'a later prompt'), { cwd: workspace });
  assert.equal(later.code, 0, later.stderr);
  const laterId = later.events[0]?.session_id ?? '';

  const listed = await runZuno(['sessions', '--json'], { cwd: workspace });
  assert.equal(listed.code, 0, listed.stderr);
  const rows = JSON.parse(listed.stdout) as { id: string; parentId?: string; parentCallId?: string; agent?: string; brief?: string }[];
  assert.deepEqual(
    rows.map((row) => [row.id, row.parentId, row.parentCallId, row.agent, row.brief]),
    [
      [laterId, undefined, undefined, undefined, undefined],
      [parentId, undefined, undefined, undefined, undefined],
      [childId, parentId, 'call_task', 'general', 'Summarize a.txt for the notes'],
    ],
    'newest first, the task right under its parent although it ran before the parent ended',
  );

  const text = await runZuno(['sessions'], { cwd: workspace });
  assert.equal(text.code, 0, text.stderr);
  const lines = text.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 3);
  assert.match(lines[0] ?? '', new RegExp(`^${laterId}  .*  a later prompt$`));
  assert.match(lines[1] ?? '', new RegExp(`^${parentId}  .*  delegate the summary$`));
  assert.match(
    lines[2] ?? '',
    new RegExp(`^  ${childId}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  done .*  task \\(general\\): Summarize a\\.txt for the notes$`),
  );
});
