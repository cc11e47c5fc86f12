import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeTool } from '../../../src/tools/write';
import { makeTempDir, makeToolContext, removeDir, checkCall, PolicyRefusal } from '../../support/tool-context';

const workspace = makeTempDir('zuno-write-');
const outside = makeTempDir('zuno-write-outside-');
after(() => {
  removeDir(workspace);
  removeDir(outside);
});
const context = makeToolContext({ workspaceRoot: workspace });

async function write(args: Record<string, unknown>, ctx = context) {
  const parsed = writeTool.parse(args);
  assert.ok(parsed.success, JSON.stringify(parsed));
  return writeTool.run(parsed.args, await checkCall(writeTool, parsed.args, ctx));
}

test('T2: write declares SideEffecting, Never, Exclusive (E3, C2)', () => {
  assert.deepEqual(writeTool.declarationsFor({ path: 'x', content: '' }), {
    effect: 'SideEffecting',
    replay: 'Never',
    concurrency: 'Exclusive',
  });
});

test('issue 2 §9: write creates parent folders and says it created the file', async () => {
  const result = await write({ path: 'a/b/c/new.txt', content: 'one\ntwo\n' });
  assert.equal(result.output, 'Created a/b/c/new.txt (8 bytes, 2 lines).');
  assert.equal(readFileSync(join(workspace, 'a/b/c/new.txt'), 'utf8'), 'one\ntwo\n');
});

test('issue 2 §9: write replaces atomically, leaving no temp file, and reports the change of line endings', async () => {
  writeFileSync(join(workspace, 'dos.txt'), 'old\r\ntext\r\n');
  const result = await write({ path: 'dos.txt', content: 'new\ntext\nmore\n' });
  assert.equal(
    result.output,
    'Replaced dos.txt (14 bytes, 3 lines; it had 11 bytes, 2 lines).\nNote: the old file used CRLF line endings and the new content uses LF, written as given.',
  );
  assert.equal(readFileSync(join(workspace, 'dos.txt'), 'utf8'), 'new\ntext\nmore\n');
  assert.deepEqual(
    readdirSync(workspace).filter((name) => name.endsWith('.tmp')),
    [],
  );
});

test('issue 2 §9: preview gives the before and after of the file for the diff approval', async () => {
  writeFileSync(join(workspace, 'preview.txt'), 'before\n');
  assert.deepEqual(await writeTool.preview({ path: 'preview.txt', content: 'after\n' }, context), [
    { path: join(workspace, 'preview.txt'), kind: 'update', before: 'before\n', after: 'after\n' },
  ]);
  assert.deepEqual(await writeTool.preview({ path: 'fresh/file.txt', content: 'x' }, context), [
    { path: join(workspace, 'fresh', 'file.txt'), kind: 'create', before: undefined, after: 'x' },
  ]);
  assert.equal(existsSync(join(workspace, 'fresh')), false, 'a preview touches nothing');
});

test('issue 2 §9: text the user edited in the diff preview is what lands, and the model gets the diff', async () => {
  const path = join(workspace, 'edited.ts');
  const ctx = makeToolContext({ workspaceRoot: workspace, approvedEdits: { [path]: 'const a = 1;\nconst b = 3;\n' } });
  const result = await write({ path: 'edited.ts', content: 'const a = 1;\nconst b = 2;\n' }, ctx);
  assert.equal(readFileSync(path, 'utf8'), 'const a = 1;\nconst b = 3;\n');
  assert.match(result.output, /^Created edited\.ts \(26 bytes, 2 lines\)\.\nThe user edited your content in the diff preview/);
  assert.match(
    result.output,
    /--- edited\.ts\tyour proposal\n\+\+\+ edited\.ts\twhat the user approved and was written\n@@ -1,2 \+1,2 @@\n const a = 1;\n-const b = 2;\n\+const b = 3;\n/,
  );
  assert.equal(result.metadata?.userEdited, true);
});

test('§9: write refuses a path that a symlink leads out of the workspace, unless a rule names it', async () => {
  symlinkSync(outside, join(workspace, 'out-link'));
  const [subject] = await writeTool.subjectsFor({ path: 'out-link/x.txt', content: '' }, context);
  assert.deepEqual([subject?.kind, subject?.value, subject?.outsideWorkspace], ['path', join(outside, 'x.txt'), true]);
  await assert.rejects(
    write({ path: 'out-link/x.txt', content: 'no' }),
    (error: unknown) => error instanceof PolicyRefusal && /outside the workspace/.test(error.message),
  );
  await assert.rejects(write({ path: '../escape.txt', content: 'no' }), PolicyRefusal);
  assert.equal(existsSync(join(outside, 'x.txt')), false);

  const allowed = makeToolContext({
    workspaceRoot: workspace,
    config: { permission: { rules: [{ tool: 'write', match: `${outside}/*.txt`, action: 'allow' }] } },
  });
  await write({ path: 'out-link/x.txt', content: 'yes' }, allowed);
  assert.equal(readFileSync(join(outside, 'x.txt'), 'utf8'), 'yes');
});

test('issue 2 §9: write onto a folder is an error that says what to do', async () => {
  await assert.rejects(write({ path: 'a', content: 'x' }), /is a folder/);
});
