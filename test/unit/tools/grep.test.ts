import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { ToolError } from '../../../src/core/errors';
import { createNodeHost } from '../../../src/hosts/node/host';
import { grepTool } from '../../../src/tools/grep';
import { approveEverything, makeTempDir, makeToolContext, removeDir, checkCall } from '../../support/tool-context';
import { waitUntilGone } from '../../support/processes';

const workspace = makeTempDir('zuno-grep-');
const stateDir = makeTempDir('zuno-grep-state-');
after(() => {
  removeDir(workspace);
  removeDir(stateDir);
});
const context = makeToolContext({ workspaceRoot: workspace, stateDir });

function write(path: string, content: string): void {
  mkdirSync(dirname(join(workspace, path)), { recursive: true });
  writeFileSync(join(workspace, path), content);
}

// Many files, created in reverse order, so rg's threads finish in no particular order.
for (let index = 30; index >= 1; index--) {
  write(`many/file-${String(index).padStart(2, '0')}.txt`, `one needle\nhay\nhay\nanother needle here\n`);
}
write('src/app.ts', 'const a = 1;\nfunction target() {}\nconst b = 2;\nconst c = 3;\nconst d = 4;\nconst e = 5;\ncall(target);\n');
write('src/util.js', 'export const TARGET = "Target";\n');
write('ignored/secret.ts', 'function target() {}\n');
write('.hidden/config.ts', 'target\n');
write('.gitignore', 'ignored/\n');

async function grep(args: Record<string, unknown>, ctx = context) {
  const parsed = grepTool.parse(args);
  assert.ok(parsed.success, JSON.stringify(parsed));
  return grepTool.run(parsed.args, await checkCall(grepTool, parsed.args, ctx));
}

test('T1: grep declares ReadOnly, Safe, ParallelSafe (E3, R1)', () => {
  assert.deepEqual(grepTool.declarationsFor({ pattern: 'x' }), { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' });
});

test('S4: grep orders matches by path then line, whatever order rg finishes in', async () => {
  const result = await grep({ pattern: 'needle', path: 'many', limit: 1000 });
  const lines = result.output.split('\n').slice(1);
  const expected = Array.from({ length: 30 }, (_, index) => {
    const name = `many/file-${String(index + 1).padStart(2, '0')}.txt`;
    return [`${name}:1:one needle`, `${name}:4:another needle here`];
  }).flat();
  assert.equal(result.output.split('\n')[0], '60 matching lines in 30 files for "needle" in many:');
  assert.deepEqual(lines, expected);
});

test('S4: grep honours .gitignore outside a git repository and searches hidden files', async () => {
  const result = await grep({ pattern: 'target', output_mode: 'files' });
  assert.equal(result.output, '2 files match for "target" in the workspace:\n.hidden/config.ts\nsrc/app.ts');
});

test('S4: grep shows context lines rg-style, with -- between groups', async () => {
  const result = await grep({ pattern: 'target', path: 'src/app.ts', context: 1 });
  assert.equal(
    result.output,
    '2 matching lines in 1 file for "target" in src/app.ts:\n' +
      'src/app.ts-1-const a = 1;\nsrc/app.ts:2:function target() {}\nsrc/app.ts-3-const b = 2;\n--\n' +
      'src/app.ts-6-const e = 5;\nsrc/app.ts:7:call(target);',
  );
});

test('S4: grep count and files modes, case_insensitive and glob', async () => {
  const counted = await grep({ pattern: 'target', case_insensitive: true, output_mode: 'count' });
  assert.equal(
    counted.output,
    '3 files with 4 matching lines for "target" in the workspace:\n.hidden/config.ts:1\nsrc/app.ts:2\nsrc/util.js:1',
  );
  const onlyJs = await grep({ pattern: 'target', case_insensitive: true, glob: '*.js' });
  assert.equal(onlyJs.output, '1 matching line in 1 file for "target" in the workspace:\nsrc/util.js:1:export const TARGET = "Target";');
  const notTs = await grep({ pattern: 'target', case_insensitive: true, glob: '!*.ts', output_mode: 'files' });
  assert.match(notTs.output, /:\nsrc\/util\.js$/);
});

test('S4: a glob that matches folders does not reach into ignored ones', async () => {
  const result = await grep({ pattern: 'target', glob: '**', output_mode: 'files' });
  assert.doesNotMatch(result.output, /ignored/);
});

test('S4: grep limit keeps the first matches by path and line and says how many more', async () => {
  const result = await grep({ pattern: 'needle', path: 'many', limit: 3 });
  assert.equal(
    result.output,
    '60 matching lines in 30 files for "needle" in many; showing the first 3 by path and line:\n' +
      'many/file-01.txt:1:one needle\nmany/file-01.txt:4:another needle here\nmany/file-02.txt:1:one needle\n' +
      '[57 more matching lines not shown: narrow the pattern, path or glob, or raise limit.]',
  );
  const files = await grep({ pattern: 'needle', path: 'many', output_mode: 'files', limit: 2 });
  assert.match(files.output, /^30 files match .*\nmany\/file-01\.txt\nmany\/file-02\.txt\n\[28 more files not shown/);
});

test('S4: no match is a plain answer; an invalid regex is an error that says how to fix it', async () => {
  assert.match(
    (await grep({ pattern: 'absent-word' })).output,
    /^No matches for "absent-word" in the workspace\. The search was case-sensitive/,
  );
  await assert.rejects(grep({ pattern: 'foo(' }), (error: unknown) => {
    assert.ok(error instanceof ToolError);
    assert.match(error.message, /not a valid regular expression/);
    assert.match(error.message, /regex parse error/);
    assert.match(error.message, /Escape special characters/);
    return true;
  });
});

test('S4 bounded decoding: a matching line of megabytes is reported by number, not held or shown whole', async () => {
  write('bundle/min.js', `first\nsecond\n${'x'.repeat(3 * 1024 * 1024)}needle${'y'.repeat(1000)}\n`);
  const result = await grep({ pattern: 'needle', path: 'bundle' });
  assert.match(result.output, /^bundle\/min\.js:3:\[a line of about \d+ characters, too long to show\]$/m);
  assert.ok(result.output.length < 2000);
});

test('S4: long lines are cut at 500 characters', async () => {
  write('wide/line.txt', `needle${'z'.repeat(5000)}\n`);
  const result = await grep({ pattern: 'needle', path: 'wide' });
  assert.match(result.output, /wide\/line\.txt:1:needlez{494}… \[line cut: 5006 characters\]$/);
});

test('S4: cancelling grep kills rg', async () => {
  // A FIFO with no writer: rg blocks opening it until it is killed.
  const fifo = join(workspace, 'blocked.fifo');
  execFileSync('mkfifo', [fifo]);
  const scripts = makeTempDir('zuno-grep-rg-');
  after(() => removeDir(scripts));
  const { path: realRg } = await context.host.ripgrep();
  const wrapper = join(scripts, 'rg');
  // `exec` keeps the pid, so the pid written is rg's own.
  writeFileSync(wrapper, `#!/bin/sh\necho $$ >> "${scripts}/pids"\nexec "${realRg}" "$@"\n`);
  chmodSync(wrapper, 0o755);
  const host = createNodeHost({ stateDir, approvals: approveEverything, ripgrepPath: wrapper });
  const previous = process.env.ZUNO_RG_PATH;
  delete process.env.ZUNO_RG_PATH;
  try {
    await host.ripgrep();
    const controller = new AbortController();
    const running = grep(
      { pattern: 'x', path: 'blocked.fifo' },
      makeToolContext({ workspaceRoot: workspace, stateDir, host, signal: controller.signal }),
    );
    let pid: number | undefined;
    for (let attempt = 0; attempt < 400 && pid === undefined; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      const pids = readFileSync(join(scripts, 'pids'), 'utf8').trim().split('\n');
      if (pids.length >= 2) pid = Number(pids[1]);
    }
    assert.ok(pid !== undefined, 'rg started');
    controller.abort();
    await assert.rejects(running, (error: unknown) => error instanceof Error && error.name === 'AbortError');
    assert.ok(await waitUntilGone(pid), 'rg was killed');
  } finally {
    if (previous !== undefined) process.env.ZUNO_RG_PATH = previous;
    removeDir(fifo);
  }
});

test('S4: paths that JSON escapes (quotes, backslashes, tabs, non-ASCII) are shown as they are, each file once (issue 15)', async () => {
  // grep reads each record's path by position in rg's JSON and decodes it once per file.
  write('odd/say "hi" \\ tab\there é.txt', 'oddNeedle one\noddNeedle two\n');
  write('odd/say.txt', 'oddNeedle three\n');
  const result = await grep({ pattern: 'oddNeedle', path: 'odd' });
  assert.equal(
    result.output,
    '3 matching lines in 2 files for "oddNeedle" in odd:\n' +
      'odd/say "hi" \\ tab\there é.txt:1:oddNeedle one\nodd/say "hi" \\ tab\there é.txt:2:oddNeedle two\nodd/say.txt:1:oddNeedle three',
  );
});
