// Codex's own apply_patch test material (issue 15 "apply_patch: run against Codex's own test
// material"), ported as data under test/fixtures/codex-apply-patch (see its README for the source
// and licence). Zuno must end every scenario as Codex does, except where scenarios.json names one
// of Zuno's deliberately stricter rules; those are checked to differ from Codex's result.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { applyPatchTool } from '../../../../src/tools/apply_patch';
import { LineIndex, EXACT_PASS, TOLERANT_PASSES } from '../../../../src/tools/patch/matcher';
import { oldLinesOf, parsePatch, PatchSyntaxError, type PatchOperation } from '../../../../src/tools/patch/parser';
import { makeTempDir, makeToolContext, removeDir } from '../../../support/tool-context';
import { copyFixture, invoke, snapshotTree, type Invocation } from './tree';

const material = join(__dirname, '..', '..', '..', 'fixtures', 'codex-apply-patch');

function load<T>(name: string): T {
  return JSON.parse(readFileSync(join(material, name), 'utf8')) as T;
}

type Files = Readonly<Record<string, string>>;

function writeFiles(root: string, files: Files): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** The snapshot a directory holding exactly `files` would have. */
function snapshotOf(files: Files): Record<string, string> {
  const root = makeTempDir('zuno-codex-expected-');
  try {
    writeFiles(root, files);
    return snapshotTree(root);
  } finally {
    removeDir(root);
  }
}

function snapshotOfFixture(directory: string): Record<string, string> {
  const root = makeTempDir('zuno-codex-expected-');
  try {
    copyFixture(directory, root);
    return snapshotTree(root);
  } finally {
    removeDir(root);
  }
}

function assertRefused(invocation: Invocation, substrings: readonly string[]): void {
  assert.notEqual(invocation.outcome, 'ok', 'the patch must be refused');
  const message = invocation.outcome === 'ok' ? '' : invocation.message;
  for (const substring of substrings) assert.ok(message.includes(substring), `expected ${JSON.stringify(substring)} in:\n${message}`);
}

interface ScenarioMeta {
  readonly outcome: 'applied' | 'refused';
  readonly refused?: readonly string[];
  readonly zunoExpected?: Files;
  readonly difference?: string;
}

const { scenarios } = load<{ scenarios: Readonly<Record<string, ScenarioMeta>> }>('scenarios.json');

test('issue 15: every Codex scenario directory has an entry in scenarios.json, and every entry a directory', () => {
  assert.deepEqual(readdirSync(join(material, 'scenarios')).sort(), Object.keys(scenarios).sort());
  assert.equal(Object.keys(scenarios).length, 23);
});

for (const [name, meta] of Object.entries(scenarios)) {
  const title = meta.difference
    ? `differs deliberately: ${meta.difference}`
    : meta.outcome === 'applied'
      ? 'ends as in Codex'
      : 'is refused as in Codex, nothing changes';
  test(`issue 15, S1: Codex scenario ${name} ${title}`, async () => {
    const directory = join(material, 'scenarios', name);
    const workspace = makeTempDir('zuno-codex-');
    try {
      copyFixture(join(directory, 'input'), workspace);
      const before = snapshotTree(workspace);
      const patch = readFileSync(join(directory, 'patch.txt'), 'utf8');
      const invocation = await invoke(applyPatchTool, { patch }, makeToolContext({ workspaceRoot: workspace }));
      const codexExpected = snapshotOfFixture(join(directory, 'expected'));
      if (meta.outcome === 'refused') {
        assertRefused(invocation, meta.refused ?? []);
        assert.deepEqual(snapshotTree(workspace), before, 'a refused patch changes nothing');
      } else {
        assert.equal(invocation.outcome, 'ok', invocation.outcome === 'ok' ? '' : invocation.message);
      }
      if (meta.difference === undefined) {
        assert.deepEqual(snapshotTree(workspace), codexExpected);
      } else {
        assert.notDeepEqual(snapshotTree(workspace), codexExpected, 'a listed difference must really differ from Codex');
        if (meta.zunoExpected) assert.deepEqual(snapshotTree(workspace), snapshotOf(meta.zunoExpected));
      }
    } finally {
      removeDir(workspace);
    }
  });
}

interface Chunk {
  readonly context: readonly string[];
  readonly old: readonly string[];
  readonly new: readonly string[];
  readonly endOfFile: boolean;
}

type CodexOperation =
  | { readonly kind: 'add'; readonly path: string; readonly contents: string }
  | { readonly kind: 'delete'; readonly path: string }
  | { readonly kind: 'update'; readonly path: string; readonly moveTo?: string; readonly chunks: readonly Chunk[] };

interface ParserCase {
  readonly source: string;
  readonly name: string;
  readonly patch: readonly string[];
  readonly operations?: readonly CodexOperation[];
  readonly refused?: readonly string[];
  readonly codex?: string;
}

/** Zuno's parse in the shape Codex's tests assert. */
function inCodexShape(operation: PatchOperation): CodexOperation {
  switch (operation.kind) {
    case 'add':
      return { kind: 'add', path: operation.path, contents: operation.lines.map((line) => `${line}\n`).join('') };
    case 'delete':
      return { kind: 'delete', path: operation.path };
    case 'update':
      return {
        kind: 'update',
        path: operation.path,
        ...(operation.moveTo !== undefined ? { moveTo: operation.moveTo } : {}),
        chunks: operation.hunks.map((hunk) => ({
          context: hunk.headers,
          old: oldLinesOf(hunk),
          new: hunk.lines.filter((line) => line.kind !== 'remove').map((line) => line.text),
          endOfFile: hunk.endOfFile,
        })),
      };
  }
}

for (const parserCase of load<{ cases: readonly ParserCase[] }>('parser-cases.json').cases) {
  test(`issue 15, S1: Codex parser case (${parserCase.source}): ${parserCase.name}`, () => {
    const patch = parserCase.patch.join('\n');
    if (parserCase.operations) {
      assert.deepEqual(parsePatch(patch).map(inCodexShape), parserCase.operations);
      return;
    }
    assert.throws(
      () => parsePatch(patch),
      (error: unknown) => {
        assert.ok(error instanceof PatchSyntaxError);
        for (const substring of parserCase.refused ?? []) {
          assert.ok(error.message.includes(substring), `expected ${JSON.stringify(substring)} in:\n${error.message}`);
        }
        return true;
      },
    );
  });
}

interface MatcherCase {
  readonly source: string;
  readonly lines: readonly string[];
  readonly pattern: readonly string[];
  readonly from: number;
  readonly start: number | null;
}

for (const matcherCase of load<{ cases: readonly MatcherCase[] }>('matcher-cases.json').cases) {
  test(`issue 15, S1: Codex matcher case ${matcherCase.source}`, () => {
    const found = new LineIndex(matcherCase.lines).find(matcherCase.pattern, {
      from: matcherCase.from,
      passes: [EXACT_PASS, ...TOLERANT_PASSES],
    });
    assert.equal(found?.starts[0] ?? null, matcherCase.start);
  });
}

interface LibCase {
  readonly source: string;
  readonly before: Files;
  readonly mode?: Readonly<Record<string, string>>;
  readonly patch: readonly string[];
  readonly after?: Files;
  readonly refused?: readonly string[];
}

for (const libCase of load<{ cases: readonly LibCase[] }>('lib-cases.json').cases) {
  test(`issue 15, S1: Codex apply case ${libCase.source}`, async () => {
    const workspace = makeTempDir('zuno-codex-');
    try {
      writeFiles(workspace, libCase.before);
      for (const [path, mode] of Object.entries(libCase.mode ?? {})) chmodSync(join(workspace, path), Number.parseInt(mode, 8));
      const before = snapshotTree(workspace);
      const invocation = await invoke(applyPatchTool, { patch: libCase.patch.join('\n') }, makeToolContext({ workspaceRoot: workspace }));
      if (libCase.after) {
        assert.equal(invocation.outcome, 'ok', invocation.outcome === 'ok' ? '' : invocation.message);
        assert.deepEqual(snapshotTree(workspace), snapshotOf(libCase.after));
      } else {
        assertRefused(invocation, libCase.refused ?? []);
        assert.deepEqual(snapshotTree(workspace), before, 'a refused patch changes nothing');
      }
    } finally {
      removeDir(workspace);
    }
  });
}
