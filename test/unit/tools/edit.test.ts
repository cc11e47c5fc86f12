// edit (SPEC S3 registered slot; issue 3 "edit") on the real node host and real temp dirs. It
// shares apply_patch's matching, format preservation and all-or-none commit, so these tests
// focus on what is edit's own: string replacement, replace_all, and the empty old_string.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { editTool } from '../../../src/tools/edit';
import { builtinToolRegistrations } from '../../../src/tools/index';
import { createNodeHost } from '../../../src/hosts/node/host';
import { approveEverything, makeTempDir, makeToolContext, removeDir } from '../../support/tool-context';
import { invoke, snapshotTree, withFaults, type Invocation } from './patch/tree';

interface Sandbox {
  readonly root: string;
  readonly workspace: string;
}

async function withSandbox(files: Record<string, string | Uint8Array>, body: (sandbox: Sandbox) => Promise<void>): Promise<void> {
  const root = makeTempDir('zuno-edit-');
  const workspace = join(root, 'workspace');
  mkdirSync(workspace);
  for (const [path, content] of Object.entries(files)) writeFileSync(join(workspace, path), content);
  try {
    await body({ root, workspace });
  } finally {
    removeDir(root);
  }
}

function output(invocation: Invocation): string {
  return invocation.outcome === 'ok' ? invocation.result.output : invocation.message;
}

/** Runs a call that must be refused and checks that nothing changed, byte for byte. */
async function refused(sandbox: Sandbox, args: Record<string, unknown>, outcome: 'blocked' | 'error' = 'error'): Promise<string> {
  const before = snapshotTree(sandbox.root);
  const invocation = await invoke(editTool, args, makeToolContext({ workspaceRoot: sandbox.workspace }));
  assert.equal(invocation.outcome, outcome, output(invocation));
  assert.deepEqual(snapshotTree(sandbox.root), before);
  return output(invocation);
}

test('S3, T1: edit is a registered slot off the default surface, declared SideEffecting, Never, Exclusive', () => {
  const registrations = builtinToolRegistrations();
  assert.equal(registrations.find((registration) => registration.tool.name === 'edit')?.defaultSurface, false);
  assert.equal(registrations.find((registration) => registration.tool.name === 'apply_patch')?.defaultSurface, true);
  assert.deepEqual(editTool.declarationsFor({ path: 'a', old_string: 'a', new_string: 'b', replace_all: false }), {
    effect: 'SideEffecting',
    replay: 'Never',
    concurrency: 'Exclusive',
  });
});

test('issue 3 edit: edit replaces the unique occurrence and reports the line and counts', async () => {
  await withSandbox({ 'a.ts': 'const a = 1;\nconst b = 2;\nconst c = 3;\n' }, async ({ workspace }) => {
    const invocation = await invoke(
      editTool,
      { path: 'a.ts', old_string: 'const b = 2;', new_string: 'const b = 20;\nconst bb = 21;' },
      makeToolContext({ workspaceRoot: workspace }),
    );
    assert.equal(invocation.outcome, 'ok');
    assert.equal(
      output(invocation),
      'Replaced 1 occurrence in a.ts (line 2):\nM a.ts +2 -1\n\nUse read to see a file as it is now before changing it again.',
    );
    assert.equal(readFileSync(join(workspace, 'a.ts'), 'utf8'), 'const a = 1;\nconst b = 20;\nconst bb = 21;\nconst c = 3;\n');
  });
});

test('issue 3 edit: edit with several matches and no replace_all lists every candidate line and changes nothing', async () => {
  await withSandbox({ 'dup.txt': 'x = 1\ny\nx = 1\nz\nx = 1\n' }, async (sandbox) => {
    const message = await refused(sandbox, { path: 'dup.txt', old_string: 'x = 1', new_string: 'x = 2' });
    assert.match(message, /^old_string matches 3 places \(lines 1, 3, 5\) in dup\.txt\. .*set replace_all/);
  });
});

test('issue 3 edit: edit with replace_all replaces every occurrence', async () => {
  await withSandbox({ 'dup.txt': 'x = 1\ny\nx = 1\n' }, async ({ workspace }) => {
    const invocation = await invoke(
      editTool,
      { path: 'dup.txt', old_string: 'x = 1', new_string: 'x = 2', replace_all: true },
      makeToolContext({ workspaceRoot: workspace }),
    );
    assert.match(output(invocation), /^Replaced 2 occurrences in dup\.txt \(lines 1, 3\):/);
    assert.equal(readFileSync(join(workspace, 'dup.txt'), 'utf8'), 'x = 2\ny\nx = 2\n');
  });
});

test('issue 3 edit: edit with no match shows the closest region with line numbers and the first difference', async () => {
  const file = Array.from({ length: 12 }, (_, index) => `row ${index + 1}`).join('\n') + '\n';
  await withSandbox({ 'rows.txt': file }, async (sandbox) => {
    const message = await refused(sandbox, { path: 'rows.txt', old_string: 'row 7\nrow eight\nrow 9', new_string: 'x' });
    assert.ok(
      message.startsWith('old_string was not found in rows.txt, not even ignoring whitespace and typographic punctuation.'),
      message,
    );
    assert.ok(message.includes('The closest region of the file is lines 4-12:\n 4 | row 4\n'), message);
    assert.ok(message.includes('First difference, at line 8: expected "row eight", the file has "row 8".'), message);
  });
});

test('issue 3 edit: edit matches whole lines ignoring indentation when the exact text is absent, and says so', async () => {
  await withSandbox({ 'f.py': 'def f():\n\tif x:\n\t\treturn 1\n\treturn 2\n' }, async ({ workspace }) => {
    const invocation = await invoke(
      editTool,
      { path: 'f.py', old_string: '    if x:\n        return 1\n', new_string: '\tif x:\n\t\treturn 10\n' },
      makeToolContext({ workspaceRoot: workspace }),
    );
    assert.match(output(invocation), /^Replaced 1 occurrence in f\.py \(line 2, matched ignoring leading and trailing whitespace\):/);
    assert.equal(readFileSync(join(workspace, 'f.py'), 'utf8'), 'def f():\n\tif x:\n\t\treturn 10\n\treturn 2\n');
  });
});

test('issue 3 edit: edit on a CRLF file with a BOM and no final newline: \\n strings match, and endings, BOM and missing newline are kept', async () => {
  const before = Buffer.from('\uFEFFfirst\r\nsecond\r\nthird', 'utf8');
  await withSandbox({ 'win.txt': before }, async ({ workspace }) => {
    const invocation = await invoke(
      editTool,
      { path: 'win.txt', old_string: 'second\nthird', new_string: 'SECOND\nTHIRD\nfourth' },
      makeToolContext({ workspaceRoot: workspace }),
    );
    assert.equal(invocation.outcome, 'ok', output(invocation));
    assert.deepEqual(readFileSync(join(workspace, 'win.txt')), Buffer.from('\uFEFFfirst\r\nSECOND\r\nTHIRD\r\nfourth', 'utf8'));
  });
});

test('issue 3 edit: edit keeps a final newline even when the replacement at the end drops it', async () => {
  await withSandbox({ 'n.txt': 'a\nb\n' }, async ({ workspace }) => {
    await invoke(editTool, { path: 'n.txt', old_string: 'b\n', new_string: 'B' }, makeToolContext({ workspaceRoot: workspace }));
    assert.equal(readFileSync(join(workspace, 'n.txt'), 'utf8'), 'a\nB\n');
  });
});

test('issue 3 edit: edit refuses identical old_string and new_string as invalid arguments', async () => {
  await withSandbox({ 'a.txt': 'a\n' }, async (sandbox) => {
    const message = await refused(sandbox, { path: 'a.txt', old_string: 'a', new_string: 'a' }, 'blocked');
    assert.match(message, /old_string and new_string are identical/);
  });
});

test('issue 3 edit: edit with an empty old_string creates a missing file, with its directories, exactly as given', async () => {
  await withSandbox({}, async ({ workspace }) => {
    const invocation = await invoke(
      editTool,
      { path: 'src/new/file.txt', old_string: '', new_string: 'hello\nworld\n' },
      makeToolContext({ workspaceRoot: workspace }),
    );
    assert.equal(
      output(invocation),
      'Created src/new/file.txt:\nA src/new/file.txt +2 -0\n\nUse read to see a file as it is now before changing it again.',
    );
    assert.equal(readFileSync(join(workspace, 'src', 'new', 'file.txt'), 'utf8'), 'hello\nworld\n');
  });
});

test('issue 3 edit: edit with an empty old_string fills an existing empty file, and refuses a non-empty one', async () => {
  await withSandbox({ 'empty.txt': '', 'full.txt': 'content\n' }, async (sandbox) => {
    const invocation = await invoke(
      editTool,
      { path: 'empty.txt', old_string: '', new_string: 'now\n' },
      makeToolContext({ workspaceRoot: sandbox.workspace }),
    );
    assert.equal(invocation.outcome, 'ok');
    assert.equal(readFileSync(join(sandbox.workspace, 'empty.txt'), 'utf8'), 'now\n');
    const message = await refused(sandbox, { path: 'full.txt', old_string: '', new_string: 'x' });
    assert.match(message, /full\.txt already exists and is not empty, so old_string cannot be empty/);
  });
});

test('issue 3 edit: edit of a missing file with a non-empty old_string is refused and says how to create it', async () => {
  await withSandbox({}, async (sandbox) => {
    const message = await refused(sandbox, { path: 'nope.txt', old_string: 'a', new_string: 'b' });
    assert.match(message, /nope\.txt does not exist\. .*empty old_string to create it/);
  });
});

test('issue 3 edit: edit refuses paths outside the workspace, through ../ or a symlink', async () => {
  await withSandbox({}, async (sandbox) => {
    mkdirSync(join(sandbox.root, 'outside'));
    writeFileSync(join(sandbox.root, 'outside', 'secret.txt'), 'secret\n');
    symlinkSync('../outside', join(sandbox.workspace, 'escape'));
    for (const path of ['../outside/secret.txt', 'escape/secret.txt']) {
      // The policy refuses it on the call's real path, before the tool runs (issue 8 item 4).
      const message = await refused(sandbox, { path, old_string: 'secret', new_string: 'leaked' }, 'blocked');
      assert.match(message, /is outside the workspace/);
    }
    const subjects = await editTool.subjectsFor(
      { path: 'escape/secret.txt', old_string: 'a', new_string: 'b', replace_all: false },
      makeToolContext({ workspaceRoot: sandbox.workspace }),
    );
    assert.deepEqual(
      subjects.map(({ kind, value, outsideWorkspace }) => ({ kind, value, outsideWorkspace })),
      [{ kind: 'path', value: join(sandbox.root, 'outside', 'secret.txt'), outsideWorkspace: true }],
    );
  });
});

test('§9: a permission rule that names an outside path lets edit reach it, as it does for write', async () => {
  await withSandbox({}, async (sandbox) => {
    mkdirSync(join(sandbox.root, 'shared'));
    const target = join(sandbox.root, 'shared', 'notes.txt');
    writeFileSync(target, 'old\n');
    const context = makeToolContext({
      workspaceRoot: sandbox.workspace,
      config: { permission: { rules: [{ tool: 'edit', match: join(sandbox.root, 'shared', '**'), action: 'allow' }] } },
    });
    const invocation = await invoke(editTool, { path: target, old_string: 'old', new_string: 'new' }, context);
    assert.equal(invocation.outcome, 'ok');
    assert.equal(readFileSync(target, 'utf8'), 'new\n');
  });
});

test('issue 3 edit: edit preview proposes the new text in the file format and writes nothing; a later change is re-verified at apply', async () => {
  await withSandbox({ 'p.txt': 'one\r\ntwo\r\n' }, async (sandbox) => {
    const context = makeToolContext({ workspaceRoot: sandbox.workspace });
    const args = { path: 'p.txt', old_string: 'two', new_string: 'TWO', replace_all: false };
    const before = snapshotTree(sandbox.root);
    assert.deepEqual(await editTool.preview(args, context), [
      { path: join(sandbox.workspace, 'p.txt'), kind: 'update', before: 'one\r\ntwo\r\n', after: 'one\r\nTWO\r\n' },
    ]);
    assert.deepEqual(snapshotTree(sandbox.root), before);
    writeFileSync(join(sandbox.workspace, 'p.txt'), 'ONE\r\ntwo\r\n');
    await invoke(editTool, args, context);
    assert.equal(readFileSync(join(sandbox.workspace, 'p.txt'), 'utf8'), 'ONE\r\nTWO\r\n');
  });
});

test("issue 3 edit: edit with approvedEdits writes the user's text and returns their changes as a diff", async () => {
  await withSandbox({ 'u.txt': 'alpha\nbeta\n' }, async ({ workspace }) => {
    const approvedEdits = { [join(workspace, 'u.txt')]: 'alpha\nBETA!\n' };
    const invocation = await invoke(
      editTool,
      { path: 'u.txt', old_string: 'beta', new_string: 'BETA' },
      makeToolContext({ workspaceRoot: workspace, approvedEdits }),
    );
    assert.equal(readFileSync(join(workspace, 'u.txt'), 'utf8'), 'alpha\nBETA!\n');
    assert.ok(
      output(invocation).includes(
        'The user edited the proposed u.txt before approving; what landed differs from your proposal by:\n--- u.txt\tproposed\n+++ u.txt\tlanded\n@@ -1,2 +1,2 @@\n alpha\n-BETA\n+BETA!',
      ),
      output(invocation),
    );
  });
});

test('issue 3: edit: a failed write leaves the file as it was (all files or none)', async () => {
  await withSandbox({ 'w.txt': 'keep me\n' }, async (sandbox) => {
    const before = snapshotTree(sandbox.root);
    const host = withFaults(
      createNodeHost({ stateDir: join(sandbox.root, 'state'), approvals: approveEverything }),
      (operation) => operation === 'writeFileAtomic',
    );
    const invocation = await invoke(
      editTool,
      { path: 'w.txt', old_string: 'keep', new_string: 'lose' },
      makeToolContext({ workspaceRoot: sandbox.workspace, host }),
    );
    assert.equal(invocation.outcome, 'error');
    assert.match(output(invocation), /^Nothing was changed: writing .*w\.txt failed: ENOSPC/);
    assert.deepEqual(snapshotTree(sandbox.root), before);
  });
});
