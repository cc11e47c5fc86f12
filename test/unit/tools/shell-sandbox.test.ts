/**
 * issue 12: the shell sandbox on real bubblewrap. Each test runs real commands through the shell
 * tool on the node host and checks the disk, the processes and the network afterwards.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { BackgroundJobs } from '../../../src/core/background';
import { EventBus } from '../../../src/core/events';
import { parseConfig, type ZunoConfigInput } from '../../../src/core/config';
import type { Host } from '../../../src/core/host';
import { ToolRegistry } from '../../../src/core/registry';
import { planSandbox, SANDBOX_OFF_NOTICE } from '../../../src/core/sandbox';
import { Scheduler } from '../../../src/core/scheduler';
import { createNodeHost } from '../../../src/hosts/node/host';
import { createProcessRunner, defaultChildEnvironment } from '../../../src/hosts/node/processes';
import { createNodeWorkspaceTasks } from '../../../src/hosts/node/tasks';
import { executeTool } from '../../../src/tools/execute';
import { createProcessLimit, createSandboxSupport } from '../../../src/hosts/node/sandbox';
import { shellTool } from '../../../src/tools/shell';
import { MemoryLedger } from '../../support/memory-ledger';
import { makeTempDir, makeToolContext, removeDir } from '../../support/tool-context';
import { ScriptedApprovals, testEnvironment } from '../core/fixtures';

const workspace = makeTempDir('zuno-sandbox-');
const stateDir = makeTempDir('zuno-sandbox-state-');
// Outside /tmp, which is private inside the sandbox: a place on the read-only root.
const outside = mkdtempSync('/var/tmp/zuno-sandbox-outside-');
const home = makeTempDir('zuno-sandbox-home-');
mkdirSync(join(home, '.ssh'));
writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PRIVATE-KEY-MATERIAL\n');
after(() => {
  for (const directory of [workspace, stateDir, home]) removeDir(directory);
  rmSync(outside, { recursive: true, force: true });
});

const approveEverything = new ScriptedApprovals();
/** The node host, with the sandbox hiding the secrets of a home folder made for the test. */
const sandboxedHost = createNodeHost({ stateDir, approvals: approveEverything, sandbox: createSandboxSupport({ home }) });
/** A host on which bwrap is not on PATH. */
const hostWithoutBwrap = createNodeHost({
  stateDir,
  approvals: approveEverything,
  sandbox: createSandboxSupport({ home, path: '/nonexistent' }),
});

async function shell(args: Record<string, unknown>, config: ZunoConfigInput = {}, host: Host = sandboxedHost) {
  const parsed = shellTool.parse(args);
  assert.ok(parsed.success, JSON.stringify(parsed));
  return shellTool.run(parsed.args, makeToolContext({ workspaceRoot: workspace, stateDir, host, config }));
}

test('issue 12: a write inside the workspace works in the sandbox, and the result does not say unsandboxed', async () => {
  const result = await shell({ command: 'echo made > inside.txt && cat inside.txt' });
  assert.equal(result.status, 'ok');
  assert.equal(result.output, 'exit code 0\nmade\n');
  assert.equal(readFileSync(join(workspace, 'inside.txt'), 'utf8'), 'made\n');
  assert.equal(result.metadata?.sandbox, 'workspace-write, network off');
});

test('issue 12: a write outside the workspace fails, and the result says the sandbox refused it', async () => {
  const target = join(outside, 'escaped.txt');
  const result = await shell({ command: `echo x > ${target}` });
  assert.equal(result.status, 'error');
  assert.match(result.output, /Read-only file system/);
  assert.match(
    result.output,
    /\[sandbox \(workspace-write, network off\): the failure looks like the sandbox refused it: a write was refused/,
  );
  assert.match(result.output, /"sandbox": "off"/);
  assert.equal(existsSync(target), false);
});

test('issue 12: .git/config cannot be written from the shell in workspace-write', async () => {
  execFileSync('git', ['init', '-q', workspace]);
  const before = readFileSync(join(workspace, '.git', 'config'), 'utf8');
  const result = await shell({ command: 'echo "[core]\n\thooksPath = /evil" >> .git/config' });
  assert.equal(result.status, 'error');
  assert.match(result.output, /Read-only file system/);
  const config = await shell({ command: 'git config core.hooksPath /evil' });
  assert.equal(config.status, 'error');
  assert.equal(readFileSync(join(workspace, '.git', 'config'), 'utf8'), before);
});

test('issue 12: a .vscode or .zuno that does not exist yet cannot be created from the sandbox, and the result says the sandbox refused it', async () => {
  const fresh = makeTempDir('zuno-sandbox-fresh-');
  try {
    const run = async (command: string) => {
      const parsed = shellTool.parse({ command });
      assert.ok(parsed.success);
      return shellTool.run(parsed.args, makeToolContext({ workspaceRoot: fresh, stateDir, host: sandboxedHost }));
    };
    const tasks = await run('mkdir .vscode && echo x > .vscode/tasks.json');
    assert.equal(tasks.status, 'error');
    assert.match(tasks.output, /File exists/);
    assert.match(
      tasks.output,
      /the failure looks like the sandbox refused it: the workspace's \.git, \.zuno and \.vscode cannot be created/,
    );
    const config = await run('mkdir -p .zuno && echo "{}" > .zuno/config.json');
    assert.equal(config.status, 'error');
    assert.match(config.output, /Read-only file system/);
    assert.match(config.output, /the failure looks like the sandbox refused it/);
    const hooks = await run('mkdir -p .git/hooks');
    assert.equal(hooks.status, 'error');
    assert.equal(existsSync(join(fresh, '.vscode', 'tasks.json')), false);
    assert.equal(existsSync(join(fresh, '.zuno', 'config.json')), false);
    assert.equal(existsSync(join(fresh, '.git', 'hooks')), false);
    // What the host keeps is bwrap's empty mount points, which git and the editor ignore.
    for (const entry of ['.vscode', '.zuno', '.git'])
      if (existsSync(join(fresh, entry))) assert.deepEqual(readdirSync(join(fresh, entry)), [], `${entry} is empty`);
    const ordinary = await run('mkdir -p src && echo ok > src/a.txt && cat src/a.txt');
    assert.equal(ordinary.output, 'exit code 0\nok\n', 'the rest of the workspace stays writable');
  } finally {
    removeDir(fresh);
  }
});

test('issue 12: a missing .vscode is held too when the workspace is reached through a symlink', async () => {
  const fresh = makeTempDir('zuno-sandbox-fresh-');
  const link = join(home, 'linked-fresh');
  symlinkSync(fresh, link);
  try {
    const parsed = shellTool.parse({ command: 'mkdir -p .vscode && echo x > .vscode/tasks.json' });
    assert.ok(parsed.success);
    const result = await shellTool.run(parsed.args, makeToolContext({ workspaceRoot: link, stateDir, host: sandboxedHost }));
    assert.equal(result.status, 'error', result.output);
    assert.equal(existsSync(join(fresh, '.vscode', 'tasks.json')), false);
  } finally {
    rmSync(link);
    removeDir(fresh);
  }
});

test("issue 12 the store's state dir is not in the sandbox: its files cannot be read nor changed", async () => {
  mkdirSync(join(stateDir, 'outputs'), { recursive: true });
  writeFileSync(join(stateDir, 'outputs', 'record.txt'), 'the record\n');
  const result = await shell({ command: `cat ${join(stateDir, 'outputs', 'record.txt')}; echo tampered > ${join(stateDir, 'x')}` });
  assert.equal(result.status, 'error');
  assert.doesNotMatch(result.output, /the record/);
  assert.equal(existsSync(join(stateDir, 'x')), false);
});

test('issue 12: ~/.ssh is not readable in the sandbox', async () => {
  const result = await shell({ command: `cat ${join(home, '.ssh', 'id_ed25519')}` });
  assert.equal(result.status, 'error');
  assert.doesNotMatch(result.output, /PRIVATE-KEY-MATERIAL/);
  assert.match(result.output, /No such file/);
});

async function listen(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.end('hello from the host\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return { server, port: address.port };
}

const connect = (port: number): string =>
  `${JSON.stringify(process.execPath)} -e "const s = require('net').connect(${port}, '127.0.0.1'); s.on('data', (d) => process.stdout.write(d)); s.on('error', (e) => { console.error(e.code); process.exit(7); })"`;

test('issue 12: a connection to a loopback port fails with the network off and works with it on', async () => {
  const { server, port } = await listen();
  try {
    const off = await shell({ command: connect(port) });
    assert.equal(off.status, 'error');
    assert.match(off.output, /ECONNREFUSED/);
    assert.match(off.output, /a connection failed: the network is off in the sandbox/);
    const on = await shell({ command: connect(port) }, { sandbox: { network: true } });
    assert.equal(on.status, 'ok', on.output);
    assert.match(on.output, /hello from the host/);
  } finally {
    server.close();
  }
});

/** Host processes whose command line contains `marker`. */
function processesWith(marker: string): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      return readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker) ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

test('issue 12 a setsid daemon dies with the call: no late file, no process left', async () => {
  const result = await shell({ command: "setsid sh -c 'sleep 2.71828; touch late' > /dev/null 2>&1 & echo started" });
  assert.equal(result.status, 'ok');
  // The kernel ends the namespace's processes as the call ends; give it a moment, well under the sleep.
  for (let waited = 0; processesWith('sleep\u00002.71828').length > 0 && waited < 1500; waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(processesWith('sleep\u00002.71828'), [], 'nothing is left running');
  await new Promise((resolve) => setTimeout(resolve, 3500));
  assert.equal(existsSync(join(workspace, 'late')), false);
});

test('issue 12 read-only mode: nothing is writable but the private temp dir', async () => {
  const result = await shell(
    { command: 'echo t > /tmp/scratch && cat /tmp/scratch && echo w > readonly.txt' },
    { sandbox: { mode: 'read-only' } },
  );
  assert.equal(result.status, 'error');
  assert.match(result.output, /^exit code \d+\nt\n/);
  assert.match(result.output, /in read-only mode only the private temp dir is writable/);
  assert.equal(existsSync(join(workspace, 'readonly.txt')), false);
});

test('issue 12: sandbox.writable adds a writable path outside the workspace', async () => {
  const result = await shell({ command: `echo ok > ${join(outside, 'allowed.txt')}` }, { sandbox: { writable: [outside] } });
  assert.equal(result.status, 'ok', result.output);
  assert.equal(readFileSync(join(outside, 'allowed.txt'), 'utf8'), 'ok\n');
});

test('issue 12: a glob in sandbox.writable makes what it matches writable when the command starts, and nothing else, symlinks not followed', async () => {
  for (const folder of ['cache-1', 'cache-2', 'other']) mkdirSync(join(outside, folder));
  symlinkSync(join(outside, 'other'), join(outside, 'cache-link'));
  const config = { sandbox: { writable: [`${outside}/cache-*`] } };
  const allowed = await shell({ command: `echo one > ${outside}/cache-1/f && echo two > ${outside}/cache-2/f` }, config);
  assert.equal(allowed.status, 'ok', allowed.output);
  assert.equal(readFileSync(join(outside, 'cache-2', 'f'), 'utf8'), 'two\n');
  const sibling = await shell({ command: `echo x > ${outside}/other/f` }, config);
  assert.equal(sibling.status, 'error');
  assert.match(sibling.output, /Read-only file system/);
  const throughLink = await shell({ command: `echo x > ${outside}/cache-link/f` }, config);
  assert.equal(throughLink.status, 'error', 'a symlink that matches is not followed to its target');
  assert.equal(existsSync(join(outside, 'other', 'f')), false);
  // A folder made after one call is matched by the next.
  mkdirSync(join(outside, 'cache-3'));
  assert.equal((await shell({ command: `echo three > ${outside}/cache-3/f` }, config)).status, 'ok');
});

test("issue 12: a glob over the workspace's parent leaves the workspace's .git read-only and the state dir hidden", async () => {
  execFileSync('git', ['init', '-q', workspace]);
  const parent = join(workspace, '..');
  // The glob matches the workspace (a parent of its .git) and the state dir, which stay as they were.
  const result = await shell(
    { command: `touch ${stateDir}/planted 2>/dev/null || echo state-refused; echo x >> .git/config` },
    { sandbox: { writable: [`${parent}/zuno-sandbox-*`] } },
  );
  assert.equal(result.status, 'error');
  assert.match(result.output, /state-refused/);
  assert.match(result.output, /Read-only file system/);
  assert.doesNotMatch(readFileSync(join(workspace, '.git', 'config'), 'utf8'), /^x$/m);
  assert.equal(existsSync(join(stateDir, 'planted')), false);
});

test('issue 12: without bwrap and without sandbox.required the command runs and the result says unsandboxed, with the reason', async () => {
  const result = await shell({ command: 'echo ran' }, {}, hostWithoutBwrap);
  assert.equal(result.status, 'ok');
  assert.equal(
    result.output,
    'exit code 0\n[unsandboxed (bwrap (bubblewrap) was not found on PATH): this command ran with your full permissions]\nran\n',
  );
  assert.match(
    String(result.metadata?.sandboxNotice),
    /Commands run unsandboxed: bwrap \(bubblewrap\) was not found on PATH\. Install bubblewrap/,
  );
});

function schedulerOn(bwrap: 'with bwrap' | 'without bwrap', config: ZunoConfigInput, approvals = new ScriptedApprovals()) {
  const sandbox = createSandboxSupport({ home, ...(bwrap === 'without bwrap' ? { path: '/nonexistent' } : {}) });
  const host = createNodeHost({ stateDir, approvals, sandbox });
  const env = { ...testEnvironment(config, approvals), host, workspaceRoot: workspace };
  const events = new EventBus();
  const notices: string[] = [];
  events.on((event) => {
    if (event.type === 'notice') notices.push(event.text);
  });
  const scheduler = new Scheduler({
    registry: new ToolRegistry([{ tool: shellTool, defaultSurface: true }]),
    ledger: new MemoryLedger(),
    events,
    env,
  });
  const run = (id: string, args: Record<string, unknown>) =>
    scheduler
      .runTurn('s', [{ id, name: 'shell', arguments: JSON.stringify(args) }], { signal: new AbortController().signal })
      .then((results) => results[0]);
  return { run, notices, approvals };
}

test('issue 12: sandbox.required with bwrap missing blocks the call as unavailable, and nothing runs', async () => {
  const { run } = schedulerOn('without bwrap', { permission: { mode: 'auto' }, sandbox: { required: true } });
  const result = await run('1', { command: 'touch required-ran' });
  assert.deepEqual(result?.outcome, { kind: 'blocked', category: 'unavailable' });
  assert.match(
    result?.output ?? '',
    /sandbox\.required is on, and the sandbox cannot be used here: bwrap \(bubblewrap\) was not found on PATH\. Nothing ran/,
  );
  assert.equal(existsSync(join(workspace, 'required-ran')), false);
});

test('issue 12: the unsandboxed notice is given once, however many calls run unsandboxed', async () => {
  const { run, notices } = schedulerOn('without bwrap', { permission: { mode: 'auto' } });
  await run('1', { command: 'true' });
  await run('2', { command: 'true' });
  assert.deepEqual(notices.filter((text) => text.startsWith('Commands run unsandboxed')).length, 1);
});

test('issue 12: sandbox.mode "off" is said once as a notice, and the results stay clean', async () => {
  const { run, notices } = schedulerOn('with bwrap', { permission: { mode: 'auto' }, sandbox: { mode: 'off' } });
  const first = await run('1', { command: `echo free > ${join(outside, 'mode-off.txt')}` });
  const second = await run('2', { command: 'echo again' });
  assert.equal(first?.outcome.kind, 'ok', first?.output);
  assert.equal(readFileSync(join(outside, 'mode-off.txt'), 'utf8'), 'free\n', 'the command really ran unsandboxed');
  assert.equal(second?.output, 'exit code 0\nagain\n');
  assert.doesNotMatch(first?.output ?? '', /unsandboxed/);
  assert.deepEqual(
    notices.filter((text) => /sandbox\.mode is "off"/.test(text)),
    [SANDBOX_OFF_NOTICE],
  );
});

test('issue 12: an unavailable sandbox is still said on every result, not only in the notice', async () => {
  const { run, notices } = schedulerOn('without bwrap', { permission: { mode: 'auto' } });
  const first = await run('1', { command: 'echo one' });
  const second = await run('2', { command: 'echo two' });
  for (const result of [first, second])
    assert.match(result?.output ?? '', /^exit code 0\n\[unsandboxed \(bwrap \(bubblewrap\) was not found on PATH\)/);
  assert.equal(notices.filter((text) => text.startsWith('Commands run unsandboxed: bwrap')).length, 1);
});

test('issue 12: sandbox "off" asks even in auto mode, says "outside the sandbox", and then runs unsandboxed', async () => {
  const { run, approvals } = schedulerOn('with bwrap', { permission: { mode: 'auto' } });
  const result = await run('1', { command: `echo out > ${join(outside, 'escalated.txt')}`, sandbox: 'off' });
  assert.equal(approvals.requests.length, 1);
  assert.match(approvals.requests[0]?.reason ?? '', /outside the sandbox/);
  assert.equal(result?.outcome.kind, 'ok');
  assert.match(result?.output ?? '', /\[unsandboxed \("sandbox": "off" was asked for this call\)/);
  assert.equal(readFileSync(join(outside, 'escalated.txt'), 'utf8'), 'out\n');
});

test('issue 12: an allow rule covers a sandbox "off" call only when it says sandbox: "off"', async () => {
  const plain = schedulerOn(
    'with bwrap',
    { permission: { mode: 'auto', rules: [{ tool: 'shell', match: 'echo *', action: 'allow' }] } },
    new ScriptedApprovals(() => ({ approved: false })),
  );
  const refused = await plain.run('1', { command: 'echo hi', sandbox: 'off' });
  assert.deepEqual(refused?.outcome, { kind: 'blocked', category: 'denied' });
  assert.equal(plain.approvals.requests.length, 1);
  const named = schedulerOn('with bwrap', {
    permission: { mode: 'strict', rules: [{ tool: 'shell', match: 'echo *', action: 'allow', sandbox: 'off' }] },
  });
  const allowed = await named.run('1', { command: 'echo hi', sandbox: 'off' });
  assert.equal(allowed?.outcome.kind, 'ok');
  assert.equal(named.approvals.requests.length, 0);
});

test('issue 12: strict mode still asks before a sandboxed shell call', async () => {
  const { run, approvals } = schedulerOn('with bwrap', {}, new ScriptedApprovals(() => ({ approved: false })));
  const result = await run('1', { command: 'true' });
  assert.deepEqual(result?.outcome, { kind: 'blocked', category: 'denied' });
  assert.equal(approvals.requests.length, 1);
});

test('issue 12: a bounded fork bomb is stopped at sandbox.max_processes', async () => {
  // 150 sleepers, counted from inside the PID namespace; the limit lets about 40 exist at once.
  // dash gives up at the first fork that fails, so the loop runs in a subshell; the count uses builtins only.
  const bomb = '(for i in $(seq 1 150); do sleep 3 & done) 2>/dev/null; set -- /proc/[0-9]*; echo "$#"';
  const limited = await shell({ command: bomb, timeout_ms: 20_000 }, { sandbox: { max_processes: 40 } });
  const count = Number(/\n(\d+)\n/.exec(limited.output)?.[1]);
  assert.ok(count > 0 && count <= 40, `${count} processes under a limit of 40:\n${limited.output}`);
  const unlimited = await shell({ command: bomb, timeout_ms: 20_000 }, { sandbox: { max_processes: 0 } });
  assert.ok(Number(/\n(\d+)\n/.exec(unlimited.output)?.[1]) > 150, 'without the limit every sleeper starts');
});

test(
  'issue 12: as root the command is in its own pids cgroup from its first instruction (bwrap is born inside it), and this thread is back in its own cgroup once bwrap is started',
  {
    skip: process.getuid?.() !== 0 && 'only root gets a cgroup; elsewhere ulimit -p binds',
  },
  async () => {
    const result = await shell({ command: 'cat /proc/self/cgroup; cat /proc/1/cgroup' });
    assert.equal(result.status, 'ok', result.output);
    const lines = result.output.split('\n').filter((line) => /(^|:)pids:|^0::/.test(line) && line.includes('zuno-'));
    assert.equal(lines.length, 2, `the command and the sandbox's first process are both in zuno-<pid>-<n>:\n${result.output}`);
    assert.match(lines[0] ?? '', new RegExp(`zuno-${process.pid}-\\d+`));
    // The thread that started bwrap moved in for the fork only: left inside, Zuno itself would be under the limit.
    const own = readFileSync('/proc/thread-self/cgroup', 'utf8');
    assert.ok(!own.includes('zuno-'), `this thread left the command's cgroup:\n${own}`);
  },
);

test(
  "issue 12: cgroup v2's way (bwrap holds the command on --block-fd until the runner moved its first process in) bounds a fork bomb, the whole sandbox in the cgroup",
  { skip: process.getuid?.() !== 0 && 'only root gets a cgroup; elsewhere ulimit -p binds' },
  async () => {
    const runner = createProcessRunner({
      sandbox: createSandboxSupport({ home }),
      processLimit: (max) => createProcessLimit(max, 'admitted'),
    });
    const plan = planSandbox({ config: parseConfig({ sandbox: { max_processes: 40 } }), workspaceRoot: workspace, stateDir, home });
    assert.ok(plan);
    let output = '';
    const result = await runner.run({
      command:
        'cat /proc/self/cgroup /proc/1/cgroup; (for i in $(seq 1 150); do sleep 3 & done) 2>/dev/null; set -- /proc/[0-9]*; echo "count $#"',
      shell: true,
      cwd: workspace,
      sandbox: plan,
      timeoutMs: 20_000,
      onOutput: (text) => (output += text),
    });
    assert.equal(result.exitCode, 0, output);
    const lines = output.split('\n').filter((line) => /(^|:)pids:|^0::/.test(line) && line.includes(`zuno-${process.pid}-`));
    assert.equal(lines.length, 2, `the command and the sandbox's first process are in the cgroup:\n${output}`);
    const count = Number(/count (\d+)/.exec(output)?.[1]);
    assert.ok(count > 0 && count <= 40, `${count} processes under a limit of 40`);
  },
);

test('issue 12: a workspace reached through a symlink is writable in the sandbox', async () => {
  const link = join(home, 'linked-workspace');
  symlinkSync(workspace, link);
  const parsed = shellTool.parse({ command: 'echo through > linked.txt' });
  assert.ok(parsed.success);
  const result = await shellTool.run(parsed.args, makeToolContext({ workspaceRoot: link, stateDir, host: sandboxedHost }));
  assert.equal(result.status, 'ok', result.output);
  assert.equal(readFileSync(join(workspace, 'linked.txt'), 'utf8'), 'through\n');
});

test('issue 12: background commands and execute tasks run in the same sandbox', async () => {
  const jobs = new BackgroundJobs({ host: sandboxedHost });
  try {
    const target = join(outside, 'from-background.txt');
    const parsed = shellTool.parse({ command: `echo x > ${target}`, background: true });
    assert.ok(parsed.success);
    const context = { ...makeToolContext({ workspaceRoot: workspace, stateDir, host: sandboxedHost }), background: jobs };
    const started = await shellTool.run(parsed.args, context);
    const id = String(started.metadata?.id);
    await jobs.command(context.sessionId, id).finished;
    assert.match(jobs.command(context.sessionId, id).tail(5), /Read-only file system/);
    assert.equal(existsSync(target), false);
  } finally {
    await jobs.dispose();
  }
  const taskTarget = join(outside, 'from-task.txt');
  writeFileSync(
    join(workspace, 'package.json'),
    JSON.stringify({ name: 'w', version: '1.0.0', scripts: { escape: `echo x > ${taskTarget}` } }),
  );
  const host = { ...sandboxedHost, tasks: createNodeWorkspaceTasks(sandboxedHost.processes, defaultChildEnvironment) };
  const parsed = executeTool.parse({ action: 'run', name: 'npm: escape' });
  assert.ok(parsed.success);
  const result = await executeTool.run(parsed.args, makeToolContext({ workspaceRoot: workspace, stateDir, host }));
  assert.equal(result.status, 'error');
  assert.match(result.output, /Read-only file system/);
  assert.equal(existsSync(taskTarget), false);
});

test("issue 12: hooks are the user's own commands and run outside the sandbox", async () => {
  const marker = join(outside, 'hook-ran');
  const { run } = schedulerOn('with bwrap', {
    permission: { mode: 'auto' },
    hooks: { pre_tool: [{ command: `touch ${marker}`, tools: ['shell'] }] },
  });
  const result = await run('1', { command: `touch ${join(outside, 'shell-ran')}` });
  assert.equal(existsSync(marker), true, 'the hook wrote outside the workspace');
  assert.equal(result?.outcome.kind, 'error', 'the shell command did not');
  assert.equal(existsSync(join(outside, 'shell-ran')), false);
});
