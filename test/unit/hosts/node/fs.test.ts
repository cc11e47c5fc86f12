import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { createNodeFileSystem } from '../../../../src/hosts/node/fs';
import { makeTempDir, removeDir } from '../../../support/tool-context';

const fs = createNodeFileSystem();
const root = makeTempDir('zuno-fs-');
after(() => removeDir(root));

test('§9 realpath of a path that does not exist yet resolves its nearest existing ancestor through symlinks', async () => {
  const outside = makeTempDir('zuno-fs-outside-');
  after(() => removeDir(outside));
  symlinkSync(outside, join(root, 'escape'));
  assert.equal(await fs.realpath(join(root, 'escape', 'new', 'file.txt')), join(outside, 'new', 'file.txt'));
  assert.equal(await fs.realpath(join(root, 'plain', 'new.txt')), join(root, 'plain', 'new.txt'));
});

test('§9 realpath follows a dangling symlink to where a write would land', async () => {
  const outside = makeTempDir('zuno-fs-dangling-');
  after(() => removeDir(outside));
  symlinkSync(join(outside, 'target.txt'), join(root, 'dangling'));
  assert.equal(await fs.realpath(join(root, 'dangling')), join(outside, 'target.txt'));
});

test('§9 stat and lstat say undefined for nothing, and lstat sees the link itself', async () => {
  writeFileSync(join(root, 'real.txt'), 'x');
  symlinkSync(join(root, 'real.txt'), join(root, 'link.txt'));
  assert.equal(await fs.stat(join(root, 'missing')), undefined);
  assert.equal(await fs.stat(join(root, 'real.txt', 'below')), undefined);
  assert.equal((await fs.stat(join(root, 'link.txt')))?.type, 'file');
  assert.equal((await fs.lstat(join(root, 'link.txt')))?.type, 'symlink');
});

test('§9 writeFileAtomic creates parents, leaves no temp file and keeps the old mode', async () => {
  const target = join(root, 'deep', 'er', 'script.sh');
  await fs.writeFileAtomic(target, new TextEncoder().encode('one'));
  assert.equal(readFileSync(target, 'utf8'), 'one');
  chmodSync(target, 0o751);
  await fs.writeFileAtomic(target, new TextEncoder().encode('two'));
  assert.equal(readFileSync(target, 'utf8'), 'two');
  assert.equal(statSync(target).mode & 0o777, 0o751);
  assert.deepEqual(readdirSync(join(root, 'deep', 'er')), ['script.sh']);
});

test('§9 writeFileAtomic through a symlink replaces the target and keeps the link', async () => {
  writeFileSync(join(root, 'linked-target.txt'), 'old');
  symlinkSync(join(root, 'linked-target.txt'), join(root, 'via-link.txt'));
  await fs.writeFileAtomic(join(root, 'via-link.txt'), new TextEncoder().encode('new'));
  assert.ok(lstatSync(join(root, 'via-link.txt')).isSymbolicLink());
  assert.equal(readFileSync(join(root, 'linked-target.txt'), 'utf8'), 'new');
});

test('§9 readStream yields the file in chunks and an abort stops it', async () => {
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

test('§9 readDirectory types entries; remove and mkdir tolerate what is already done', async () => {
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
