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
