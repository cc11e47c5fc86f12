import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OutputStream, ProcessSpec } from '../../../../src/core/host';
import { createProcessRunner } from '../../../../src/hosts/node/processes';
import { isRunning, waitUntilGone } from '../../../support/processes';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const runner = createProcessRunner();

async function run(spec: Omit<ProcessSpec, 'cwd' | 'onOutput'> & { cwd?: string }) {
  const chunks: { text: string; stream: OutputStream }[] = [];
  const result = await runner.run({ cwd: process.cwd(), ...spec, onOutput: (text, stream) => chunks.push({ text, stream }) });
  return { result, text: chunks.map((chunk) => chunk.text).join(''), chunks };
}

test('issue 2 §9 shell: exit codes are reported', async () => {
  assert.equal((await run({ command: 'exit 0', shell: true })).result.exitCode, 0);
  const failed = await run({ command: 'exit 7', shell: true });
  assert.equal(failed.result.exitCode, 7);
  assert.equal(failed.result.timedOut, false);
  assert.equal(failed.result.cancelled, false);
});

test('issue 2 §9 shell: merged stdout and stderr keep the order of the writes', async () => {
  const { text, chunks } = await run({ command: 'echo a; echo b >&2; echo c', shell: true, mergeStderr: true });
  assert.equal(text, 'a\nb\nc\n');
  assert.ok(chunks.every((chunk) => chunk.stream === 'stdout'));
  const direct = await run({ command: 'sh', args: ['-c', 'echo x; echo y >&2; echo z'], mergeStderr: true });
  assert.equal(direct.text, 'x\ny\nz\n');
});

test('issue 2 §9: without merging, each stream is labelled', async () => {
  const { chunks } = await run({ command: 'echo out; echo err >&2', shell: true });
  assert.deepEqual(
    chunks
      .filter((chunk) => chunk.stream === 'stderr')
      .map((chunk) => chunk.text)
      .join(''),
    'err\n',
  );
  assert.deepEqual(
    chunks
      .filter((chunk) => chunk.stream === 'stdout')
      .map((chunk) => chunk.text)
      .join(''),
    'out\n',
  );
});

test('issue 2 §9: UTF-8 split across writes is reassembled', async () => {
  const { text } = await run({ command: "printf '\\303'; sleep 0.2; printf '\\251\\n'", shell: true });
  assert.equal(text, 'é\n');
});

test('issue 2 §9 shell: stdin is closed unless given', async () => {
  // `cat` with an open stdin would wait forever; closed, it sees end-of-file at once.
  const closed = await run({ command: 'cat; echo after', shell: true });
  assert.equal(closed.text, 'after\n');
  const given = await run({ command: 'cat', stdin: 'fed\n' });
  assert.equal(given.text, 'fed\n');
});

test('issue 2 §9 shell: a background child holding stdout open does not hang the call, and is stopped', async () => {
  const { result, text } = await run({ command: 'sleep 30 & echo "child=$!"; echo done', shell: true });
  assert.equal(result.exitCode, 0);
  assert.match(text, /done\n$/);
  const child = Number(/child=(\d+)/.exec(text)?.[1]);
  assert.ok(await waitUntilGone(child), 'the background sleep was killed with its group');
});

test('issue 2 §9 shell: a timeout kills the whole process group and keeps the output so far', async () => {
  const { result, text } = await run({ command: 'sleep 60 & echo "child=$!"; echo started; wait', shell: true, timeoutMs: 1000 });
  assert.equal(result.timedOut, true);
  assert.equal(result.exitCode, null);
  assert.match(text, /started/);
  const child = Number(/child=(\d+)/.exec(text)?.[1]);
  assert.ok(await waitUntilGone(child), 'the grandchild sleep is gone too');
});

test('issue 2 §6: cancelling kills the process group', async () => {
  const controller = new AbortController();
  let child = 0;
  const result = await runner.run({
    command: 'sleep 60 & echo "child=$!"; wait',
    shell: true,
    cwd: process.cwd(),
    signal: controller.signal,
    onOutput: (text) => {
      child = Number(/child=(\d+)/.exec(text)?.[1] ?? child);
      if (child > 0) controller.abort();
    },
  });
  assert.equal(result.cancelled, true);
  assert.ok(child > 0);
  assert.ok(await waitUntilGone(child));
  assert.equal(isRunning(child), false);
});

test('issue 2 §9: a command that cannot start is an error naming it; an aborted signal starts nothing', async () => {
  await assert.rejects(runner.run({ command: 'zuno-no-such-program', cwd: process.cwd() }), /Could not start "zuno-no-such-program"/);
  const controller = new AbortController();
  controller.abort();
  const result = await runner.run({ command: 'echo never', shell: true, cwd: process.cwd(), signal: controller.signal });
  assert.equal(result.cancelled, true);
  assert.equal(result.exitCode, null);
});

test('issue 2 §9: a process killed by a signal reports it', async () => {
  const { result } = await run({ command: 'kill -TERM $$', shell: true });
  assert.equal(result.exitCode, null);
  assert.equal(result.signal, 'SIGTERM');
});

test('issue 8 §9 env filter: every child sees the filtered environment plus its own variables, never a dropped secret', async () => {
  process.env.ZUNO_TEST_SECRET_TOKEN = 'leaked-value';
  process.env.ZUNO_TEST_PLAIN = 'plain-value';
  try {
    const byDefault = await run({ command: 'env', shell: true, env: { PAGER: 'cat' } });
    assert.match(byDefault.text, /^ZUNO_TEST_PLAIN=plain-value$/m);
    assert.match(byDefault.text, /^PAGER=cat$/m);
    assert.doesNotMatch(byDefault.text, /leaked-value/);
    const chosen = createProcessRunner({ environment: () => ({ ONLY: 'this' }) });
    let text = '';
    await chosen.run({ command: 'env', shell: true, cwd: process.cwd(), onOutput: (chunk) => (text += chunk) });
    assert.match(text, /^ONLY=this$/m);
    assert.doesNotMatch(text, /ZUNO_TEST_PLAIN/, 'nothing is inherited beyond what the environment function gives');
  } finally {
    delete process.env.ZUNO_TEST_SECRET_TOKEN;
    delete process.env.ZUNO_TEST_PLAIN;
  }
});

for (const verification of ['fd-path', 'identity'] as const) {
  test(`issue 8 item 4 §9 verifiedCwd (${verification}): the child starts in the checked folder, and a symlink in its path starts nothing`, async (t) => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-pinned-cwd-')));
    t.after(() => rmSync(base, { recursive: true, force: true }));
    mkdirSync(join(base, 'inside'));
    mkdirSync(join(base, 'outside'));
    writeFileSync(join(base, 'inside', 'here.txt'), '');
    symlinkSync(join(base, 'outside'), join(base, 'swapped'));
    const pinnedRunner = createProcessRunner({ verification });
    const output: string[] = [];
    const result = await pinnedRunner.run({
      command: 'pwd -P; ls',
      shell: true,
      cwd: join(base, 'inside'),
      verifiedCwd: true,
      onOutput: (text) => output.push(text),
    });
    assert.equal(result.exitCode, 0);
    assert.equal(output.join(''), `${join(base, 'inside')}\nhere.txt\n`);

    // What the check resolved was a real folder; a symlink there now means it was swapped.
    await assert.rejects(
      pinnedRunner.run({ command: 'touch', args: ['ran'], cwd: join(base, 'swapped'), verifiedCwd: true }),
      /changed while the call ran.*nothing was read/,
    );
    assert.equal(existsSync(join(base, 'outside', 'ran')), false, 'the child never started');
  });
}
