// The apply_patch envelope parser (issue 3 apply_patch "Format"): the structure it produces, and
// errors that name the patch line and what was expected there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePatch, PatchSyntaxError } from '../../../../src/tools/patch/parser';

const envelope = (...lines: string[]): string => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');

test('issue 3 apply_patch: parses add, delete, and update with move, stacked @@ headers, End of File and an empty context line', () => {
  const operations = parsePatch(
    envelope(
      '*** Add File: new.txt',
      '+one',
      '+',
      '*** Delete File: old.txt',
      '*** Update File: src/a.ts',
      '*** Move to: src/b.ts',
      '@@ class A',
      '@@   method()  ',
      ' keep',
      '',
      '-gone',
      '+added',
      '*** End of File',
    ),
  );
  assert.deepEqual(operations, [
    { kind: 'add', path: 'new.txt', lines: ['one', ''], patchLine: 2 },
    { kind: 'delete', path: 'old.txt', patchLine: 5 },
    {
      kind: 'update',
      path: 'src/a.ts',
      moveTo: 'src/b.ts',
      patchLine: 6,
      hunks: [
        {
          headers: ['class A', 'method()'],
          lines: [
            { kind: 'context', text: 'keep' },
            { kind: 'context', text: '' },
            { kind: 'remove', text: 'gone' },
            { kind: 'add', text: 'added' },
          ],
          endOfFile: true,
          patchLine: 8,
        },
      ],
    },
  ]);
});

test('issue 3 apply_patch: the first hunk may omit @@, later hunks may not; a bare @@ separates hunks and a git range is not a header', () => {
  const [update] = parsePatch(envelope('*** Update File: a', '-x', '+y', '@@', '-p', '+q', '@@ -10,2 +10,2 @@', '-m', '+n'));
  assert.equal(update?.kind, 'update');
  assert.deepEqual(update?.kind === 'update' ? update.hunks.map((hunk) => [hunk.headers, hunk.patchLine]) : [], [
    [[], 3],
    [[], 5],
    [[], 8],
  ]);
  assert.throws(() => parsePatch(envelope('*** Update File: a', '-x', '+y', '*** End of File', '-p', '+q')), {
    message:
      'Patch line 6: expected "@@" to start the next hunk of a, or "*** Add File: <path>", "*** Delete File: <path>", "*** Update File: <path>" or "*** End Patch", found "-p".',
  });
});

test('issue 3 apply_patch: syntax errors name the patch line and what was expected', () => {
  const cases: Array<[string, string]> = [
    ['', 'The patch is empty; expected "*** Begin Patch" on the first line.'],
    [envelope(), 'The patch between "*** Begin Patch" and "*** End Patch" contains no file operations.'],
    [envelope('*** Add File:   ', '+x'), 'Patch line 2: expected a path after "*** Add File:", found "*** Add File:   ".'],
    [
      envelope('*** Move to: b'),
      'Patch line 2: expected "*** Move to: <path>" only directly after "*** Update File: <path>", found "*** Move to: b".',
    ],
    [
      envelope('*** Delete File: a', '*** End Patch', '*** Delete File: b'),
      'Patch line 3: expected "*** End Patch" only once, as the last line of the patch, found "*** End Patch".',
    ],
  ];
  for (const [patch, message] of cases) {
    assert.throws(
      () => parsePatch(patch),
      (error: unknown) => error instanceof PatchSyntaxError && error.message === message,
      message,
    );
  }
});

test('issue 3 apply_patch: blank lines between sections are separators, not empty context or added lines', () => {
  const operations = parsePatch(envelope('*** Add File: a', '+x', '', '', '*** Update File: b', '-p', '+q', '', '@@', '-r', '+s', ''));
  assert.deepEqual(operations[0], { kind: 'add', path: 'a', lines: ['x'], patchLine: 2 });
  assert.deepEqual(operations[1]?.kind === 'update' ? operations[1].hunks.map((hunk) => hunk.lines.length) : [], [2, 2]);
});
