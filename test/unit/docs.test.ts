// Every requirement ID, SPEC section and issue that code and tests cite must resolve in
// docs/spec.md, and every source path docs/architecture.md names must exist (issue 15, first bullet).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'fixtures' || name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|tsx|mts|cts|mjs)$/.test(name) ? [path] : [];
  });
}

/**
 * The references in a text: requirement IDs of the SPEC's families (T, S, E, R, C, A, B, O) and
 * issue 2's scheduler invariants (I), `issue N`, `issue N §M` (a section or item of that issue,
 * also chained: "issue 2 §11, §12") and a bare `§M` (a section of the SPEC).
 */
function referencesIn(text: string): Set<string> {
  const found = new Set<string>();
  const rest = text.replace(/\bissue (\d+)((?:(?: item \d+)?,? ?§\d+)*)/g, (_all, issue: string, sections: string) => {
    found.add(`issue ${issue}`);
    for (const section of sections.matchAll(/§(\d+)/g)) found.add(`issue ${issue} §${section[1] ?? ''}`);
    return ' ';
  });
  for (const section of rest.matchAll(/§ ?(\d+)/g)) found.add(`§${section[1] ?? ''}`);
  // Whole words only: `E1E1E1`, `S3Client` or `v1` are not IDs.
  for (const id of rest.matchAll(/(?<![\w$#.-])([TSERCABOI]\d{1,2})(?![\w-])/g)) found.add(id[1] ?? '');
  return found;
}

/** What docs/spec.md defines: the references in its headings and in its bold entries. */
function definedIn(markdown: string): Set<string> {
  const defining = [
    ...[...markdown.matchAll(/^#{1,6} (.*)$/gm)].map((match) => match[1] ?? ''),
    ...[...markdown.matchAll(/\*\*([^*\n]+)\*\*/g)].map((match) => match[1] ?? ''),
  ];
  return new Set(defining.flatMap((line) => [...referencesIn(line)]));
}

const specText = (): string => readFileSync(join(root, 'docs', 'spec.md'), 'utf8');

test('issue 15: every ID, § and issue cited in src/ and test/ has a heading or bold entry in docs/spec.md', () => {
  const defined = definedIn(specText());
  const missing = [join(root, 'src'), join(root, 'test')]
    .flatMap(sourceFiles)
    .flatMap((file) =>
      [...referencesIn(readFileSync(file, 'utf8'))]
        .filter((reference) => !defined.has(reference))
        .map((reference) => `${relative(root, file).split('\\').join('/')} cites "${reference}"`),
    );
  assert.deepEqual(missing, [], 'add the reference to docs/spec.md as a heading or a **bold** entry, or fix the citation');
});

test('issue 15: the reference scanner finds what code cites and ignores look-alikes', () => {
  // Guards the rule above against a scanner that silently matches nothing.
  assert.deepEqual(
    [...referencesIn("test('issue 2 §11, §12: exec (SPEC R3, E1–E3); §9 rules; I5', () => {})")].sort(),
    ['E1', 'E3', 'I5', 'R3', 'issue 2', 'issue 2 §11', 'issue 2 §12', '§9'].sort(),
  );
  assert.deepEqual([...referencesIn('issue 8 item 1, §3')].sort(), ['issue 8', 'issue 8 §3']);
  assert.deepEqual([...referencesIn('color #E1E1E1, S3Client, v1, api-B2, x.T1, A12b')], []);
  // A citation docs/spec.md does not define is caught.
  assert.equal(definedIn(specText()).has(['R', '9'].join('')), false);
  assert.equal(definedIn('## R1. Replay\n**issue 8 §3** protected paths').has('issue 8 §3'), true);
});

test('issue 15: every src/ path that docs/architecture.md names in backticks exists', () => {
  const text = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
  const paths = [...text.matchAll(/`(src\/[^`\s]*)`/g)].map((match) => (match[1] ?? '').replace(/\/$/, ''));
  assert.ok(paths.length > 20, `docs/architecture.md names only ${paths.length} src/ paths; the check would prove little`);
  assert.deepEqual(
    paths.filter((path) => !existsSync(join(root, path))),
    [],
    'update docs/architecture.md: it names files that no longer exist',
  );
});

test('issue 15: every src/ and test/ file that docs/spec.md names in backticks exists', () => {
  // Patterns such as `src/tools/<name>.ts` or `test/integration/cli/*.test.ts` name no one file.
  const paths = [...specText().matchAll(/`((?:src|test)\/[^`\s*<>]*)`/g)].map((match) => (match[1] ?? '').replace(/\/$/, ''));
  assert.ok(paths.length > 20, `docs/spec.md names only ${paths.length} paths; the check would prove little`);
  assert.deepEqual(
    paths.filter((path) => !existsSync(join(root, path))),
    [],
    'update docs/spec.md: it names files that no longer exist',
  );
});
