// Project instructions and the environment block (issue 10 item 3), read through the real node
// host file system from real temporary folders; git repositories are made by the real git.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemPrompt } from '../../../src/agent/loop';
import {
  environmentBlock,
  instructionsBlock,
  instructionsNotice,
  loadInstructionFiles,
  loadProjectContext,
  localDate,
  MAX_INSTRUCTION_FILE_BYTES,
  type ProjectContextOptions,
} from '../../../src/agent/project-context';
import { createNodeFileSystem } from '../../../src/hosts/node/fs';
import { createNodeHost, defaultUserConfigDirectory } from '../../../src/hosts/node/host';
import { makeTempDir, removeDir } from '../../support/tool-context';

const fs = createNodeFileSystem();

function folder(prefix: string, files: Readonly<Record<string, string>> = {}): string {
  const root = makeTempDir(prefix);
  after(() => removeDir(root));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'ignore' });
}

const options = (workspaceRoot: string, extra: Partial<ProjectContextOptions> = {}): ProjectContextOptions => ({
  fs,
  workspaceRoot,
  now: new Date(2026, 11, 2, 16, 45, 30),
  ...extra,
});

test('issue 10 item 3: without instruction files nothing is loaded, the prompt has no instructions block and no notice is due', async () => {
  const workspace = folder('zuno-instr-none-', { 'README.md': 'not an instruction file\n' });
  const userConfig = folder('zuno-instr-xdg-');
  const context = await loadProjectContext(options(workspace, { userConfigDirectory: userConfig }));
  assert.deepEqual(context.instructions, { files: [], skipped: [], problems: [] });
  assert.equal(instructionsBlock(context.instructions), '');
  assert.equal(instructionsNotice(context.instructions), undefined);
  assert.doesNotMatch(systemPrompt(workspace, undefined, [], context), /Project instructions/);
});

test('issue 10 item 3: AGENTS.md, CLAUDE.md and .github/copilot-instructions.md load in that order, the user file last, and the notice names each', async () => {
  const workspace = folder('zuno-instr-all-', {
    'AGENTS.md': 'Use tabs.\n',
    'CLAUDE.md': 'Run npm test before finishing.\n',
    '.github/copilot-instructions.md': 'Prefer small functions.\n',
  });
  const userConfig = folder('zuno-instr-xdg-', { 'AGENTS.md': 'Answer in French.\n' });
  const context = await loadProjectContext(options(workspace, { userConfigDirectory: userConfig }));
  const { files } = context.instructions;
  assert.deepEqual(
    files.map((file) => [file.label, file.text, file.truncated]),
    [
      ['AGENTS.md', 'Use tabs.\n', false],
      ['CLAUDE.md', 'Run npm test before finishing.\n', false],
      [join('.github', 'copilot-instructions.md'), 'Prefer small functions.\n', false],
      [join(userConfig, 'AGENTS.md'), 'Answer in French.\n', false],
    ],
  );
  const prompt = systemPrompt(workspace, undefined, [], context);
  const positions = ['Use tabs.', 'Run npm test', 'Prefer small functions.', 'Answer in French.'].map((text) => prompt.indexOf(text));
  assert.ok(
    positions.every((position, index) => position > 0 && (index === 0 || position > (positions[index - 1] ?? 0))),
    `order in the prompt: ${positions.join(', ')}`,
  );
  assert.match(prompt, /<instructions file="AGENTS\.md">\nUse tabs\.\n<\/instructions>/);
  assert.match(prompt, /grant no permissions/);
  assert.equal(
    instructionsNotice(context.instructions),
    `Project instructions loaded: AGENTS.md, CLAUDE.md, ${join('.github', 'copilot-instructions.md')}, ${join(userConfig, 'AGENTS.md')}.`,
  );
});

test('issue 10 item 3: a file over 32 KiB is cut there with a visible [truncated] note, and files past 64 KiB in all are named but not loaded', async () => {
  const big = 'a'.repeat(40 * 1024);
  const workspace = folder('zuno-instr-caps-', {
    'AGENTS.md': big,
    'CLAUDE.md': big,
    '.github/copilot-instructions.md': 'never reached\n',
  });
  const instructions = await loadInstructionFiles({ fs, workspaceRoot: workspace });
  assert.deepEqual(
    instructions.files.map((file) => [file.label, file.text.length, file.includedBytes, file.bytes, file.truncated]),
    [
      ['AGENTS.md', MAX_INSTRUCTION_FILE_BYTES, 32768, 40960, true],
      ['CLAUDE.md', MAX_INSTRUCTION_FILE_BYTES, 32768, 40960, true],
    ],
  );
  assert.deepEqual(instructions.skipped, [join('.github', 'copilot-instructions.md')]);
  const block = instructionsBlock(instructions);
  assert.match(block, /\[truncated: AGENTS\.md has 40960 bytes; only the first 32768 are included\]/);
  assert.match(block, /\[not loaded, the size limit for instruction files was reached: \.github.copilot-instructions\.md\]/);
  assert.doesNotMatch(block, /never reached/);
  assert.match(
    instructionsNotice(instructions) ?? '',
    /AGENTS\.md \(\[truncated\] to 32768 of 40960 bytes\).*not loaded, the size limit was reached: \.github.copilot-instructions\.md/,
  );
});

test('issue 10 item 3: the total cap shortens the file that crosses it, and a cut never splits a UTF-8 character', async () => {
  // "é" is two bytes: a cut at an odd byte would fall inside one.
  const workspace = folder('zuno-instr-utf8-', { 'AGENTS.md': 'é'.repeat(10), 'CLAUDE.md': 'ü'.repeat(10) });
  const instructions = await loadInstructionFiles({ fs, workspaceRoot: workspace, maxFileBytes: 7, maxTotalBytes: 11 });
  assert.deepEqual(
    instructions.files.map((file) => [file.label, file.text, file.includedBytes, file.truncated]),
    [
      ['AGENTS.md', 'ééé', 6, true],
      ['CLAUDE.md', 'üü', 4, true],
    ],
  );
  assert.ok(instructions.files.every((file) => !file.text.includes('\uFFFD')));
});

test('issue 10 item 3: from a folder inside a repository, the nearest files come first and the search stops at the repository root', async () => {
  const outer = folder('zuno-instr-outer-', { 'AGENTS.md': 'outside the repository\n' });
  const repository = join(outer, 'repo');
  mkdirSync(join(repository, 'packages', 'app'), { recursive: true });
  git(repository, 'init', '-q');
  writeFileSync(join(repository, 'AGENTS.md'), 'repository rules\n');
  writeFileSync(join(repository, 'packages', 'app', 'AGENTS.md'), 'package rules\n');
  const workspace = join(repository, 'packages', 'app');
  const instructions = await loadInstructionFiles({ fs, workspaceRoot: workspace }, repository);
  assert.deepEqual(
    instructions.files.map((file) => [file.label, file.text]),
    [
      ['AGENTS.md', 'package rules\n'],
      [join('..', '..', 'AGENTS.md'), 'repository rules\n'],
    ],
  );
  // Through loadProjectContext the repository root is found the same way.
  const context = await loadProjectContext(options(workspace));
  assert.deepEqual(
    context.instructions.files.map((file) => file.text),
    ['package rules\n', 'repository rules\n'],
  );
  // issue 12: the sandbox's empty placeholder .git in the workspace is passed over, as git does.
  mkdirSync(join(workspace, '.git'));
  const withPlaceholder = await loadProjectContext(options(workspace));
  assert.deepEqual(
    withPlaceholder.instructions.files.map((file) => file.text),
    ['package rules\n', 'repository rules\n'],
  );
});

test('issue 10 item 3: a CLAUDE.md that links to AGENTS.md loads once; a link to a file outside the workspace is not loaded and is reported', async () => {
  const outside = folder('zuno-instr-secret-', { id_rsa: 'PRIVATE KEY\n' });
  const workspace = folder('zuno-instr-links-', { 'AGENTS.md': 'shared rules\n' });
  symlinkSync(join(workspace, 'AGENTS.md'), join(workspace, 'CLAUDE.md'));
  mkdirSync(join(workspace, '.github'));
  symlinkSync(join(outside, 'id_rsa'), join(workspace, '.github', 'copilot-instructions.md'));
  const instructions = await loadInstructionFiles({ fs, workspaceRoot: workspace });
  assert.deepEqual(
    instructions.files.map((file) => file.label),
    ['AGENTS.md'],
  );
  assert.equal(instructions.problems.length, 1);
  assert.match(instructions.problems[0] ?? '', /copilot-instructions\.md was not loaded: it links to .*id_rsa, outside /);
  assert.doesNotMatch(instructionsBlock(instructions), /PRIVATE KEY/);
});

test('issue 10 item 3: the user folder is $XDG_CONFIG_HOME/zuno when it is absolute, else ~/.config/zuno; the node host uses it', async () => {
  const xdg = folder('zuno-instr-xdg-home-', { 'zuno/AGENTS.md': 'from the user\n' });
  assert.equal(defaultUserConfigDirectory({ XDG_CONFIG_HOME: xdg }), join(xdg, 'zuno'));
  assert.match(defaultUserConfigDirectory({ XDG_CONFIG_HOME: 'relative/path' }), /[\\/]\.config[\\/]zuno$/);
  assert.match(defaultUserConfigDirectory({}), /[\\/]\.config[\\/]zuno$/);
  const host = createNodeHost({
    stateDir: folder('zuno-instr-state-'),
    approvals: { request: async () => ({ approved: true }) },
    userConfigDirectory: join(xdg, 'zuno'),
  });
  const workspace = folder('zuno-instr-user-');
  const context = await loadProjectContext(
    options(workspace, { fs: host.fs, ...(host.userConfigDirectory ? { userConfigDirectory: host.userConfigDirectory } : {}) }),
  );
  assert.deepEqual(
    context.instructions.files.map((file) => file.text),
    ['from the user\n'],
  );
});

test('issue 10 item 3: the environment block names the OS, shell, date (no time of day), workspace root and the branch of a real repository', async () => {
  const workspace = folder('zuno-env-repo-');
  git(workspace, 'init', '-q');
  git(workspace, 'checkout', '-q', '-b', 'feature/login');
  const context = await loadProjectContext(options(workspace));
  assert.deepEqual(context.environment.git, { root: workspace, branch: 'feature/login' });
  const block = environmentBlock(context.environment);
  assert.match(block, /^Environment:\n- OS: \S+/);
  assert.match(
    block,
    new RegExp(`- Shell: the shell tool runs command lines with ${process.platform === 'win32' ? 'cmd\\.exe' : '/bin/sh'}`),
  );
  assert.match(block, /- Today's date: 2026-12-02\n/);
  assert.ok(block.includes(`- Workspace root: ${workspace}\n`));
  assert.match(block, /- Git: the workspace root is a git repository, on branch feature\/login\.$/);
  // Only the date: the prompt must not change within a day, or prompt caching stops matching.
  assert.doesNotMatch(block, /16:45|\d{2}:\d{2}/);
  const later = await loadProjectContext({ ...options(workspace), now: new Date(2026, 11, 2, 23, 59, 59) });
  assert.equal(systemPrompt(workspace, undefined, [], later), systemPrompt(workspace, undefined, [], context));
  assert.ok(systemPrompt(workspace, undefined, [], context).includes(block));
});

test('issue 10 item 3: a git worktree (a .git file) reports its own branch; a detached HEAD reports the commit', async () => {
  const main = folder('zuno-env-main-');
  git(main, 'init', '-q');
  git(main, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'first');
  const linked = join(folder('zuno-env-linked-'), 'tree');
  git(main, 'worktree', 'add', '-q', '-b', 'side', linked);
  assert.deepEqual((await loadProjectContext(options(linked))).environment.git, { root: linked, branch: 'side' });

  git(main, 'checkout', '-q', '--detach');
  const detached = (await loadProjectContext(options(main))).environment.git;
  assert.match(detached?.detachedAt ?? '', /^[0-9a-f]{12}$/);
  assert.match(environmentBlock((await loadProjectContext(options(main))).environment), /HEAD detached at [0-9a-f]{12}\./);
});

test('issue 10 item 3: outside a repository the block says so', async () => {
  const workspace = folder('zuno-env-plain-');
  const context = await loadProjectContext(options(workspace));
  assert.equal(context.environment.git, undefined);
  assert.match(environmentBlock(context.environment), /- Git: the workspace is not in a git repository\.$/);
});

test('issue 10 item 3: the date is the local calendar day', () => {
  assert.equal(localDate(new Date(2026, 0, 5, 0, 0, 1)), '2026-01-05');
  assert.equal(localDate(new Date(2026, 11, 31, 23, 59, 59)), '2026-12-31');
});
