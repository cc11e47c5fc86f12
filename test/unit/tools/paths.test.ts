import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ToolError } from '../../../src/core/errors';
import { isWithin, pathSubject, resolveForRun, resolveWorkspacePath } from '../../../src/tools/paths';
import { makeTempDir, makeToolContext, removeDir } from '../../support/tool-context';

const workspace = makeTempDir('zuno-paths-');
const outside = makeTempDir('zuno-paths-outside-');
after(() => {
  removeDir(workspace);
  removeDir(outside);
});
mkdirSync(join(workspace, 'src'));
writeFileSync(join(workspace, 'src', 'a.ts'), '');
writeFileSync(join(outside, 'secret.txt'), 'secret');
symlinkSync(outside, join(workspace, 'escape'));
symlinkSync(join(workspace, 'src'), join(workspace, 'inner-link'));

const context = makeToolContext({ workspaceRoot: workspace });

test('§9 relative and absolute paths inside the workspace are inside', async () => {
  assert.deepEqual(await pathSubject(context, 'src/a.ts'), { kind: 'path', value: join(workspace, 'src', 'a.ts'), outsideWorkspace: false });
  assert.equal((await resolveWorkspacePath(context, join(workspace, 'src'))).display, 'src');
  assert.equal((await resolveWorkspacePath(context, '.')).display, '.');
  assert.equal((await resolveWorkspacePath(context, 'src/new/file.ts')).outsideWorkspace, false);
});

test('§9 a symlink that leaves the workspace makes the path outside, with its real path as the subject', async () => {
  assert.deepEqual(await pathSubject(context, 'escape/secret.txt'), { kind: 'path', value: join(outside, 'secret.txt'), outsideWorkspace: true });
  assert.deepEqual(await pathSubject(context, 'escape/not-yet.txt'), { kind: 'path', value: join(outside, 'not-yet.txt'), outsideWorkspace: true });
  assert.deepEqual(await pathSubject(context, 'inner-link/a.ts'), { kind: 'path', value: join(workspace, 'src', 'a.ts'), outsideWorkspace: false });
});

test('§9 .. out of the workspace is outside; a sibling with the root as prefix is too', async () => {
  assert.equal((await pathSubject(context, '../x')).outsideWorkspace, true);
  assert.equal(isWithin('/work/ws', '/work/ws-other/file'), false);
  assert.equal(isWithin('/work/ws', '/work/ws/..file'), true);
  assert.equal(isWithin('/work/ws', '/work/ws'), true);
});

test('§9 at run time an outside path is refused unless a permission rule names it', async () => {
  await assert.rejects(resolveForRun(context, 'read', { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' }, 'escape/secret.txt'), (error: unknown) => {
    assert.ok(error instanceof ToolError);
    assert.match(error.message, /outside the workspace/);
    assert.match(error.message, /through a symlink/);
    return true;
  });
  const allowed = makeToolContext({
    workspaceRoot: workspace,
    config: { permission: { rules: [{ tool: 'read', match: `${outside}/**`, action: 'allow' }] } },
  });
  const resolved = await resolveForRun(allowed, 'read', { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' }, 'escape/secret.txt');
  assert.equal(resolved.real, join(outside, 'secret.txt'));
});
