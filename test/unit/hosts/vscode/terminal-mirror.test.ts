import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProcessResult, ProcessRunner, ProcessSpec } from '../../../../src/core/host';
import {
  commandLineOf,
  INTERRUPT,
  MirroredProcessRunner,
  resultLine,
  TerminalScreen,
  toTerminalText,
} from '../../../../src/hosts/vscode/terminal-mirror';

// eslint-disable-next-line no-control-regex
const plain = (text: string): string => text.replace(/\x1b\[[0-9;]*m/g, '');

const result = (fields: Partial<ProcessResult>): ProcessResult => ({
  exitCode: 0,
  signal: null,
  timedOut: false,
  cancelled: false,
  durationMs: 1,
  ...fields,
});

/** A runner that prints the given chunks and then exits with `exit`, or waits for cancellation. */
class ScriptedRunner implements ProcessRunner {
  readonly specs: ProcessSpec[] = [];
  constructor(private readonly script: (spec: ProcessSpec) => Promise<ProcessResult>) {}
  run(spec: ProcessSpec): Promise<ProcessResult> {
    this.specs.push(spec);
    return this.script(spec);
  }
}

function mirror(runner: ProcessRunner) {
  let screen = '';
  const mirrored = new MirroredProcessRunner(runner, () => ({ write: (text) => (screen += text) }));
  return { mirrored, screen: () => plain(screen) };
}

test('issue 4 Terminal: each command shows as `$ command`, its live output with \\r\\n, then [exit N]', async () => {
  const runner = new ScriptedRunner(async (spec) => {
    spec.onOutput?.('line one\nline ', 'stdout');
    spec.onOutput?.('two\n', 'stderr');
    return result({ exitCode: 3 });
  });
  const { mirrored, screen } = mirror(runner);
  const seen: string[] = [];
  const outcome = await mirrored.run({ command: 'npm test', shell: true, cwd: '/w', onOutput: (chunk) => seen.push(chunk) });
  assert.equal(outcome.exitCode, 3, 'the runtime gets the real result');
  assert.deepEqual(seen, ['line one\nline ', 'two\n'], 'the runtime still receives the raw output');
  assert.equal(screen(), '$ npm test\r\nline one\r\nline two\r\n[exit 3]\r\n');
});

test('issue 4 Terminal: timed out, cancelled and killed commands say so; output without a final newline still ends its line', () => {
  assert.equal(resultLine(result({ exitCode: null, signal: 'SIGTERM', timedOut: true })), '[timed out]');
  assert.equal(resultLine(result({ exitCode: null, signal: 'SIGTERM', cancelled: true })), '[cancelled]');
  assert.equal(resultLine(result({ exitCode: null, signal: 'SIGKILL' })), '[killed by SIGKILL]');
  assert.equal(resultLine(result({ exitCode: 0 })), '[exit 0]');
  assert.equal(toTerminalText('a\nb\r\nc'), 'a\r\nb\r\nc');
});

test('issue 4 Terminal: output that does not end in a newline is closed before the result line', async () => {
  const { mirrored, screen } = mirror(
    new ScriptedRunner(async (spec) => {
      spec.onOutput?.('no newline', 'stdout');
      return result({ exitCode: 0 });
    }),
  );
  await mirrored.run({ command: 'printf x', shell: true, cwd: '/w' });
  assert.equal(screen(), '$ printf x\r\nno newline\r\n[exit 0]\r\n');
});

test('issue 4 Terminal: Ctrl+C in the terminal cancels the running command through its signal', async () => {
  const runner = new ScriptedRunner(
    (spec) =>
      new Promise((resolve) => {
        spec.signal?.addEventListener('abort', () => resolve(result({ exitCode: null, signal: 'SIGTERM', cancelled: true })));
        spec.onOutput?.('waiting\n', 'stdout');
      }),
  );
  let screenText = '';
  const mirrored = new MirroredProcessRunner(runner, () => ({ write: (text) => (screenText += text) }));
  const terminal = new TerminalScreen(
    (text) => (screenText += text),
    () => mirrored.interrupt(),
  );
  terminal.open();
  const running = mirrored.run({ command: 'sleep 100', shell: true, cwd: '/w' });
  assert.equal(mirrored.running, 1);
  terminal.input(INTERRUPT);
  const outcome = await running;
  assert.equal(outcome.cancelled, true);
  assert.equal(mirrored.running, 0);
  assert.match(plain(screenText), /\$ sleep 100\r\nwaiting\r\n\[cancelled\]\r\n$/);
  terminal.input(INTERRUPT);
  assert.match(plain(screenText), /\^C \(no command is running\)\r\n$/);
});

test("issue 4 Terminal: the runtime's own cancel still reaches the command through the mirror", async () => {
  const runner = new ScriptedRunner(
    (spec) => new Promise((resolve) => spec.signal?.addEventListener('abort', () => resolve(result({ exitCode: null, cancelled: true })))),
  );
  const { mirrored } = mirror(runner);
  const controller = new AbortController();
  const running = mirrored.run({ command: 'sleep 100', shell: true, cwd: '/w', signal: controller.signal });
  controller.abort();
  assert.equal((await running).cancelled, true);
});

test('issue 4 Terminal: helper processes (rg with arguments, no display) are not mirrored; an explicit display is', async () => {
  const runner = new ScriptedRunner(async () => result({}));
  const { mirrored, screen } = mirror(runner);
  await mirrored.run({ command: '/bin/rg', args: ['--json', 'x'], cwd: '/w' });
  assert.equal(screen(), '');
  await mirrored.run({ command: '/bin/rg', args: ['--files', 'a b'], cwd: '/w', display: 'rg --files' });
  assert.equal(screen(), '$ rg --files\r\n[exit 0]\r\n');
  assert.equal(commandLineOf({ command: 'git', args: ['commit', '-m', "it's done"], cwd: '/w' }), `git commit -m 'it'\\''s done'`);
});

test('issue 4 Terminal: overlapping commands label their lines and never share a line', async () => {
  const releases: (() => void)[] = [];
  const runner = new ScriptedRunner(
    (spec) =>
      new Promise((resolve) => {
        spec.onOutput?.(`${spec.command} starts`, 'stdout');
        releases.push(() => {
          spec.onOutput?.(' and ends\n', 'stdout');
          resolve(result({}));
        });
      }),
  );
  const { mirrored, screen } = mirror(runner);
  const first = mirrored.run({ command: 'one', shell: true, cwd: '/w' });
  const second = mirrored.run({ command: 'two', shell: true, cwd: '/w' });
  releases[0]?.();
  await first;
  releases[1]?.();
  await second;
  const lines = screen().split('\r\n');
  assert.deepEqual(lines, [
    '$ one',
    'one starts',
    '[2] $ two',
    '[2] two starts',
    '[1]  and ends',
    '[1] [exit 0]',
    ' and ends',
    '[exit 0]',
    '',
  ]);
});

test('issue 4 Terminal: text written before VS Code opens the terminal is shown when it opens; other input gets one hint', () => {
  const shown: string[] = [];
  const terminal = new TerminalScreen(
    (text) => shown.push(text),
    () => false,
  );
  terminal.write('$ early\r\n');
  assert.equal(shown.length, 0);
  terminal.open();
  assert.equal(plain(shown.join('')).endsWith('$ early\r\n'), true);
  terminal.input('ls\r');
  terminal.input('pwd\r');
  assert.equal(shown.filter((text) => text.includes('does not take input')).length, 1);
});
