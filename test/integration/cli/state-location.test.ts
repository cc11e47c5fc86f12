// Black-box tests of issue 9 "State outside the workspace" through the built CLI: the default
// state dir is a per-user folder keyed by the workspace's real path, and an old
// `<workspace>/.zuno/state` (a copy of a store written by Zuno 0.1.0) is migrated on first open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURE_0_1_0, FIXTURE_SESSIONS } from '../../support/make-store-fixture';
import { eventsOf, execArgs, runZuno, temporaryWorkspace, useBuiltCli, useScriptedServers, workspaceStateDir } from './cli';

useBuiltCli();

const scripted = useScriptedServers();

/** A workspace whose `.zuno/state` is a copy of the 0.1.0 fixture. */
function oldWorkspace(): { workspace: string; legacy: string } {
  const workspace = temporaryWorkspace({ 'README.md': 'hello\n' });
  const legacy = join(workspace, '.zuno', 'state');
  cpSync(FIXTURE_0_1_0, legacy, { recursive: true });
  return { workspace, legacy };
}

const snapshot = (dir: string): string[][] =>
  readdirSync(dir)
    .sort()
    .map((name) => [name, readFileSync(join(dir, name), 'base64')]);

test('issue 9: exec, then show and memory from another directory and through a symlink, find the same store; nothing is written into the workspace', async () => {
  const workspace = temporaryWorkspace({ 'a.txt': 'a\n' });
  const server = await scripted([{ text: 'hello back' }]);
  const run = await runZuno(execArgs(server.baseUrl, workspace, 'hello'), { cwd: workspace });
  assert.equal(run.code, 0, run.stderr);
  const sessionId = run.events[0]?.session_id ?? '';
  assert.equal(existsSync(join(workspace, '.zuno')), false);

  const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-elsewhere-')));
  const link = join(elsewhere, 'link-to-workspace');
  symlinkSync(workspace, link);
  for (const spelling of [workspace, link]) {
    const shown = await runZuno(['show', sessionId, '--workspace', spelling, '--json'], { cwd: elsewhere });
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal((JSON.parse(shown.stdout) as { session: { id: string } }).session.id, sessionId);
  }
  const shownFromLink = await runZuno(['show', sessionId], { cwd: link });
  assert.equal(shownFromLink.code, 0, shownFromLink.stderr);
  const memories = await runZuno(['memory', 'list', '--json'], { cwd: link });
  assert.equal(memories.code, 0, memories.stderr);
  assert.ok(
    existsSync(join(workspaceStateDir(workspace), 'sessions', sessionId, 'journal.jsonl')),
    'the session has its own folder (issue 9)',
  );
});

test('issue 9 migration: zuno show on a workspace with a 0.1.0 .zuno/state moves it out, says where, keeps the old copy renamed, and shows the old session', async () => {
  const { workspace, legacy } = oldWorkspace();
  const before = snapshot(legacy);
  const shown = await runZuno(['show', 'session-alpha', '--workspace', workspace, '--json'], { cwd: workspace });
  assert.equal(shown.code, 0, shown.stderr);
  const document = JSON.parse(shown.stdout) as {
    session: { id: string; status: string };
    calls: { call_id: string; outcome: string; output: string }[];
  };
  assert.equal(document.session.status, 'done');
  assert.deepEqual(
    document.calls.map((call) => call.call_id),
    [...FIXTURE_SESSIONS['session-alpha']],
  );
  assert.deepEqual(
    document.calls.map((call) => call.output),
    ['contents of file-0.txt', 'contents of file-1.txt', 'contents of file-2.txt'],
  );

  const stateDir = workspaceStateDir(workspace);
  const renamed = readdirSync(join(workspace, '.zuno')).filter((name) => name.startsWith('state'));
  assert.equal(renamed.length, 1);
  assert.match(renamed[0] ?? '', /^state\.migrated-\d{4}-\d{2}-\d{2}$/);
  const oldCopy = join(workspace, '.zuno', renamed[0] ?? '');
  assert.deepEqual(snapshot(oldCopy), before, 'the old copy is kept byte for byte');
  assert.ok(shown.stderr.includes(stateDir), shown.stderr);
  assert.ok(shown.stderr.includes(oldCopy), shown.stderr);

  // The second open finds the moved store and says nothing more.
  const again = await runZuno(['show', 'session-beta', '--workspace', workspace, '--json'], { cwd: workspace });
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(
    (JSON.parse(again.stdout) as { calls: { call_id: string }[] }).calls.map((call) => call.call_id),
    [...FIXTURE_SESSIONS['session-beta']],
  );
  assert.doesNotMatch(again.stderr, /now lives/);
});

test('issue 9 migration: zuno exec resumes a migrated 0.1.0 session, and the notice is a notice event of that session', async () => {
  const { workspace } = oldWorkspace();
  const server = await scripted([{ text: 'resumed' }]);
  const run = await runZuno(execArgs(server.baseUrl, workspace, '--session', 'session-beta', 'go on'), { cwd: workspace });
  assert.equal(run.code, 0, run.stderr);
  const notices = eventsOf(run.events, 'notice').filter((event) => event.text.includes('now lives in'));
  assert.equal(notices.length, 1);
  assert.equal(notices[0]?.session_id, 'session-beta');
  assert.ok(notices[0]?.text.includes(workspaceStateDir(workspace)));
  assert.match(notices[0]?.text ?? '', /state\.migrated-\d{4}-\d{2}-\d{2}/);
  assert.match(run.stderr, /now lives in/, 'and a line on stderr for a person');
  // The old transcript reached the model: the session really continued.
  assert.match(JSON.stringify(server.chatRequests()[0]?.body?.messages), /list the files \(session-beta\)/);
});

test('issue 9 migration: a migration that cannot write the new folder fails with exit 2, names both folders, and leaves the old one untouched', async () => {
  const { workspace, legacy } = oldWorkspace();
  const before = snapshot(legacy);
  const blocked = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-blocked-')));
  // A file where the state folder should go: the copy cannot be made (as root too).
  writeFileSync(join(blocked, 'zuno'), 'not a folder');
  const shown = await runZuno(['show', 'session-alpha', '--workspace', workspace], { cwd: workspace, env: { XDG_STATE_HOME: blocked } });
  assert.equal(shown.code, 2);
  assert.ok(shown.stderr.includes(legacy), shown.stderr);
  assert.ok(shown.stderr.includes(join(blocked, 'zuno', 'workspaces')), shown.stderr);
  assert.match(shown.stderr, /is untouched/);
  assert.deepEqual(snapshot(legacy), before);
  assert.deepEqual(readdirSync(join(workspace, '.zuno')), ['state']);
});

test('issue 9 migration: two first opens at once, in two processes, migrate once and both read the moved store', async () => {
  const { workspace } = oldWorkspace();
  const [alpha, beta] = await Promise.all([
    runZuno(['show', 'session-alpha', '--workspace', workspace, '--json'], { cwd: workspace }),
    runZuno(['show', 'session-beta', '--workspace', workspace, '--json'], { cwd: workspace }),
  ]);
  assert.equal(alpha.code, 0, alpha.stderr);
  assert.equal(beta.code, 0, beta.stderr);
  assert.equal([alpha, beta].filter((run) => /now lives in/.test(run.stderr)).length, 1, 'one of them moved it');
  assert.deepEqual(
    (JSON.parse(beta.stdout) as { calls: { call_id: string }[] }).calls.map((call) => call.call_id),
    [...FIXTURE_SESSIONS['session-beta']],
  );
  assert.equal(readdirSync(join(workspace, '.zuno')).length, 1);
  assert.match(readdirSync(join(workspace, '.zuno'))[0] ?? '', /^state\.migrated-/);
});
