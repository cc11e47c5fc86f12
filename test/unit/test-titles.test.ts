/**
 * One naming scheme for test titles (issue 15): `<IDs>[ area]: behaviour`, where the IDs are the
 * spec's (T1, §9, E2E-9) or issues (`issue 13`), so a failing test names the requirement it guards
 * and test/unit/docs.test.ts can check that requirement exists in docs/spec.md.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const ROOT = join(__dirname, '..', '..');
const ID = String.raw`(?:[A-Z]{1,2}\d+(?:\.\d+)?|E2E-\d+|§\d+(?:\.\d+)?|issue \d+(?: §\d+)?)`;
const SEPARATOR = String.raw`(?: ?[,/+&] ?| and | )`;
const TITLE = new RegExp(String.raw`^${ID}(?:${SEPARATOR}${ID})*[^:]{0,60}: \S`);
/** A title is the first string argument of test(), it() or describe() (not a method such as RegExp#test); template literals included. */
const CALL = /(?<![.\w])(?:test|it|describe)\(\s*(['"`])((?:\\.|(?!\1)[^\\])*?)\1/gs;

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'fixtures' ? [] : testFiles(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

function titlesIn(source: string): string[] {
  return [...source.matchAll(CALL)].map((match) => match[2] ?? '');
}

test('issue 15: every test title starts with the spec IDs or the issue it guards, then a colon', () => {
  const files = testFiles(join(ROOT, 'test'));
  const titles = files.flatMap((file) => titlesIn(readFileSync(file, 'utf8')).map((title) => ({ file: relative(ROOT, file), title })));
  assert.ok(titles.length > 500, `the scanner found only ${titles.length} titles`);
  const offenders = titles.filter(({ title }) => !TITLE.test(title)).map(({ file, title }) => `${file}: ${title}`);
  assert.deepEqual(offenders, [], 'rename these as "<IDs>[ area]: behaviour", e.g. "R3: a timeout is indeterminate"');
});

test('issue 15: the title scheme accepts IDs, lists of them and an area, and rejects a title without an ID', () => {
  for (const good of [
    'R3: a timeout is indeterminate',
    'issue 2 §9: read pages',
    'C3, O1: ranges match',
    'S4 + issue 4: the view opens',
    'E2E-9 reload (B2/R3): history comes back',
    'issue 4 tool cards: durations read naturally',
  ]) {
    assert.ok(TITLE.test(good), good);
  }
  for (const bad of [
    'the README keeps the two commands',
    'R3 a timeout without a colon',
    'config: an MCP server needs a command',
    'R3:no space',
  ]) {
    assert.ok(!TITLE.test(bad), bad);
  }
  assert.deepEqual(
    titlesIn("test('A1: one', () => {}); it(`issue 3: ${name}`, fn); describe(\"§9: three\", fn); /a/.test('not a title')"),
    ['A1: one', 'issue 3: ${name}', '§9: three'],
  );
});
