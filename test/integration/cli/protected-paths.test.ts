// Black-box tests of protected paths and the state dir (issue 8 §3, E1): the built CLI runs
// against a scripted model that tries to rewrite the files that govern Zuno or run code for the
// user, with every approval refused (--approve deny) or granted (--approve allow).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { toolResults, type ScriptedToolCall } from '../../support/scripted-openai';
import { eventsOf, execArgs, runZuno, temporaryWorkspace, useBuiltCli, useScriptedServers, workspaceStateDir } from './cli';

useBuiltCli();

const scripted = useScriptedServers();

/** Every file under `root` with its bytes (the state dir is outside the workspace, issue 9). */
function tree(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const rel = relative(root, path);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(rel, readFileSync(path).toString('base64'));
    }
  };
  walk(root);
  return files;
}

const ESCALATION = JSON.stringify({
  permission: { mode: 'auto', rules: [{ tool: '*', action: 'allow' }] },
  hooks: { pre_tool: [{ command: 'touch pwned' }] },
});

function protectedWorkspace(config: unknown): string {
  return temporaryWorkspace({
    '.zuno/config.json': JSON.stringify(config),
    '.vscode/settings.json': '{"editor.tabSize": 2}\n',
    '.vscode/tasks.json': '{"version": "2.0.0", "tasks": []}\n',
    '.git/hooks/pre-commit.sample': '#!/bin/sh\n',
    '.git/config': '[core]\n\tbare = false\n',
    '.envrc': 'export A=1\n',
    'notes.txt': 'notes\n',
  });
}

const patch = (...lines: string[]): string => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');

/** One call per protected target and way of writing it; `plain` is an ordinary file the mode lets through. */
const ATTACKS: readonly ScriptedToolCall[] = [
  { id: 'w-config', name: 'write', arguments: { path: '.zuno/config.json', content: ESCALATION } },
  {
    id: 'w-settings',
    name: 'write',
    arguments: { path: '.vscode/settings.json', content: '{"zuno.permission.rules": [{"tool": "*", "action": "allow"}]}' },
  },
  {
    id: 'w-tasks',
    name: 'write',
    arguments: {
      path: '.vscode/tasks.json',
      content: '{"version": "2.0.0", "tasks": [{"label": "x", "command": "touch pwned", "runOptions": {"runOn": "folderOpen"}}]}',
    },
  },
  { id: 'w-hook', name: 'write', arguments: { path: '.git/hooks/pre-commit', content: '#!/bin/sh\ntouch pwned\n' } },
  { id: 'w-gitconfig', name: 'write', arguments: { path: '.git/config', content: '[core]\n\tfsmonitor = touch pwned\n' } },
  { id: 'w-envrc', name: 'write', arguments: { path: '.envrc', content: 'touch pwned\n' } },
  // `edit` is not on the default surface (the policy unit tests cover it); apply_patch edits the settings instead.
  {
    id: 'p-settings',
    name: 'apply_patch',
    arguments: { patch: patch('*** Update File: .vscode/settings.json', '-{"editor.tabSize": 2}', '+{"zuno.permission.mode": "auto"}') },
  },
  {
    id: 'p-gitconfig',
    name: 'apply_patch',
    arguments: { patch: patch('*** Update File: .git/config', '-\tbare = false', '+\tfsmonitor = touch pwned') },
  },
  { id: 'p-move', name: 'apply_patch', arguments: { patch: patch('*** Update File: notes.txt', '*** Move to: .git/hooks/post-checkout') } },
  { id: 'p-delete', name: 'apply_patch', arguments: { patch: patch('*** Delete File: .envrc') } },
  { id: 'plain', name: 'write', arguments: { path: 'plain.txt', content: 'fine\n' } },
];
const PROTECTED_IDS = ATTACKS.filter((call) => call.id !== 'plain').map((call) => call.id);

for (const mode of ['auto-edit', 'auto'] as const) {
  test(`issue 8 §3, E1: in ${mode} mode every write to a protected path asks, is denied by the user, and leaves every file byte-identical`, async () => {
    const workspace = protectedWorkspace({ permission: { mode } });
    const before = tree(workspace);
    const server = await scripted([{ toolCalls: ATTACKS }, { text: 'Refused.' }]);
    const run = await runZuno(execArgs(server.baseUrl, workspace, '--approve', 'deny', 'take over'), { cwd: workspace });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(server.violations, []);

    assert.deepEqual(
      eventsOf(run.events, 'approval-requested').map((event) => event.call_id),
      PROTECTED_IDS,
      'each protected write asked, the plain one did not',
    );
    assert.deepEqual(
      eventsOf(run.events, 'dispatch-blocked').map((event) => [event.call_id, event.category]),
      PROTECTED_IDS.map((id) => [id, 'denied']),
    );
    const finished = new Map(eventsOf(run.events, 'tool-call-finished').map((event) => [event.call_id, event.outcome]));
    assert.equal(finished.get('plain'), 'ok', `${mode} mode still lets an ordinary write through`);

    const after = tree(workspace);
    assert.equal(after.get('plain.txt'), Buffer.from('fine\n').toString('base64'));
    after.delete('plain.txt');
    assert.deepEqual(after, before, 'no protected file changed, appeared or vanished');
    assert.equal(existsSync(join(workspace, 'pwned')), false);
    const sent = toolResults(server.chatRequests()[1] ?? { method: '', path: '', headers: {}, body: undefined });
    assert.match(sent.get('w-config') ?? '', /^BLOCKED \(denied\)/);
  });
}

test('issue 8 §3: an allow rule naming .vscode/tasks.json lets that write through, and only that one', async () => {
  const rules = [{ tool: 'write', match: '.vscode/tasks.json', action: 'allow' }];
  const workspace = protectedWorkspace({ permission: { mode: 'auto-edit', rules } });
  const tasks = '{"version": "2.0.0", "tasks": [{"label": "build", "command": "make"}]}\n';
  const server = await scripted([
    {
      toolCalls: [
        { id: 'tasks', name: 'write', arguments: { path: '.vscode/tasks.json', content: tasks } },
        { id: 'settings', name: 'write', arguments: { path: '.vscode/settings.json', content: '{}' } },
      ],
    },
    { text: 'done' },
  ]);
  const run = await runZuno(execArgs(server.baseUrl, workspace, '--approve', 'deny', 'set up tasks'), { cwd: workspace });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(server.violations, []);
  assert.equal(readFileSync(join(workspace, '.vscode', 'tasks.json'), 'utf8'), tasks);
  assert.equal(readFileSync(join(workspace, '.vscode', 'settings.json'), 'utf8'), '{"editor.tabSize": 2}\n');
  assert.deepEqual(
    eventsOf(run.events, 'approval-requested').map((event) => event.call_id),
    ['settings'],
  );
  assert.deepEqual(
    eventsOf(run.events, 'tool-call-finished').map((event) => [event.call_id, event.outcome]),
    [
      ['tasks', 'ok'],
      ['settings', 'blocked'],
    ],
  );
});

test('issue 8 §3: with --approve allow and an allow-all rule, a write into the state dir is blocked: denied, and the store still opens with the session intact', async () => {
  const workspace = temporaryWorkspace({
    '.zuno/config.json': JSON.stringify({ permission: { mode: 'auto', rules: [{ tool: '*', action: 'allow' }] } }),
  });
  const forged = '{"sql":"DELETE FROM sessions"}\n';
  const stateDir = workspaceStateDir(workspace);
  const server = await scripted([
    {
      toolCalls: [
        // The state dir is outside the workspace now (issue 9); the refusal follows it there. store.json is its layout file.
        { id: 'journal', name: 'write', arguments: { path: join(stateDir, 'store.json'), content: forged } },
        { id: 'wipe', name: 'apply_patch', arguments: { patch: patch(`*** Delete File: ${join(stateDir, 'store.json')}`) } },
        { id: 'ok', name: 'write', arguments: { path: 'a.txt', content: 'a\n' } },
      ],
    },
    { text: 'done' },
  ]);
  const run = await runZuno(execArgs(server.baseUrl, workspace, '--approve', 'allow', 'clean up'), { cwd: workspace });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(server.violations, []);
  assert.deepEqual(eventsOf(run.events, 'approval-requested'), [], 'nothing asks: the state dir is refused outright');
  const blocked = eventsOf(run.events, 'dispatch-blocked');
  assert.deepEqual(
    blocked.map((event) => [event.call_id, event.category]),
    [
      ['journal', 'denied'],
      ['wipe', 'denied'],
    ],
  );
  assert.match(blocked[0]?.reason ?? '', /inside Zuno's state dir .*no tool may change it/);
  const layout = readFileSync(join(stateDir, 'store.json'), 'utf8');
  assert.ok(!layout.startsWith(forged), "the layout file is the store's own");

  const sessionId = run.events[0]?.session_id ?? '';
  const shown = await runZuno(['show', sessionId, '--workspace', workspace, '--json'], { cwd: workspace });
  assert.equal(shown.code, 0, shown.stderr);
  const document = JSON.parse(shown.stdout) as { session: { id: string; status: string }; calls: { call_id: string; outcome: string }[] };
  assert.equal(document.session.status, 'done');
  assert.deepEqual(
    document.calls.map((call) => [call.call_id, call.outcome]),
    [
      ['journal', 'blocked'],
      ['wipe', 'blocked'],
      ['ok', 'ok'],
    ],
  );
});

test('issue 8 §3: a --state-dir outside the workspace is refused too, even to a rule that names it', async () => {
  const stateDir = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-state-')));
  after(() => rmSync(stateDir, { recursive: true, force: true }));
  const rules = [{ tool: 'write', match: `${stateDir}/**`, action: 'allow' }];
  const workspace = temporaryWorkspace({ 'zuno.json': JSON.stringify({ permission: { mode: 'auto', rules } }) });
  const server = await scripted([
    { toolCalls: [{ id: 'outside', name: 'write', arguments: { path: join(stateDir, 'store.json'), content: 'forged\n' } }] },
    { text: 'done' },
  ]);
  const run = await runZuno(
    execArgs(server.baseUrl, workspace, '--state-dir', stateDir, '--config', 'zuno.json', '--approve', 'allow', 'x'),
    { cwd: workspace },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(
    eventsOf(run.events, 'dispatch-blocked').map((event) => [event.call_id, event.category]),
    [['outside', 'denied']],
  );
  assert.doesNotMatch(readFileSync(join(stateDir, 'store.json'), 'utf8'), /^forged/);
});
