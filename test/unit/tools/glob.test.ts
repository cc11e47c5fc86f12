import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { StartupError, ToolError } from '../../../src/core/errors';
import { createNodeHost } from '../../../src/hosts/node/host';
import { globTool } from '../../../src/tools/glob';
import { pathGlobFilter } from '../../../src/tools/ripgrep-run';
import { approveEverything, makeTempDir, makeToolContext, removeDir, checkCall } from '../../support/tool-context';

const workspace = makeTempDir('zuno-glob-');
// Outside the workspace, so spill files never show up in the listings.
const stateDir = makeTempDir('zuno-glob-state-');
after(() => {
  removeDir(workspace);
  removeDir(stateDir);
});
const context = makeToolContext({ workspaceRoot: workspace, stateDir });

function touch(path: string, content = ''): void {
  mkdirSync(dirname(join(workspace, path)), { recursive: true });
  writeFileSync(join(workspace, path), content);
}

// Created out of order, so sorting is the tool's doing.
for (const path of [
  'src/z.ts',
  'src/b/c.ts',
  'src/a.ts',
  'README.md',
  'src/b/a.js',
  '.github/workflows/ci.yml',
  'build/out.ts',
  '.git/config',
  'src/B.ts',
])
  touch(path);
// Not a git repository: .gitignore must still be honoured.
touch('.gitignore', 'build/\n');

async function glob(args: Record<string, unknown>, ctx = context) {
  const parsed = globTool.parse(args);
  assert.ok(parsed.success, JSON.stringify(parsed));
  return globTool.run(parsed.args, await checkCall(globTool, parsed.args, ctx));
}

test('T1: glob declares ReadOnly, Safe, ParallelSafe (E3, R1)', () => {
  assert.deepEqual(globTool.declarationsFor({ pattern: '*' }), { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' });
});

test('S4: glob lists matching files sorted by path, honouring .gitignore outside a git repository', async () => {
  const result = await glob({ pattern: '*.ts' });
  assert.equal(result.output, '4 files match "*.ts" in the workspace:\nsrc/B.ts\nsrc/a.ts\nsrc/b/c.ts\nsrc/z.ts');
});

test('S4: glob patterns are relative to path, and results relative to the workspace', async () => {
  const result = await glob({ pattern: 'b/*', path: 'src' });
  assert.equal(result.output, '2 files match "b/*" in src:\nsrc/b/a.js\nsrc/b/c.ts');
});

test('S4: glob includes hidden files but never the .git folder', async () => {
  const result = await glob({ pattern: '**/*' });
  assert.match(result.output, /\.github\/workflows\/ci\.yml/);
  assert.match(result.output, /\.gitignore/);
  assert.doesNotMatch(result.output, /\.git\/config/);
  assert.doesNotMatch(result.output, /build\/out\.ts/);
});

test('S4: glob limit keeps the first paths in order and says how many more there are', async () => {
  const result = await glob({ pattern: '**/*', limit: 2 });
  assert.match(
    result.output,
    /^8 files match "\*\*\/\*" in the workspace; the first 2 by path:\n\.github\/workflows\/ci\.yml\n\.gitignore\n\[6 more not shown/,
  );
});

test('S4: glob with no match, a file as path, or a missing path explains what to do', async () => {
  assert.match((await glob({ pattern: '*.rs' })).output, /^No files match "\*\.rs" in the workspace\./);
  await assert.rejects(
    glob({ pattern: '*', path: 'README.md' }),
    (error: unknown) => error instanceof ToolError && /is a file, not a folder/.test(error.message),
  );
  await assert.rejects(
    glob({ pattern: '*', path: 'srcc' }),
    (error: unknown) => error instanceof ToolError && /No such file or directory: srcc.*Did you mean: src\//.test(error.message),
  );
});

test('S4: a missing or too old rg is a StartupError from glob, passed through untouched', async () => {
  const old = join(makeTempDir('zuno-glob-rg-'), 'rg');
  writeFileSync(old, '#!/bin/sh\necho "ripgrep 13.0.0"\n');
  chmodSync(old, 0o755);
  const previous = process.env.ZUNO_RG_PATH;
  process.env.ZUNO_RG_PATH = old;
  try {
    const host = createNodeHost({ stateDir, approvals: approveEverything });
    await assert.rejects(
      glob({ pattern: '*' }, makeToolContext({ workspaceRoot: workspace, host })),
      (error: unknown) => error instanceof StartupError && /too old/.test(error.message),
    );
  } finally {
    if (previous === undefined) delete process.env.ZUNO_RG_PATH;
    else process.env.ZUNO_RG_PATH = previous;
    removeDir(dirname(old));
  }
});

test('S4 model globs read like rg globs: by name without a slash, anchored with one, ! negates', () => {
  const cases: [string, string, boolean][] = [
    ['*.ts', 'deep/down/x.ts', true],
    ['src/*.ts', 'src/x.ts', true],
    ['src/*.ts', 'lib/src/x.ts', false],
    ['/src/*.ts', 'src/x.ts', true],
    ['./src/**', 'src/a/b.js', true],
    ['src/', 'src/a/b.js', true],
    ['**/*.{js,ts}', 'root.js', true],
    ['!*.md', 'README.md', false],
    ['!*.md', 'a.ts', true],
  ];
  for (const [pattern, path, expected] of cases) assert.equal(pathGlobFilter(pattern)(path), expected, `${pattern} vs ${path}`);
});

test('issue 8: an invalid or too costly model glob is a ToolError that says what is wrong, never a silent empty list', async () => {
  await assert.rejects(
    glob({ pattern: 'src/[z-a].ts' }),
    (error: unknown) =>
      error instanceof ToolError &&
      /^The glob "src\/\[z-a\]\.ts" is not valid: Range out of order in character class; fix the \[\.\.\.\] class/.test(error.message),
  );
  await assert.rejects(
    glob({ pattern: '{a,b' }),
    (error: unknown) => error instanceof ToolError && /a "\{" is never closed; write \\\{ for a literal \{/.test(error.message),
  );
  await assert.rejects(
    glob({ pattern: '**/*a*/**/*b' }),
    (error: unknown) =>
      error instanceof ToolError && /has 5 wildcards \(\* or \*\*\) and a path glob may have at most 3/.test(error.message),
  );
  assert.equal(pathGlobFilter('.*')('.gitignore'), true, 'dotfiles match');
  assert.equal(pathGlobFilter('src/(x)/*')('src/(x)/a.ts'), true, 'parentheses are plain characters');
});
