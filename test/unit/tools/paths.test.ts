import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkedPathsOf, type CallSubject } from '../../../src/core/tool';
import { checkedPath, isWithin, pathSubject, resolveWorkspacePath } from '../../../src/tools/paths';
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

/** What the policy matches: the subject without the resolution that travels with it to the tool. */
const matched = ({ kind, value, outsideWorkspace }: CallSubject): CallSubject => ({
  kind,
  value,
  ...(outsideWorkspace !== undefined ? { outsideWorkspace } : {}),
});

test('§9: relative and absolute paths inside the workspace are inside', async () => {
  assert.deepEqual(matched(await pathSubject(context, 'src/a.ts')), {
    kind: 'path',
    value: join(workspace, 'src', 'a.ts'),
    outsideWorkspace: false,
  });
  assert.equal((await resolveWorkspacePath(context, join(workspace, 'src'))).display, 'src');
  assert.equal((await resolveWorkspacePath(context, '.')).display, '.');
  assert.equal((await resolveWorkspacePath(context, 'src/new/file.ts')).outsideWorkspace, false);
});

test('§9: a symlink that leaves the workspace makes the path outside, with its real path as the subject', async () => {
  assert.deepEqual(matched(await pathSubject(context, 'escape/secret.txt')), {
    kind: 'path',
    value: join(outside, 'secret.txt'),
    outsideWorkspace: true,
  });
  assert.deepEqual(matched(await pathSubject(context, 'escape/not-yet.txt')), {
    kind: 'path',
    value: join(outside, 'not-yet.txt'),
    outsideWorkspace: true,
  });
  assert.deepEqual(matched(await pathSubject(context, 'inner-link/a.ts')), {
    kind: 'path',
    value: join(workspace, 'src', 'a.ts'),
    outsideWorkspace: false,
  });
});

test('§9: .. out of the workspace is outside; a sibling with the root as prefix is too', async () => {
  assert.equal((await pathSubject(context, '../x')).outsideWorkspace, true);
  assert.equal(isWithin('/work/ws', '/work/ws-other/file'), false);
  assert.equal(isWithin('/work/ws', '/work/ws/..file'), true);
  assert.equal(isWithin('/work/ws', '/work/ws'), true);
});

test('§9: a tool gets its path arguments exactly as the scheduler checked them, never resolved again (issue 8 item 4)', async () => {
  const subject = await pathSubject(context, 'inner-link/a.ts');
  assert.deepEqual(subject.resolved, {
    argument: 'inner-link/a.ts',
    absolute: join(workspace, 'inner-link', 'a.ts'),
    real: join(workspace, 'src', 'a.ts'),
    outsideWorkspace: false,
    display: join('src', 'a.ts'),
  });
  const checked = { ...context, paths: checkedPathsOf([subject, { kind: 'command', value: 'ls' }]) };
  assert.equal(checkedPath(checked, 'inner-link/a.ts'), subject.resolved);
  // A path the tool did not report as a subject was never checked: a bug in the tool, not a path to resolve now.
  assert.throws(() => checkedPath(checked, 'src/a.ts'), /was not among the call's subjects/);
});
