import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { shellTool } from '../../../src/tools/shell';
import { makeTempDir, makeToolContext, removeDir, type ToolContextOptions } from '../../support/tool-context';
import { waitUntilGone } from '../../support/processes';

const workspace = makeTempDir('zuno-shell-');
const stateDir = makeTempDir('zuno-shell-state-');
after(() => {
  removeDir(workspace);
  removeDir(stateDir);
});

/** These tests follow the command's processes by host PID (`$$`, `$!`): outside the sandbox's PID namespace. */
const UNSANDBOXED: Partial<ToolContextOptions> = { config: { sandbox: { mode: 'off' } } };

async function shell(args: Record<string, unknown>, options: Partial<ToolContextOptions> = {}) {
  const parsed = shellTool.parse(args);
  assert.ok(parsed.success, JSON.stringify(parsed));
  const context = makeToolContext({ workspaceRoot: workspace, stateDir, ...options });
  return { result: await shellTool.run(parsed.args, context), context };
}

test('T2: shell declares SideEffecting, Never, Exclusive, and its subject is the command line (§9)', async () => {
  assert.deepEqual(shellTool.declarationsFor({ command: 'ls' }), { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' });
  assert.deepEqual(await shellTool.subjectsFor({ command: 'git status' }, makeToolContext({ workspaceRoot: workspace })), [
    { kind: 'command', value: 'git status' },
  ]);
});

test('issue 2 §9: shell runs in the workspace root and reports the exit code; output is mirrored to progress', async () => {
  const { result, context } = await shell({ command: 'pwd' });
  assert.equal(result.status, 'ok');
  assert.equal(result.output, `exit code 0\n${workspace}\n`);
  assert.deepEqual(context.progressChunks, [`${workspace}\n`]);
});

test('issue 2 §9: a non-zero exit is an error result the model reads, with the output', async () => {
  const { result } = await shell({ command: 'echo "compiling"; echo "error: missing semicolon" >&2; exit 3' });
  assert.equal(result.status, 'error');
  assert.equal(result.output, 'exit code 3\ncompiling\nerror: missing semicolon\n');
  assert.equal(result.metadata?.exitCode, 3);
});

test('issue 2 §9: stdout and stderr are merged in the order they were written', async () => {
  const { result } = await shell({ command: 'echo a; echo b >&2; echo c' });
  assert.equal(result.output, 'exit code 0\na\nb\nc\n');
});

test('issue 2 §9 stdin is closed: a command that reads input sees end-of-file', async () => {
  const { result } = await shell({ command: 'read line || echo "no input"' });
  assert.equal(result.output, 'exit code 0\nno input\n');
});

test('issue 2 §9: a background child holding stdout open does not hang the call', async () => {
  const { result } = await shell({ command: 'sleep 30 & echo "child=$!"; echo done' }, UNSANDBOXED);
  assert.equal(result.status, 'ok');
  assert.match(result.output, /done\n$/);
  const child = Number(/child=(\d+)/.exec(result.output)?.[1]);
  assert.ok(await waitUntilGone(child));
});

test('R3: a timeout is indeterminate, keeps the output so far, and kills the whole group', async () => {
  const { result } = await shell(
    { command: 'echo "child=$$"; sleep 60 & echo "grandchild=$!"; echo working; wait', timeout_ms: 1000 },
    UNSANDBOXED,
  );
  assert.equal(result.status, 'indeterminate');
  assert.match(result.output, /^timed out: the command was stopped after 1000 ms/);
  assert.match(result.output, /may have had partial effects, and it will not be re-run automatically/);
  assert.match(result.output, /larger timeout_ms/);
  assert.match(result.output, /Output so far:\nchild=\d+\ngrandchild=\d+\nworking\n$/);
  assert.equal(result.metadata?.timedOut, true);
  for (const name of ['child', 'grandchild']) {
    const pid = Number(new RegExp(`${name}=(\\d+)`).exec(result.output)?.[1]);
    assert.ok(await waitUntilGone(pid), `${name} ${pid} is gone`);
  }
});

test('issue 2 §9: the default timeout comes from config shell.default_timeout_ms', async () => {
  const { result } = await shell({ command: 'sleep 30' }, { config: { shell: { default_timeout_ms: 1000 } } });
  assert.equal(result.status, 'indeterminate');
  assert.match(result.output, /stopped after 1000 ms/);
});

test('issue 2 §6: cancelling propagates the abort and kills the group', async () => {
  const controller = new AbortController();
  let child = 0;
  const running = shell(
    { command: 'sleep 60 & echo "child=$!"; wait' },
    {
      ...UNSANDBOXED,
      signal: controller.signal,
      progress: (chunk) => {
        child = Number(/child=(\d+)/.exec(chunk)?.[1] ?? child);
        controller.abort();
      },
    },
  );
  await assert.rejects(running, (error: unknown) => error instanceof Error && error.name === 'AbortError');
  assert.ok(child > 0);
  assert.ok(await waitUntilGone(child));
});

test('O1 a command printing 300 MB is bounded: head and tail kept, the rest spilled in full', async () => {
  const { result } = await shell(
    { command: 'echo FIRST; yes | head -c 300000000; echo; echo LAST' },
    { progress: () => undefined, config: { tool_output: { max_spill_bytes: 512 * 1024 * 1024 } } },
  );
  assert.equal(result.status, 'ok');
  assert.equal(result.truncated, true);
  assert.ok(Buffer.byteLength(result.output) < 60_000, `${Buffer.byteLength(result.output)} bytes returned`);
  assert.match(result.output, /^exit code 0\nFIRST\ny\ny\n/);
  assert.match(result.output, /y\ny\n\nLAST\n$/);
  const spill = String(result.metadata?.fullOutputPath);
  assert.match(
    result.output,
    new RegExp(`output truncated: .* The full output is saved at ${spill.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
  );
  assert.equal(statSync(spill).size, 'FIRST\n'.length + 300_000_000 + '\nLAST\n'.length);
});

test('R3: a command cancelled from outside the turn (Ctrl+C in the terminal) is indeterminate, not a crash', async () => {
  const probe = makeToolContext({ workspaceRoot: workspace, stateDir, ...UNSANDBOXED });
  const userCancel = new AbortController();
  // The editor's terminal cancels through its own signal, joined to the turn's, as this wrapper does.
  const host = {
    ...probe.host,
    processes: {
      run: (spec: Parameters<typeof probe.host.processes.run>[0]) =>
        probe.host.processes.run({
          ...spec,
          signal: spec.signal ? AbortSignal.any([spec.signal, userCancel.signal]) : userCancel.signal,
          onOutput(chunk, stream) {
            spec.onOutput?.(chunk, stream);
            if (chunk.includes('started')) userCancel.abort();
          },
        }),
    },
  };
  const { result } = await shell({ command: 'echo $$ > shell.pid; echo started; sleep 30' }, { ...UNSANDBOXED, host });
  assert.equal(result.status, 'indeterminate');
  assert.match(result.output, /^cancelled by the user: .*will not be re-run automatically/);
  assert.match(result.output, /Output so far:\nstarted\n/);
  const pid = Number(readFileSync(join(workspace, 'shell.pid'), 'utf8'));
  assert.ok(await waitUntilGone(pid), 'the cancelled command is gone');
});
