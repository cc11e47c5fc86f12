// A file or directory the user made read-only stays unwritten by every editing tool (issue 15
// "a read-only file is overwritten"): the atomic write renames a new file over the old one, which
// the file's own mode does not stop, so the host's write path checks first. Real temp dirs, the
// real node host; the tests run as root in CI too, which passes `access` for everything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyPatchTool } from '../../../src/tools/apply_patch';
import { editTool } from '../../../src/tools/edit';
import { writeTool } from '../../../src/tools/write';
import { makeTempDir, makeToolContext, removeDir } from '../../support/tool-context';
import { invoke, snapshotTree } from './patch/tree';

/** A workspace with `a.txt` (writable), `locked.txt` (0444) and `frozen/` (0555) holding `inner.txt`. */
function makeWorkspace(): string {
  const workspace = makeTempDir('zuno-readonly-');
  writeFileSync(join(workspace, 'a.txt'), 'a\n');
  writeFileSync(join(workspace, 'locked.txt'), 'locked\n');
  chmodSync(join(workspace, 'locked.txt'), 0o444);
  mkdirSync(join(workspace, 'frozen'));
  writeFileSync(join(workspace, 'frozen', 'inner.txt'), 'inner\n');
  chmodSync(join(workspace, 'frozen'), 0o555);
  return workspace;
}

function cleanUp(workspace: string): void {
  chmodSync(join(workspace, 'frozen'), 0o755);
  removeDir(workspace);
}

const patch = (...lines: string[]): string => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');

const cases: ReadonlyArray<{ readonly name: string; readonly call: () => [typeof writeTool, unknown]; readonly says: RegExp }> = [
  {
    name: 'write over a 0444 file',
    call: () => [writeTool, { path: 'locked.txt', content: 'new\n' }],
    says: /locked\.txt was not changed: it is read-only \(mode 0444\)/,
  },
  {
    name: 'write a new file in a 0555 directory',
    call: () => [writeTool, { path: 'frozen/new.txt', content: 'new\n' }],
    says: /its directory .*frozen is read-only \(mode 0555\)/,
  },
  {
    name: 'edit a 0444 file',
    call: () => [editTool, { path: 'locked.txt', old_string: 'locked', new_string: 'open' }],
    says: /read-only \(mode 0444\)/,
  },
  {
    name: 'edit a file in a 0555 directory',
    call: () => [editTool, { path: 'frozen/inner.txt', old_string: 'inner', new_string: 'outer' }],
    says: /frozen is read-only \(mode 0555\)/,
  },
  {
    name: 'apply_patch updating a 0444 file after a writable one (the first write is undone)',
    call: () => [applyPatchTool, { patch: patch('*** Update File: a.txt', '-a', '+b', '*** Update File: locked.txt', '-locked', '+open') }],
    says: /locked\.txt was not changed: it is read-only \(mode 0444\)[^]*a\.txt\) were undone\. No file was changed\./,
  },
  {
    name: 'apply_patch deleting a 0444 file',
    call: () => [applyPatchTool, { patch: patch('*** Delete File: locked.txt') }],
    says: /read-only \(mode 0444\)[^]*No file was changed/,
  },
  {
    name: 'apply_patch moving a 0444 file',
    call: () => [applyPatchTool, { patch: patch('*** Update File: locked.txt', '*** Move to: moved.txt') }],
    says: /read-only \(mode 0444\)/,
  },
  {
    name: 'apply_patch adding a file in a 0555 directory',
    call: () => [applyPatchTool, { patch: patch('*** Add File: frozen/new.txt', '+x') }],
    says: /frozen is read-only \(mode 0555\)/,
  },
  {
    name: 'apply_patch updating a file in a 0555 directory',
    call: () => [applyPatchTool, { patch: patch('*** Update File: frozen/inner.txt', '-inner', '+outer') }],
    says: /frozen is read-only/,
  },
];

for (const { name, call, says } of cases) {
  test(`issue 15, S1: read-only stays unwritten: ${name}, with an error that says why`, async () => {
    const workspace = makeWorkspace();
    try {
      const before = snapshotTree(workspace);
      const [tool, args] = call();
      const invocation = await invoke(tool, args, makeToolContext({ workspaceRoot: workspace }));
      assert.equal(invocation.outcome, 'error', invocation.outcome === 'ok' ? 'the call succeeded' : invocation.message);
      assert.match(invocation.message, says);
      assert.deepEqual(snapshotTree(workspace), before, 'nothing changed, byte for byte');
    } finally {
      cleanUp(workspace);
    }
  });
}

test('issue 15, S1: a writable file in the same workspace is still written, keeping its mode', async () => {
  const workspace = makeWorkspace();
  try {
    chmodSync(join(workspace, 'a.txt'), 0o640);
    const invocation = await invoke(writeTool, { path: 'a.txt', content: 'b\n' }, makeToolContext({ workspaceRoot: workspace }));
    assert.equal(invocation.outcome, 'ok', invocation.outcome === 'ok' ? '' : invocation.message);
    assert.equal(readFileSync(join(workspace, 'a.txt'), 'utf8'), 'b\n');
    assert.equal(statSync(join(workspace, 'a.txt')).mode & 0o777, 0o640);
  } finally {
    cleanUp(workspace);
  }
});
