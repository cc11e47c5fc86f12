// The shadow repository of checkpoints (issue 13), against the real git in real temp folders.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { MAX_FILE_BYTES, ShadowCheckpoints } from '../../../../src/hosts/node/checkpoints';
import { makeTempDir, removeDir } from '../../../support/tool-context';

function temporary(prefix: string): string {
  const directory = makeTempDir(prefix);
  after(() => removeDir(directory));
  return directory;
}

function write(root: string, path: string, content: string | Buffer): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), content);
}

/** Every file below `folder` with its bytes and mode, to prove a folder byte-identical. */
function fingerprint(folder: string): Record<string, string> {
  const result: Record<string, string> = {};
  const walk = (directory: string): void => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else result[relative(folder, path)] = `${statSync(path).mode.toString(8)} ${readFileSync(path).toString('base64')}`;
    }
  };
  walk(folder);
  return result;
}

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
  });

async function open(workspace: string, state: string): Promise<ShadowCheckpoints> {
  const checkpoints = await ShadowCheckpoints.open({ stateDir: state, workspaceRoot: workspace });
  assert.ok(checkpoints instanceof ShadowCheckpoints, 'git is on PATH in tests');
  return checkpoints;
}

test('issue 13: a restore puts added, removed, modified and re-moded files back byte for byte, and leaves the user .git, nested repos, ignored and large files alone', async () => {
  const workspace = temporary('zuno-cp-ws-');
  const state = temporary('zuno-cp-state-');
  write(workspace, '.gitignore', 'ignored.log\n');
  // text=auto would normalise CRLF in a plain git add: the shadow repository must not.
  write(workspace, '.gitattributes', '* text=auto\n');
  write(workspace, 'crlf.txt', 'one\r\ntwo\r\n');
  write(workspace, 'src/keep.ts', 'export const a = 1;\n');
  write(workspace, 'src/gone.ts', 'export const gone = true;\n');
  write(workspace, 'run.sh', '#!/bin/sh\necho hi\n');
  chmodSync(join(workspace, 'run.sh'), 0o755);
  write(workspace, 'bin.dat', Buffer.from([0, 1, 2, 255, 13, 10]));
  git(workspace, 'init', '-q');
  git(workspace, 'add', '-A');
  git(workspace, 'commit', '-q', '-m', 'user commit');
  write(workspace, 'nested/inner.txt', 'nested v1\n');
  git(join(workspace, 'nested'), 'init', '-q');
  const userGit = fingerprint(join(workspace, '.git'));
  const nestedGit = fingerprint(join(workspace, 'nested', '.git'));

  const checkpoints = await open(workspace, state);
  // A user's GIT_* variable (a hook's GIT_INDEX_FILE) must not reach the shadow repository's git.
  process.env.GIT_INDEX_FILE = join(workspace, '.git', 'index');
  after(() => delete process.env.GIT_INDEX_FILE);
  const first = await checkpoints.snapshot({ sessionId: 's1', kind: 'turn', messageIndex: 0, prompt: 'change it all' });
  assert.deepEqual(first.nested, ['nested']);
  const before = fingerprint(workspace);

  write(workspace, 'crlf.txt', 'changed\n');
  rmSync(join(workspace, 'src', 'gone.ts'));
  write(workspace, 'added/deep/new.ts', 'new\n');
  chmodSync(join(workspace, 'run.sh'), 0o644);
  write(workspace, 'bin.dat', Buffer.from([9, 9]));
  write(workspace, 'ignored.log', 'log\n');
  write(workspace, 'nested/inner.txt', 'nested v2\n');
  write(workspace, 'large.bin', Buffer.alloc(MAX_FILE_BYTES + 1, 1));

  const now = await checkpoints.current();
  assert.deepEqual(now.skipped, ['large.bin']);
  const changes = await checkpoints.changes(first.tree, now.tree);
  assert.deepEqual(changes.map((change) => `${change.change} ${change.path}`).sort(), [
    'added added/deep/new.ts',
    'modified bin.dat',
    'modified crlf.txt',
    'modified run.sh',
    'removed src/gone.ts',
  ]);
  await checkpoints.restore(first, changes);

  const restored = fingerprint(workspace);
  const expected: Record<string, string | undefined> = {
    ...before,
    'ignored.log': restored['ignored.log'],
    'nested/inner.txt': restored['nested/inner.txt'],
    'large.bin': restored['large.bin'],
  };
  for (const path of Object.keys(restored)) if (path.startsWith('.git/') || path.startsWith('nested/.git/')) delete restored[path];
  for (const path of Object.keys(expected)) if (path.startsWith('.git/') || path.startsWith('nested/.git/')) delete expected[path];
  assert.deepEqual(restored, expected);
  assert.equal(existsSync(join(workspace, 'added')), false, 'folders left empty by removed files go too');
  assert.equal(readFileSync(join(workspace, 'ignored.log'), 'utf8'), 'log\n', 'ignored files are not touched');
  assert.equal(readFileSync(join(workspace, 'nested', 'inner.txt'), 'utf8'), 'nested v2\n', 'nested repositories are not touched');
  assert.equal(statSync(join(workspace, 'large.bin')).size, MAX_FILE_BYTES + 1, 'large files are not touched');
  assert.deepEqual(fingerprint(join(workspace, '.git')), userGit, "the user's .git is byte-identical");
  assert.deepEqual(fingerprint(join(workspace, 'nested', '.git')), nestedGit, "the nested repository's .git is byte-identical");
});

test('issue 13: changes made between turns count as outside Zuno; a turn own changes do not', async () => {
  const workspace = temporary('zuno-cp-ws-');
  const state = temporary('zuno-cp-state-');
  write(workspace, 'a.txt', 'a1\n');
  write(workspace, 'b.txt', 'b1\n');
  const checkpoints = await open(workspace, state);
  const turn = await checkpoints.snapshot({ sessionId: 's1', kind: 'turn' });
  write(workspace, 'a.txt', 'a2 by zuno\n');
  await checkpoints.snapshot({ sessionId: 's1', kind: 'after-turn' });
  write(workspace, 'b.txt', 'b2 by the user\n');
  const now = await checkpoints.current();
  assert.deepEqual([...(await checkpoints.changedOutside(turn, now.tree))], ['b.txt']);
  // The next turn's checkpoint captures the user's edit; it still counts as outside.
  await checkpoints.snapshot({ sessionId: 's1', kind: 'turn' });
  write(workspace, 'a.txt', 'a3 by zuno\n');
  await checkpoints.snapshot({ sessionId: 's1', kind: 'after-turn' });
  assert.deepEqual([...(await checkpoints.changedOutside(turn, (await checkpoints.current()).tree))], ['b.txt']);
  assert.deepEqual(
    (await checkpoints.list('s1')).map((record) => record.id),
    ['cp-1', 'cp-3'],
    'only restorable checkpoints are listed',
  );
});

test('issue 13: without git on PATH checkpoints are off, and the reason says what to do', async () => {
  const result = await ShadowCheckpoints.open({
    stateDir: temporary('zuno-cp-state-'),
    workspaceRoot: temporary('zuno-cp-ws-'),
    git: 'git-that-does-not-exist',
  });
  assert.ok(!(result instanceof ShadowCheckpoints));
  assert.match(result.unavailable, /Checkpoints are off: "git-that-does-not-exist" could not be run .* Install git/);
});

test('issue 13: a state dir inside the workspace is never in a checkpoint, so a rewind cannot touch the store or the shadow repository', async () => {
  const workspace = temporary('zuno-cp-ws-');
  const state = join(workspace, '.zuno', 'state');
  write(workspace, 'src/a.ts', 'a\n');
  write(workspace, '.zuno/config.json', '{}\n');
  write(state, 'journal.jsonl', '{}\n');
  const checkpoints = await open(workspace, state);
  await checkpoints.warm();
  const record = await checkpoints.snapshot({ sessionId: 's1', kind: 'turn' });
  const emptyTree = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
  assert.deepEqual((await checkpoints.changes(emptyTree, record.tree)).map((change) => change.path).sort(), [
    '.zuno/config.json',
    'src/a.ts',
  ]);
});

test('issue 13: checkpoints follow their sessions retention: a session the store no longer keeps loses its records and refs, gc then frees its objects, and the kept session still restores', async () => {
  const workspace = temporary('zuno-cp-ws-');
  const state = temporary('zuno-cp-state-');
  write(workspace, 'a.txt', 'kept session content\n');
  const checkpoints = await open(workspace, state);
  const kept = await checkpoints.snapshot({ sessionId: 'kept', kind: 'turn' });
  write(workspace, 'a.txt', 'content only the dropped session saw\n');
  const dropped = await checkpoints.snapshot({ sessionId: 'gone', kind: 'turn' });
  await checkpoints.snapshot({ sessionId: 'gone', kind: 'after-turn' });
  const shadowGit = (...args: string[]): string =>
    execFileSync('git', args, { encoding: 'utf8', env: { ...process.env, GIT_DIR: checkpoints.gitDir, GIT_CONFIG_NOSYSTEM: '1' } });
  assert.equal(
    shadowGit('rev-list', '--parents', '-n', '1', dropped.commit).trim(),
    dropped.commit,
    'a checkpoint commit has no parent to keep older ones alive',
  );
  const droppedBlob = shadowGit('rev-parse', `${dropped.tree}:a.txt`).trim();

  // The work tree moved on (the shadow index, which gc also counts as a root, no longer holds it).
  write(workspace, 'a.txt', 'later content\n');
  // Warm-up's retention, as the runtime runs it when it opens: kept sessions are the store's.
  await checkpoints.warm((sessionId) => sessionId === 'kept');
  assert.deepEqual(
    (await checkpoints.records()).map((record) => record.id),
    [kept.id],
  );
  assert.deepEqual(shadowGit('for-each-ref', '--format=%(refname)', 'refs/zuno/').trim().split('\n'), [`refs/zuno/${kept.id}`]);
  shadowGit('gc', '--quiet', '--prune=now');
  assert.throws(() => shadowGit('cat-file', '-e', droppedBlob), 'the dropped session content is gone from the shadow repository');

  const now = await checkpoints.current();
  await checkpoints.restore(kept, await checkpoints.changes(kept.tree, now.tree));
  assert.equal(readFileSync(join(workspace, 'a.txt'), 'utf8'), 'kept session content\n');
});
