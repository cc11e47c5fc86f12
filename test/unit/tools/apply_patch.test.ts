// apply_patch (SPEC S1, T1, issue 3 "apply_patch") on the real node host and real temp dirs.
// The corpora under test/fixtures/patches drive most of it: every `apply` case must produce its
// `after` tree exactly, and every `refuse` case must leave every file unchanged byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../../../src/core/config';
import { EventBus } from '../../../src/core/events';
import type { ApprovalRequest } from '../../../src/core/host';
import { ToolRegistry } from '../../../src/core/registry';
import { Scheduler } from '../../../src/core/scheduler';
import { applyPatchTool } from '../../../src/tools/apply_patch';
import { createNodeHost } from '../../../src/hosts/node/host';
import { MemoryLedger } from '../../support/memory-ledger';
import { approveEverything, makeTempDir, makeToolContext, removeDir } from '../../support/tool-context';
import { copyFixture, invoke, snapshotTree, withFaults } from './patch/tree';

const corpora = join(__dirname, '..', '..', 'fixtures', 'patches');

interface CaseMeta {
  readonly about: string;
  /** `policy`: the scheduler refuses the call on its path subjects before the tool runs (issue 8 item 4). */
  readonly refusedAt?: 'arguments' | 'policy' | 'run';
  /** Links to create in the workspace: name -> target (relative targets resolve from the link). */
  readonly symlinks?: Readonly<Record<string, string>>;
}

interface Sandbox {
  readonly root: string;
  readonly workspace: string;
  readonly outside: string;
}

/** A workspace beside an `outside` directory holding a file that must never change. */
function makeSandbox(): Sandbox {
  const root = makeTempDir('zuno-patch-');
  const workspace = join(root, 'workspace');
  const outside = join(root, 'outside');
  mkdirSync(workspace);
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'secret\n');
  return { root, workspace, outside };
}

function caseNames(kind: 'apply' | 'refuse'): string[] {
  return readdirSync(join(corpora, kind)).sort();
}

function loadMeta(kind: 'apply' | 'refuse', name: string): CaseMeta {
  return JSON.parse(readFileSync(join(corpora, kind, name, 'case.json'), 'utf8')) as CaseMeta;
}

function createSymlinks(meta: CaseMeta, root: string): void {
  for (const [link, target] of Object.entries(meta.symlinks ?? {})) symlinkSync(target, join(root, link));
}

/** Sets the case's `before` tree up in the sandbox and returns its patch, placeholders filled. */
function loadCase(kind: 'apply' | 'refuse', name: string, sandbox: Sandbox): string {
  const directory = join(corpora, kind, name);
  copyFixture(join(directory, 'before'), sandbox.workspace);
  createSymlinks(loadMeta(kind, name), sandbox.workspace);
  return readFileSync(join(directory, 'patch.txt'), 'utf8')
    .replaceAll('{{workspace}}', sandbox.workspace)
    .replaceAll('{{outside}}', sandbox.outside);
}

for (const name of caseNames('apply')) {
  const meta = loadMeta('apply', name);
  test(`issue 3 apply_patch: apply corpus "${name}": ${meta.about}`, async () => {
    const sandbox = makeSandbox();
    try {
      const patch = loadCase('apply', name, sandbox);
      const context = makeToolContext({ workspaceRoot: sandbox.workspace });
      const before = snapshotTree(sandbox.root);

      // The preview proposes exactly the expected contents and touches nothing.
      const changes = await applyPatchTool.preview({ patch }, context);
      assert.deepEqual(snapshotTree(sandbox.root), before, 'the preview must not touch the disk');
      for (const change of changes) {
        if (change.after === undefined) continue;
        const landing = change.movedTo ?? change.path;
        const relative = landing.slice(sandbox.workspace.length + 1);
        const expected = readFileSync(join(corpora, 'apply', name, 'after', relative), 'utf8');
        assert.equal(change.after, expected.replace(/^\uFEFF/, ''), `preview of ${relative}`);
      }

      const invocation = await invoke(applyPatchTool, { patch }, context);
      assert.equal(invocation.outcome, 'ok', invocation.outcome === 'ok' ? '' : invocation.message);
      const expectedRoot = makeTempDir('zuno-expected-');
      try {
        copyFixture(join(corpora, 'apply', name, 'after'), expectedRoot);
        createSymlinks(meta, expectedRoot);
        assert.deepEqual(snapshotTree(sandbox.workspace), snapshotTree(expectedRoot));
      } finally {
        removeDir(expectedRoot);
      }
      assert.equal(readFileSync(join(sandbox.outside, 'secret.txt'), 'utf8'), 'secret\n');
    } finally {
      removeDir(sandbox.root);
    }
  });
}

for (const name of caseNames('refuse')) {
  const meta = loadMeta('refuse', name);
  test(`issue 3 apply_patch: refuse corpus "${name}": ${meta.about}; all files or none, nothing changes byte for byte`, async () => {
    const sandbox = makeSandbox();
    try {
      const patch = loadCase('refuse', name, sandbox);
      const expected = readFileSync(join(corpora, 'refuse', name, 'expected.txt'), 'utf8')
        .split('\n')
        .filter((line) => line !== '');
      const context = makeToolContext({ workspaceRoot: sandbox.workspace });
      const before = snapshotTree(sandbox.root);

      const invocation = await invoke(applyPatchTool, { patch }, context);
      // A malformed envelope is malformed arguments, and a path outside the workspace is refused by
      // the policy: both are blocked before the tool runs (SPEC B1, §9). The rest is refused by the
      // tool itself at run time.
      assert.equal(invocation.outcome, meta.refusedAt === 'run' ? 'error' : 'blocked');
      for (const substring of expected) {
        assert.ok(invocation.message.includes(substring), `expected ${JSON.stringify(substring)} in:\n${invocation.message}`);
      }
      assert.deepEqual(snapshotTree(sandbox.root), before);
    } finally {
      removeDir(sandbox.root);
    }
  });
}

test('T1, E1, R1, C1: apply_patch declares SideEffecting, Never, Exclusive', () => {
  assert.deepEqual(applyPatchTool.declarationsFor({ patch: '' }), { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' });
});

test('issue 3: apply_patch takes exactly one argument, "patch"; an "input" alias is refused with a clear message', () => {
  const schema = applyPatchTool.inputSchema as { properties: Record<string, unknown>; required: string[] };
  assert.deepEqual(Object.keys(schema.properties), ['patch']);
  assert.deepEqual(schema.required, ['patch']);
  const parsed = applyPatchTool.parse({ input: '*** Begin Patch\n*** Delete File: a\n*** End Patch' });
  assert.equal(parsed.success, false);
  assert.match(parsed.success ? '' : parsed.error, /input/);
});

test('§9: subjects: one path subject per touched path, move destinations included, with outsideWorkspace from real paths', async () => {
  const sandbox = makeSandbox();
  try {
    writeFileSync(join(sandbox.workspace, 'a.txt'), 'a\n');
    symlinkSync('../outside', join(sandbox.workspace, 'escape'));
    const context = makeToolContext({ workspaceRoot: sandbox.workspace });
    const patch = [
      '*** Begin Patch',
      '*** Update File: a.txt',
      '*** Move to: sub/b.txt',
      '*** Add File: escape/planted.txt',
      '+x',
      '*** Delete File: gone.txt',
      '*** End Patch',
    ].join('\n');
    const subjects = await applyPatchTool.subjectsFor({ patch }, context);
    assert.deepEqual(
      subjects.map(({ kind, value, outsideWorkspace }) => ({ kind, value, outsideWorkspace })),
      [
        { kind: 'path', value: join(sandbox.workspace, 'a.txt'), outsideWorkspace: false },
        { kind: 'path', value: join(sandbox.workspace, 'sub', 'b.txt'), outsideWorkspace: false },
        { kind: 'path', value: join(sandbox.outside, 'planted.txt'), outsideWorkspace: true },
        { kind: 'path', value: join(sandbox.workspace, 'gone.txt'), outsideWorkspace: false },
      ],
    );
  } finally {
    removeDir(sandbox.root);
  }
});

test('issue 3 preview: preview lists every touched file with kind, before and after, and writes nothing', async () => {
  const sandbox = makeSandbox();
  try {
    const { workspace } = sandbox;
    writeFileSync(join(workspace, 'update.txt'), 'one\r\ntwo\r\n');
    writeFileSync(join(workspace, 'delete.txt'), 'bye\n');
    writeFileSync(join(workspace, 'move.txt'), 'm\n');
    const before = snapshotTree(workspace);
    const patch = [
      '*** Begin Patch',
      '*** Update File: update.txt',
      '-two',
      '+TWO',
      '*** Delete File: delete.txt',
      '*** Add File: add.txt',
      '+new',
      '*** Update File: move.txt',
      '*** Move to: moved.txt',
      '*** End Patch',
    ].join('\n');
    const changes = await applyPatchTool.preview({ patch }, makeToolContext({ workspaceRoot: workspace }));
    assert.deepEqual(changes, [
      { path: join(workspace, 'update.txt'), kind: 'update', before: 'one\r\ntwo\r\n', after: 'one\r\nTWO\r\n' },
      { path: join(workspace, 'delete.txt'), kind: 'delete', before: 'bye\n', after: undefined },
      { path: join(workspace, 'add.txt'), kind: 'create', before: undefined, after: 'new\n' },
      { path: join(workspace, 'move.txt'), kind: 'move', before: 'm\n', after: 'm\n', movedTo: join(workspace, 'moved.txt') },
    ]);
    assert.deepEqual(snapshotTree(workspace), before);
  } finally {
    removeDir(sandbox.root);
  }
});

test('issue 3: the result gives one A/M/D/R line per file with +added -removed counts, and says to read before editing again', async () => {
  const sandbox = makeSandbox();
  try {
    const { workspace } = sandbox;
    writeFileSync(join(workspace, 'm.txt'), 'a\nb\nc\n');
    writeFileSync(join(workspace, 'd.txt'), 'x\ny\n');
    writeFileSync(join(workspace, 'r.txt'), 'r\n');
    const patch = [
      '*** Begin Patch',
      '*** Add File: a.txt',
      '+1',
      '+2',
      '*** Update File: m.txt',
      ' a',
      '-b',
      '+B1',
      '+B2',
      '*** Delete File: d.txt',
      '*** Update File: r.txt',
      '*** Move to: s.txt',
      '*** End Patch',
    ].join('\n');
    const invocation = await invoke(applyPatchTool, { patch }, makeToolContext({ workspaceRoot: workspace }));
    assert.equal(invocation.outcome, 'ok');
    assert.equal(
      invocation.outcome === 'ok' ? invocation.result.output : '',
      [
        'Patch applied to 4 files:',
        'A a.txt +2 -0',
        'M m.txt +2 -1',
        'D d.txt +0 -2',
        'R r.txt -> s.txt +0 -0',
        '',
        'Use read to see a file as it is now before changing it again.',
      ].join('\n'),
    );
  } finally {
    removeDir(sandbox.root);
  }
});

test('issue 3: staleness: a change made after the preview is kept, because the apply re-verifies against the file as it is now', async () => {
  const sandbox = makeSandbox();
  try {
    const file = join(sandbox.workspace, 'f.txt');
    writeFileSync(file, 'head\nkeep\ntarget\ntail\n');
    const context = makeToolContext({ workspaceRoot: sandbox.workspace });
    const patch = '*** Begin Patch\n*** Update File: f.txt\n keep\n-target\n+TARGET\n tail\n*** End Patch';
    const [proposal] = await applyPatchTool.preview({ patch }, context);
    assert.equal(proposal?.after, 'head\nkeep\nTARGET\ntail\n');

    // Someone else edits another part of the file between the preview and the apply.
    writeFileSync(file, 'HEAD CHANGED BY THE USER\nkeep\ntarget\ntail\n');
    const invocation = await invoke(applyPatchTool, { patch }, context);
    assert.equal(invocation.outcome, 'ok');
    assert.equal(readFileSync(file, 'utf8'), 'HEAD CHANGED BY THE USER\nkeep\nTARGET\ntail\n');
  } finally {
    removeDir(sandbox.root);
  }
});

test('issue 3: staleness: a change after the preview that breaks a hunk refuses the patch and keeps the newer file', async () => {
  const sandbox = makeSandbox();
  try {
    const file = join(sandbox.workspace, 'f.txt');
    writeFileSync(file, 'keep\ntarget\n');
    const context = makeToolContext({ workspaceRoot: sandbox.workspace });
    const patch = '*** Begin Patch\n*** Update File: f.txt\n keep\n-target\n+TARGET\n*** End Patch';
    await applyPatchTool.preview({ patch }, context);
    writeFileSync(file, 'keep\ntarget edited meanwhile\n');
    const invocation = await invoke(applyPatchTool, { patch }, context);
    assert.equal(invocation.outcome, 'error');
    assert.match(invocation.outcome === 'error' ? invocation.message : '', /does not match the current file/);
    assert.equal(readFileSync(file, 'utf8'), 'keep\ntarget edited meanwhile\n');
  } finally {
    removeDir(sandbox.root);
  }
});

test("issue 3: approvedEdits: the user's edited text lands in the file's format, and the model gets the difference as a unified diff", async () => {
  const sandbox = makeSandbox();
  try {
    const { workspace } = sandbox;
    writeFileSync(join(workspace, 'edited.txt'), 'one\r\ntwo\r\nthree\r\n');
    writeFileSync(join(workspace, 'plain.txt'), 'p\n');
    const patch = '*** Begin Patch\n*** Update File: edited.txt\n one\n-two\n+2\n three\n*** Update File: plain.txt\n-p\n+P\n*** End Patch';
    // The diff view hands back LF text, as editors often do; the file is CRLF and stays so.
    const approvedEdits = { [join(workspace, 'edited.txt')]: 'one\n2 (the user prefers this)\nthree\n' };
    const invocation = await invoke(applyPatchTool, { patch }, makeToolContext({ workspaceRoot: workspace, approvedEdits }));
    assert.equal(invocation.outcome, 'ok');
    assert.equal(readFileSync(join(workspace, 'edited.txt'), 'utf8'), 'one\r\n2 (the user prefers this)\r\nthree\r\n');
    assert.equal(readFileSync(join(workspace, 'plain.txt'), 'utf8'), 'P\n');
    const result = invocation.outcome === 'ok' ? invocation.result : undefined;
    assert.ok(result?.output.includes('The user edited the proposed edited.txt before approving'));
    assert.ok(
      result?.output.includes(
        '--- edited.txt\tproposed\n+++ edited.txt\tlanded\n@@ -1,3 +1,3 @@\n one\n-2\n+2 (the user prefers this)\n three',
      ),
      result?.output,
    );
    assert.deepEqual(result?.metadata?.['userEdited'], ['edited.txt']);
  } finally {
    removeDir(sandbox.root);
  }
});

test('issue 3: rollback: an I/O failure on the 3rd write restores the updated file and removes the created file and its directories (all files or none)', async () => {
  const sandbox = makeSandbox();
  try {
    const { workspace } = sandbox;
    writeFileSync(join(workspace, 'a.txt'), 'a\n');
    writeFileSync(join(workspace, 'c.txt'), 'c\n');
    const before = snapshotTree(sandbox.root);
    const host = withFaults(
      createNodeHost({ stateDir: join(sandbox.root, 'state'), approvals: approveEverything }),
      (operation, _path, count) => operation === 'writeFileAtomic' && count === 3,
    );
    const patch =
      '*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Add File: deep/new/b.txt\n+b\n*** Update File: c.txt\n-c\n+C\n*** End Patch';
    const invocation = await invoke(applyPatchTool, { patch }, makeToolContext({ workspaceRoot: workspace, host }));
    assert.equal(invocation.outcome, 'error');
    const message = invocation.outcome === 'error' ? invocation.message : '';
    assert.match(message, /^Nothing was changed: writing .*c\.txt failed: ENOSPC/);
    assert.match(message, /The 2 change\(s\) already made \(deep\/new\/b\.txt, a\.txt\) were undone\./);
    assert.deepEqual(snapshotTree(sandbox.root), before);
  } finally {
    removeDir(sandbox.root);
  }
});

test('issue 3: rollback: a failure while removing files puts back the removed ones with their mode, and the written ones (all files or none)', async () => {
  const sandbox = makeSandbox();
  try {
    const { workspace } = sandbox;
    writeFileSync(join(workspace, 'script.sh'), '#!/bin/sh\necho hi\n');
    chmodSync(join(workspace, 'script.sh'), 0o755);
    writeFileSync(join(workspace, 'second.txt'), 'second\n');
    writeFileSync(join(workspace, 'u.txt'), 'u\n');
    const before = snapshotTree(sandbox.root);
    const host = withFaults(
      createNodeHost({ stateDir: join(sandbox.root, 'state'), approvals: approveEverything }),
      (operation, _path, count) => operation === 'rename' && count === 2,
    );
    const patch = '*** Begin Patch\n*** Update File: u.txt\n-u\n+U\n*** Delete File: script.sh\n*** Delete File: second.txt\n*** End Patch';
    const invocation = await invoke(applyPatchTool, { patch }, makeToolContext({ workspaceRoot: workspace, host }));
    assert.equal(invocation.outcome, 'error');
    assert.match(invocation.outcome === 'error' ? invocation.message : '', /^Nothing was changed: removing .*second\.txt failed/);
    assert.deepEqual(snapshotTree(sandbox.root), before);
    assert.equal(statSync(join(workspace, 'script.sh')).mode & 0o777, 0o755);
  } finally {
    removeDir(sandbox.root);
  }
});

test('issue 3: a moved file keeps its mode, and a failure after the move puts it back where it was (all files or none)', async () => {
  const sandbox = makeSandbox();
  try {
    const { workspace } = sandbox;
    writeFileSync(join(workspace, 'run.sh'), '#!/bin/sh\necho one\n');
    chmodSync(join(workspace, 'run.sh'), 0o755);
    writeFileSync(join(workspace, 'later.txt'), 'later\n');
    const patch =
      '*** Begin Patch\n*** Update File: run.sh\n*** Move to: bin/tools/run.sh\n-echo one\n+echo two\n*** Update File: later.txt\n-later\n+LATER\n*** End Patch';
    const before = snapshotTree(sandbox.root);

    // The write after the move (later.txt, the 2nd atomic write) fails: the move is undone too.
    const failing = withFaults(
      createNodeHost({ stateDir: join(sandbox.root, 'state'), approvals: approveEverything }),
      (operation, _path, count) => operation === 'writeFileAtomic' && count === 2,
    );
    const invocation = await invoke(applyPatchTool, { patch }, makeToolContext({ workspaceRoot: workspace, host: failing }));
    assert.equal(invocation.outcome, 'error');
    assert.match(invocation.outcome === 'error' ? invocation.message : '', /The 1 change\(s\) already made \(run\.sh\) were undone\./);
    assert.deepEqual(snapshotTree(sandbox.root), before);
    assert.equal(statSync(join(workspace, 'run.sh')).mode & 0o777, 0o755);

    const applied = await invoke(applyPatchTool, { patch }, makeToolContext({ workspaceRoot: workspace }));
    assert.equal(applied.outcome, 'ok');
    assert.equal(readFileSync(join(workspace, 'bin', 'tools', 'run.sh'), 'utf8'), '#!/bin/sh\necho two\n');
    assert.equal(statSync(join(workspace, 'bin', 'tools', 'run.sh')).mode & 0o777, 0o755);
  } finally {
    removeDir(sandbox.root);
  }
});

test('issue 3: rollback that fails too is reported file by file, naming what was NOT restored (all files or none)', async () => {
  const sandbox = makeSandbox();
  try {
    const { workspace } = sandbox;
    writeFileSync(join(workspace, 'a.txt'), 'a\n');
    writeFileSync(join(workspace, 'b.txt'), 'b\n');
    // The 2nd write fails, and so does the 3rd: the undo of a.txt.
    const host = withFaults(
      createNodeHost({ stateDir: join(sandbox.root, 'state'), approvals: approveEverything }),
      (operation, _path, count) => operation === 'writeFileAtomic' && count >= 2,
    );
    const patch = '*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-b\n+B\n*** End Patch';
    const invocation = await invoke(applyPatchTool, { patch }, makeToolContext({ workspaceRoot: workspace, host }));
    assert.equal(invocation.outcome, 'error');
    assert.match(
      invocation.outcome === 'error' ? invocation.message : '',
      /could not be fully undone: writing .*b\.txt failed: ENOSPC.* Restored: none\. NOT restored, check them before anything else: a\.txt\./,
    );
    assert.equal(readFileSync(join(workspace, 'a.txt'), 'utf8'), 'A\n');
    assert.equal(readFileSync(join(workspace, 'b.txt'), 'utf8'), 'b\n');
  } finally {
    removeDir(sandbox.root);
  }
});

test('issue 3: a deleted file whose set-aside copy cannot be removed is still deleted, and the leftover is reported', async () => {
  const sandbox = makeSandbox();
  try {
    const { workspace } = sandbox;
    writeFileSync(join(workspace, 'gone.txt'), 'bye\n');
    const host = withFaults(
      createNodeHost({ stateDir: join(sandbox.root, 'state'), approvals: approveEverything }),
      (operation, path) => operation === 'remove' && path.includes('.zuno-removed-'),
    );
    const invocation = await invoke(
      applyPatchTool,
      { patch: '*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch' },
      makeToolContext({ workspaceRoot: workspace, host }),
    );
    assert.equal(invocation.outcome, 'ok');
    const leftovers = readdirSync(workspace);
    assert.equal(leftovers.length, 1);
    assert.match(leftovers[0] ?? '', /^\.gone\.txt\.zuno-removed-[0-9a-f]+$/);
    assert.match(
      invocation.outcome === 'ok' ? invocation.result.output : '',
      /Could not remove the set-aside copies of deleted files \(safe to delete\): .*\.gone\.txt\.zuno-removed-/,
    );
  } finally {
    removeDir(sandbox.root);
  }
});

test('issue 3: a call cancelled before it writes changes nothing', async () => {
  const sandbox = makeSandbox();
  try {
    writeFileSync(join(sandbox.workspace, 'a.txt'), 'a\n');
    const controller = new AbortController();
    controller.abort();
    const before = snapshotTree(sandbox.root);
    const invocation = await invoke(
      applyPatchTool,
      { patch: '*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** End Patch' },
      makeToolContext({ workspaceRoot: sandbox.workspace, signal: controller.signal }),
    );
    assert.equal(invocation.outcome, 'error');
    assert.match(invocation.outcome === 'error' ? invocation.message : '', /Cancelled before anything was written/);
    assert.deepEqual(snapshotTree(sandbox.root), before);
  } finally {
    removeDir(sandbox.root);
  }
});

test('B1, E1: through the scheduler: a malformed patch is blocked invalid_arguments, a good one is approved on its diff preview with the user edit landing', async () => {
  const sandbox = makeSandbox();
  try {
    const { workspace } = sandbox;
    writeFileSync(join(workspace, 'a.txt'), 'one\r\ntwo\r\n');
    const requests: ApprovalRequest[] = [];
    const approvals = {
      request: async (request: ApprovalRequest) => {
        requests.push(request);
        return { approved: true as const, editedContents: { [join(workspace, 'a.txt')]: 'one\r\nTWO, said the user\r\n' } };
      },
    };
    const scheduler = new Scheduler({
      registry: new ToolRegistry([{ tool: applyPatchTool, defaultSurface: true }]),
      ledger: new MemoryLedger(),
      events: new EventBus(),
      env: {
        host: createNodeHost({ stateDir: join(sandbox.root, 'state'), approvals }),
        config: parseConfig({}),
        workspaceRoot: workspace,
      },
    });
    const call = (id: string, patch: string) => ({ id, name: 'apply_patch', arguments: JSON.stringify({ patch }) });
    const results = await scheduler.runTurn(
      'session-1',
      [
        call('1', '*** Begin Patch\n*** Update File: a.txt\n-two\n+TWO\n'),
        call('2', '*** Begin Patch\n*** Update File: a.txt\n-two\n+TWO\n*** End Patch'),
      ],
      { signal: new AbortController().signal },
    );
    assert.deepEqual(
      results.map((result) => result.outcome),
      [{ kind: 'blocked', category: 'invalid_arguments' }, { kind: 'ok' }],
    );
    assert.match(results[0]?.output ?? '', /Patch line 4: expected "\*\*\* End Patch" as the last line, found "\+TWO"/);
    assert.equal(requests.length, 1);
    assert.deepEqual(requests[0]?.changes, [
      { path: join(workspace, 'a.txt'), kind: 'update', before: 'one\r\ntwo\r\n', after: 'one\r\nTWO\r\n' },
    ]);
    assert.equal(readFileSync(join(workspace, 'a.txt'), 'utf8'), 'one\r\nTWO, said the user\r\n');
    assert.match(results[1]?.output ?? '', /-TWO\n\+TWO, said the user/);
  } finally {
    removeDir(sandbox.root);
  }
});
