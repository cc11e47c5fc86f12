import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { createNodeFileSystem, PathChangedError, type VerificationMode } from '../../../../src/hosts/node/fs';
import { makeTempDir, removeDir } from '../../../support/tool-context';

const fs = createNodeFileSystem();
const root = makeTempDir('zuno-fs-');
after(() => removeDir(root));

test('§9: realpath of a path that does not exist yet resolves its nearest existing ancestor through symlinks', async () => {
  const outside = makeTempDir('zuno-fs-outside-');
  after(() => removeDir(outside));
  symlinkSync(outside, join(root, 'escape'));
  assert.equal(await fs.realpath(join(root, 'escape', 'new', 'file.txt')), join(outside, 'new', 'file.txt'));
  assert.equal(await fs.realpath(join(root, 'plain', 'new.txt')), join(root, 'plain', 'new.txt'));
});

test('§9: realpath follows a dangling symlink to where a write would land', async () => {
  const outside = makeTempDir('zuno-fs-dangling-');
  after(() => removeDir(outside));
  symlinkSync(join(outside, 'target.txt'), join(root, 'dangling'));
  assert.equal(await fs.realpath(join(root, 'dangling')), join(outside, 'target.txt'));
});

test('§9: stat and lstat say undefined for nothing, and lstat sees the link itself', async () => {
  writeFileSync(join(root, 'real.txt'), 'x');
  symlinkSync(join(root, 'real.txt'), join(root, 'link.txt'));
  assert.equal(await fs.stat(join(root, 'missing')), undefined);
  assert.equal(await fs.stat(join(root, 'real.txt', 'below')), undefined);
  assert.equal((await fs.stat(join(root, 'link.txt')))?.type, 'file');
  assert.equal((await fs.lstat(join(root, 'link.txt')))?.type, 'symlink');
});

test('§9: writeFileAtomic creates parents, leaves no temp file and keeps the old mode', async () => {
  const target = join(root, 'deep', 'er', 'script.sh');
  await fs.writeFileAtomic(target, new TextEncoder().encode('one'));
  assert.equal(readFileSync(target, 'utf8'), 'one');
  chmodSync(target, 0o751);
  await fs.writeFileAtomic(target, new TextEncoder().encode('two'));
  assert.equal(readFileSync(target, 'utf8'), 'two');
  assert.equal(statSync(target).mode & 0o777, 0o751);
  assert.deepEqual(readdirSync(join(root, 'deep', 'er')), ['script.sh']);
});

test('§9 writeFileAtomic takes a checked real path: a symlink as its last component is refused, the link and its target untouched (issue 8 item 4)', async () => {
  writeFileSync(join(root, 'linked-target.txt'), 'old');
  symlinkSync(join(root, 'linked-target.txt'), join(root, 'via-link.txt'));
  await assert.rejects(fs.writeFileAtomic(join(root, 'via-link.txt'), new TextEncoder().encode('new')), PathChangedError);
  assert.ok(lstatSync(join(root, 'via-link.txt')).isSymbolicLink());
  assert.equal(readFileSync(join(root, 'linked-target.txt'), 'utf8'), 'old');
});

test('§9: readStream yields the file in chunks and an abort stops it', async () => {
  const path = join(root, 'big.bin');
  writeFileSync(path, Buffer.alloc(1024 * 1024, 97));
  let total = 0;
  for await (const chunk of fs.readStream(path)) total += chunk.length;
  assert.equal(total, 1024 * 1024);

  const controller = new AbortController();
  let chunks = 0;
  await assert.rejects(async () => {
    for await (const chunk of fs.readStream(path, controller.signal)) {
      chunks += chunk.length > 0 ? 1 : 0;
      controller.abort();
    }
  }, /abort/i);
  assert.equal(chunks, 1);
});

test('§9: readDirectory types entries; remove and mkdir tolerate what is already done', async () => {
  const folder = join(root, 'listing');
  mkdirSync(join(folder, 'sub'), { recursive: true });
  writeFileSync(join(folder, 'file.txt'), '');
  symlinkSync(join(folder, 'sub'), join(folder, 'link'));
  const entries = (await fs.readDirectory(folder)).sort((left, right) => left.name.localeCompare(right.name));
  assert.deepEqual(entries, [
    { name: 'file.txt', type: 'file' },
    { name: 'link', type: 'symlink' },
    { name: 'sub', type: 'directory' },
  ]);
  await fs.mkdir(join(folder, 'sub'));
  await fs.remove(join(folder, 'file.txt'));
  await fs.remove(join(folder, 'file.txt'));
  await fs.rename(join(folder, 'sub'), join(folder, 'moved'));
  await fs.remove(join(folder, 'moved'));
  assert.deepEqual(readdirSync(folder), ['link']);
});

/**
 * A workspace whose `dir` is a symlink to a folder outside, as a swapper leaves it mid-race: the
 * paths were checked while `dir` was a real folder, so every checked operation must refuse them.
 */
function swappedWorkspace(): { workspace: string; outside: string; dir: string } {
  const base = makeTempDir('zuno-fs-swap-');
  after(() => removeDir(base));
  const workspace = join(base, 'ws');
  const outside = join(base, 'outside');
  mkdirSync(join(outside, 'sub'), { recursive: true });
  mkdirSync(workspace);
  writeFileSync(join(outside, 'secret.txt'), 'SECRET');
  symlinkSync('../outside', join(workspace, 'dir'));
  return { workspace, outside, dir: join(workspace, 'dir') };
}

const outsideSnapshot = (outside: string): string[] => readdirSync(outside, { recursive: true }).map(String).sort();

for (const verification of ['fd-path', 'identity'] as const satisfies readonly VerificationMode[]) {
  // `fd-path` needs /proc; elsewhere only the portable checks exist.
  const skip = verification === 'fd-path' && process.platform !== 'linux';
  const checked = createNodeFileSystem({ verification });

  test(`§9 ${verification}: a read of a checked path whose parent became a symlink reads nothing (issue 8 item 4)`, { skip }, async () => {
    const { dir } = swappedWorkspace();
    // O_NOFOLLOW alone would let this through: the last component is a regular file. The
    // descriptor's own path (or its inode) is what gives the swap away.
    await assert.rejects(
      fs.readFile(join(dir, 'secret.txt')).then(() => checked.readFileChecked(join(dir, 'secret.txt'))),
      PathChangedError,
    );
    await assert.rejects(async () => {
      for await (const chunk of checked.readStreamChecked(join(dir, 'secret.txt'))) assert.fail(`read ${chunk.length} bytes from outside`);
    }, PathChangedError);
    await assert.rejects(checked.readDirectoryChecked(dir), PathChangedError);
  });

  test(
    `§9 ${verification}: a checked read whose last component became a symlink is not followed (O_NOFOLLOW) (issue 8 item 4)`,
    { skip },
    async () => {
      const { workspace, outside } = swappedWorkspace();
      symlinkSync(join(outside, 'secret.txt'), join(workspace, 'innocent.txt'));
      await assert.rejects(checked.readFileChecked(join(workspace, 'innocent.txt')), PathChangedError);
      await assert.rejects(checked.readDirectoryChecked(join(workspace, 'dir')), PathChangedError);
      // A real file where a folder was checked is the caller's mistake, not a swap: the system's own error.
      writeFileSync(join(workspace, 'plain.txt'), '');
      await assert.rejects(
        checked.writeFileAtomic(join(workspace, 'plain.txt', 'below.txt'), new Uint8Array()),
        (error: unknown) => !(error instanceof PathChangedError) && /ENOTDIR/.test(String(error)),
      );
    },
  );

  test(
    `§9 ${verification}: writes, mkdir, rename and remove under a swapped parent change nothing outside (issue 8 item 4)`,
    { skip },
    async () => {
      const { dir, outside } = swappedWorkspace();
      const before = outsideSnapshot(outside);
      await assert.rejects(checked.writeFileAtomic(join(dir, 'new.txt'), new TextEncoder().encode('x')), PathChangedError);
      await assert.rejects(checked.writeFileAtomic(join(dir, 'secret.txt'), new TextEncoder().encode('x')), PathChangedError);
      // mkdir -p must not follow the link either, at any depth.
      await assert.rejects(checked.writeFileAtomic(join(dir, 'a', 'b', 'new.txt'), new TextEncoder().encode('x')), PathChangedError);
      await assert.rejects(checked.mkdir(join(dir, 'sub', 'deeper')), PathChangedError);
      await assert.rejects(checked.rename(join(dir, 'secret.txt'), join(dir, 'moved.txt')), PathChangedError);
      await assert.rejects(checked.remove(join(dir, 'secret.txt')), PathChangedError);
      assert.deepEqual(outsideSnapshot(outside), before);
      assert.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), 'SECRET');
    },
  );

  test(
    `§9 ${verification}: checked operations on real paths read, write atomically, keep the mode and create parents (issue 8 item 4)`,
    { skip },
    async () => {
      const folder = makeTempDir('zuno-fs-checked-');
      after(() => removeDir(folder));
      const target = join(folder, 'x', 'y', 'script.sh');
      await checked.writeFileAtomic(target, new TextEncoder().encode('one'));
      chmodSync(target, 0o751);
      await checked.writeFileAtomic(target, new TextEncoder().encode('two'));
      assert.equal(new TextDecoder().decode(await checked.readFileChecked(target)), 'two');
      assert.equal(statSync(target).mode & 0o777, 0o751);
      assert.deepEqual(await checked.readDirectoryChecked(join(folder, 'x', 'y')), [{ name: 'script.sh', type: 'file' }]);
      let streamed = '';
      for await (const chunk of checked.readStreamChecked(target)) streamed += new TextDecoder().decode(chunk);
      assert.equal(streamed, 'two');
      await checked.rename(target, join(folder, 'x', 'moved.sh'));
      await checked.remove(join(folder, 'x', 'moved.sh'));
      await checked.remove(join(folder, 'x', 'y'));
      assert.deepEqual(readdirSync(join(folder, 'x')), []);
    },
  );
}
