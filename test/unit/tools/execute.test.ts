// execute (SPEC S3 slot, T3) over the CLI host's workspace tasks: a real package.json run with
// the real npm, and a real .vscode/tasks.json (with comments), in temp workspaces.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig, type ZunoConfigInput } from '../../../src/core/config';
import { ToolError } from '../../../src/core/errors';
import type { Host } from '../../../src/core/host';
import { ToolRegistry } from '../../../src/core/registry';
import type { ToolContext, ToolResult } from '../../../src/core/tool';
import { createNodeHost } from '../../../src/hosts/node/host';
import { defaultChildEnvironment } from '../../../src/hosts/node/processes';
import { createNodeWorkspaceTasks } from '../../../src/hosts/node/tasks';
import { executeTool } from '../../../src/tools/execute';
import { builtinToolRegistrations } from '../../../src/tools/index';
import { waitUntilGone } from '../../support/processes';
import { approveEverything, makeTempDir, makeToolContext, removeDir } from '../../support/tool-context';

const dirs: string[] = [];
after(() => dirs.forEach(removeDir));

function workspaceWith(files: Record<string, string>): { readonly root: string; readonly host: Host } {
  const root = makeTempDir('zuno-execute-');
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const base = createNodeHost({ stateDir: join(root, '.zuno', 'state'), approvals: approveEverything });
  return { root, host: { ...base, tasks: createNodeWorkspaceTasks(base.processes, defaultChildEnvironment) } };
}

const PACKAGE_JSON = JSON.stringify({
  name: 'sample',
  version: '1.0.0',
  scripts: {
    greet: 'echo hello-from-npm',
    fail: 'echo broken >&2; exit 4',
    hang: 'echo "pid=$$"; sleep 60 & echo "child=$!"; wait',
  },
});

const TASKS_JSON = `{
  // VS Code's tasks file allows comments and trailing commas.
  "version": "2.0.0",
  "tasks": [
    { "label": "build", "type": "shell", "command": "echo building \${workspaceFolderBasename}", "args": ["two words"], },
    { "label": "node-version", "type": "process", "command": "node", "args": ["-e", "console.log(6 * 7)"] },
    { "label": "in-sub", "type": "shell", "command": "pwd", "options": { "cwd": "\${workspaceFolder}/sub", "env": { "GREETING": "hi" } } },
    { "label": "all", "dependsOn": ["build", "node-version"] },
    { "label": "current-file", "type": "shell", "command": "cat \${file}" },
    { "label": "watch", "type": "shell", "command": "tsc -w", "isBackground": true },
    { "label": "gulp-build", "type": "gulp", "task": "build" },
    { "type": "npm", "script": "greet" },
  ],
}`;

async function execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  const parsed = executeTool.parse(args);
  assert.ok(parsed.success, JSON.stringify(parsed));
  return executeTool.run(parsed.args, ctx);
}

const contextFor = (root: string, host: Host, config: ZunoConfigInput = {}): ToolContext =>
  makeToolContext({ workspaceRoot: root, host, config });

test('T3 execute: list is ReadOnly/Safe/ParallelSafe; run is SideEffecting/Never/Exclusive; run needs a name', () => {
  const list = executeTool.parse({ action: 'list' });
  const run = executeTool.parse({ action: 'run', name: 'npm: test' });
  assert.ok(list.success && run.success);
  assert.deepEqual(executeTool.declarationsFor(list.args), { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' });
  assert.deepEqual(executeTool.declarationsFor(run.args), { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' });
  const nameless = executeTool.parse({ action: 'run' });
  assert.equal(nameless.success, false);
  if (!nameless.success) assert.match(nameless.error, /run needs the name of a task/);
});

test('S3 execute is a registered slot: not on the default surface, offered to an agent that names it, unavailable without host tasks', () => {
  const { root, host } = workspaceWith({});
  const registry = new ToolRegistry(builtinToolRegistrations());
  const env = { host, config: parseConfig({}), workspaceRoot: root };
  assert.ok(!registry.surface(env).some((tool) => tool.name === 'execute'));
  assert.equal(registry.availability('execute', env, ['execute', 'read']).available, true);
  // A host without workspace tasks (an editor host that offers none, say).
  const { tasks: _none, ...withoutTasks } = createNodeHost({ stateDir: join(root, 'state'), approvals: approveEverything });
  const bare = { ...env, host: withoutTasks };
  const availability = registry.availability('execute', bare, ['execute']);
  assert.equal(availability.available, false);
  if (!availability.available) assert.match(availability.reason, /no workspace tasks to run\. Use shell/);
});

test('S3: execute list shows package.json scripts and the tasks.json tasks, with the reason a task cannot run in the CLI', async () => {
  const { root, host } = workspaceWith({ 'package.json': PACKAGE_JSON, '.vscode/tasks.json': TASKS_JSON });
  const result = await execute({ action: 'list' }, contextFor(root, host));
  const lines = result.output.split('\n');
  assert.equal(lines[0], 'Workspace tasks (10):');
  assert.ok(lines.includes('- npm: greet: `npm run greet (runs: echo hello-from-npm)` (package.json)'));
  assert.ok(lines.includes(`- build: \`echo building ${root.split('/').pop() ?? ''} 'two words'\` (.vscode/tasks.json)`));
  assert.ok(lines.includes("- node-version: `node -e 'console.log(6 * 7)'` (.vscode/tasks.json)"));
  assert.match(result.output, /- all: .* cannot run here: it depends on other tasks \(dependsOn\)/);
  assert.match(result.output, /- current-file: .* cannot run here: it uses \$\{file\}, which only the editor can fill in/);
  assert.match(result.output, /- watch: .* cannot run here: it is a background \(watch\) task that never ends/);
  assert.match(result.output, /- gulp-build: .* cannot run here: its type "gulp" is provided by an editor extension/);
  // The npm task of tasks.json has the same name as the package.json script: offered once, and said so.
  assert.match(result.output, /a second task is named "npm: greet"; only the first one is offered/);
});

test('S3: execute runs an npm script through npm and reports the exit code and output', async () => {
  const { root, host } = workspaceWith({ 'package.json': PACKAGE_JSON });
  const ctx = makeToolContext({ workspaceRoot: root, host });
  const result = await execute({ action: 'run', name: 'npm: greet' }, ctx);
  assert.equal(result.status, 'ok');
  assert.match(result.output, /^exit code 0\n/);
  assert.match(result.output, /\nhello-from-npm\n/);
  assert.equal(result.metadata?.task, 'npm: greet');

  const failed = await execute({ action: 'run', name: 'npm: fail' }, ctx);
  assert.equal(failed.status, 'error');
  assert.match(failed.output, /^exit code 4\n/);
  assert.match(failed.output, /broken/);
});

test('S3: execute runs tasks.json shell and process tasks with their arguments, cwd and env', async () => {
  const { root, host } = workspaceWith({
    '.vscode/tasks.json': TASKS_JSON.replace('"command": "pwd"', '"command": "pwd; echo $GREETING"'),
    'sub/.keep': '',
  });
  const ctx = contextFor(root, host);
  const build = await execute({ action: 'run', name: 'build' }, ctx);
  assert.equal(build.output, `exit code 0\nbuilding ${root.split('/').pop() ?? ''} two words\n`);
  const node = await execute({ action: 'run', name: 'node-version' }, ctx);
  assert.equal(node.output, 'exit code 0\n42\n');
  const sub = await execute({ action: 'run', name: 'in-sub' }, ctx);
  assert.equal(sub.output, `exit code 0\n${join(root, 'sub')}\nhi\n`);
});

test("S3 execute: a timeout is indeterminate, keeps the output so far, and kills the task's whole group (R3)", async () => {
  const { root, host } = workspaceWith({ 'package.json': PACKAGE_JSON });
  // Long enough for npm itself to start on a loaded machine, so the script has printed its pids.
  // Followed by host PID (`$$`), so outside the sandbox's PID namespace (issue 12).
  const result = await execute(
    { action: 'run', name: 'npm: hang', timeout_ms: 5000 },
    contextFor(root, host, { sandbox: { mode: 'off' } }),
  );
  assert.equal(result.status, 'indeterminate');
  assert.match(result.output, /^timed out: the task "npm: hang" was stopped after 5000 ms/);
  assert.match(result.output, /will not be re-run automatically/);
  const child = Number(/child=(\d+)/.exec(result.output)?.[1]);
  const pid = Number(/pid=(\d+)/.exec(result.output)?.[1]);
  assert.ok(child > 0 && pid > 0, result.output);
  assert.ok(await waitUntilGone(child), 'the sleep the script started is gone');
  assert.ok(await waitUntilGone(pid), 'the script shell is gone');
});

test('S3 execute: an unknown task is an error listing the known ones; a task the CLI cannot run says what to do instead', async () => {
  const { root, host } = workspaceWith({ 'package.json': PACKAGE_JSON, '.vscode/tasks.json': TASKS_JSON });
  const ctx = contextFor(root, host);
  // Exact names only: "greet" is not "npm: greet", because the name is what permission rules match.
  await assert.rejects(
    execute({ action: 'run', name: 'greet' }, ctx),
    (error: unknown) =>
      error instanceof ToolError &&
      /There is no workspace task "greet"\. The tasks are: "npm: greet", "npm: fail", "npm: hang", "build"/.test(error.message),
  );
  await assert.rejects(
    execute({ action: 'run', name: 'watch' }, ctx),
    (error: unknown) =>
      error instanceof ToolError &&
      /"watch" cannot run here: it is a background .* Run what it does with shell instead: `tsc -w`/.test(error.message),
  );
});

test('S3 execute: a malformed tasks.json is reported, not fatal; the package.json scripts still run', async () => {
  const { root, host } = workspaceWith({ 'package.json': PACKAGE_JSON, '.vscode/tasks.json': '{ "tasks": [ { "label": "x", } ' });
  const ctx = contextFor(root, host);
  const listed = await execute({ action: 'list' }, ctx);
  assert.match(listed.output, /Workspace tasks \(3\)/);
  assert.match(listed.output, /\.vscode\/tasks\.json is malformed: .* at line 1/);
  const run = await execute({ action: 'run', name: 'npm: greet' }, ctx);
  assert.equal(run.status, 'ok');
});

test('S3: execute in a workspace without tasks says to use shell', async () => {
  const { root, host } = workspaceWith({});
  const result = await execute({ action: 'list' }, contextFor(root, host));
  assert.match(result.output, /The workspace defines no tasks .* Use shell instead\./);
  await assert.rejects(
    execute({ action: 'run', name: 'npm: test' }, contextFor(root, host)),
    (error: unknown) => error instanceof ToolError && /defines none: use shell instead/.test(error.message),
  );
});

test('issue 8 §9 env filter: a task neither inherits a secret nor copies one in with ${env:NAME}', async () => {
  process.env.ZUNO_TASK_TEST_TOKEN = 'task-token-value';
  process.env.ZUNO_TASK_TEST_PLAIN = 'task-plain-value';
  try {
    const tasks = JSON.stringify({
      version: '2.0.0',
      tasks: [
        {
          label: 'leak',
          type: 'shell',
          command: 'echo "arg=${env:ZUNO_TASK_TEST_TOKEN} inherited=$ZUNO_TASK_TEST_TOKEN plain=${env:ZUNO_TASK_TEST_PLAIN}"',
        },
      ],
    });
    const { root, host } = workspaceWith({ '.vscode/tasks.json': tasks });
    const result = await execute({ action: 'run', name: 'leak' }, contextFor(root, host));
    assert.match(result.output, /arg= inherited= plain=task-plain-value/);
    assert.doesNotMatch(result.output, /task-token-value/);
  } finally {
    delete process.env.ZUNO_TASK_TEST_TOKEN;
    delete process.env.ZUNO_TASK_TEST_PLAIN;
  }
});
