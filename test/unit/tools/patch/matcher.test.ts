// Line matching shared by apply_patch and edit (issue 3: exact first, then whitespace-tolerant
// passes; unique or listed candidates; the closest region on a miss).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeCandidates, describeClosestRegion, LineIndex } from '../../../../src/tools/patch/matcher';

test('issue 3: the strictest pass that finds anything wins, so an exact match is never outvoted by tolerant ones', () => {
  const index = new LineIndex(['  value', 'value', 'value  ']);
  const exact = index.find(['value'], { from: 0 });
  assert.equal(exact?.pass.name, 'exactly');
  assert.deepEqual(exact?.starts, [1]);
  const tolerant = index.find(['value '], { from: 0 });
  assert.equal(tolerant?.pass.name, 'ignoring trailing whitespace');
  assert.deepEqual(tolerant?.starts, [1, 2]);
  assert.deepEqual(index.find(['\tvalue'], { from: 0 })?.starts, [0, 1, 2]);
});

test('issue 3: typographic quotes, dashes, ellipses and no-break spaces match their ASCII forms only in the last pass', () => {
  const index = new LineIndex(['say \u201Chi\u201D \u2014 it\u2019s\u00A0fine\u2026']);
  const found = index.find(['say "hi" - it\'s fine...'], { from: 0 });
  assert.equal(found?.pass.name, 'ignoring whitespace and typographic punctuation');
  assert.deepEqual(found?.starts, [0]);
});

test('issue 3 End of File: search starts at `from`, and atEnd only accepts a match ending at the last line', () => {
  const index = new LineIndex(['a', 'b', 'a', 'b']);
  assert.deepEqual(index.find(['a', 'b'], { from: 1 })?.starts, [2]);
  assert.deepEqual(index.find(['a'], { from: 0, atEnd: true }), undefined);
  assert.deepEqual(index.find(['a', 'b'], { from: 0, atEnd: true })?.starts, [2]);
  assert.equal(index.find(['a', 'b', 'c', 'd', 'e'], { from: 0 }), undefined);
});

test('issue 3 @@ headers: a header matches the nearest equal line, else the nearest line containing it', () => {
  const index = new LineIndex(['class A {', '  run() {', '}', 'class B {', '  run() {', '  run']);
  assert.equal(index.findHeader('run', 0), 5);
  assert.equal(index.findHeader('run()', 3), 4);
  assert.equal(index.findHeader('class B', 0), 3);
  assert.equal(index.findHeader('class C', 0), undefined);
});

test('issue 3 mismatch: a miss shows the best-scoring region with margins and line numbers, and its first difference', () => {
  const lines = Array.from({ length: 30 }, (_, index) => `statement number ${index + 1};`);
  const text = describeClosestRegion(new LineIndex(lines), ['statement number 20;', 'statement numbr 21;', 'statement number 22;']);
  assert.equal(
    text,
    [
      'The closest region of the file is lines 17-25:',
      '17 | statement number 17;',
      '18 | statement number 18;',
      '19 | statement number 19;',
      '20 | statement number 20;',
      '21 | statement number 21;',
      '22 | statement number 22;',
      '23 | statement number 23;',
      '24 | statement number 24;',
      '25 | statement number 25;',
      'First difference, at line 21: expected "statement numbr 21;", the file has "statement number 21;".',
    ].join('\n'),
  );
});

test('issue 3 mismatch: a miss past the end of a short file says where the file ends; an empty file says so', () => {
  assert.match(
    describeClosestRegion(new LineIndex(['only']), ['only', 'more']),
    /The file ends at line 1, but the expected text continues with "more"\./,
  );
  assert.equal(describeClosestRegion(new LineIndex([]), ['x']), 'The file is empty.');
});

test('issue 3 mismatch: a long region is capped so one huge hunk cannot flood the context', () => {
  const lines = Array.from({ length: 500 }, (_, index) => `line ${index}`);
  const pattern = lines.slice(100, 300).map((line) => `${line} changed`);
  const text = describeClosestRegion(new LineIndex(lines), pattern);
  const numbered = text.split('\n').filter((line) => /^\s*\d+ \| /.test(line));
  assert.equal(numbered.length, 60);
});

test('issue 3 ambiguous match: candidates are listed as 1-based line numbers, at most 20 of them', () => {
  const pass = { name: 'exactly', normalize: (line: string) => line };
  assert.equal(describeCandidates({ pass, starts: [1, 4] }), '2 places (lines 2, 5)');
  const many = describeCandidates({ pass, starts: Array.from({ length: 25 }, (_, index) => index) });
  assert.equal(many, '25 places (lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 and 5 more)');
});

test('issue 3 mismatch: in a file too big to score every window fuzzily, the closest region is still found by equal lines', () => {
  const lines = Array.from({ length: 60_000 }, (_, index) => `entry ${index}`);
  const pattern = lines.slice(40_000, 40_020).map((line, offset) => (offset === 10 ? `${line} edited` : line));
  assert.equal(new LineIndex(lines).closest(pattern).start, 40_000);
});

test('issue 15, S1: the closest region is the window where every other line is equal, not one of look-alike lines, when one line of the hunk changed', () => {
  const pattern = [
    '  const subtotal = order.items.reduce((sum, item) => sum + item.price, 0);',
    '  const discount = customer.loyaltyLevel >= 3 ? subtotal * 0.1 : 0;',
    '  const shipping = subtotal > 100 ? 0 : order.shippingCost;',
    '  const tax = (subtotal - discount) * region.taxRate;',
    '  return subtotal - discount + shipping + tax;',
  ];
  const lines = [
    // Look-alike code elsewhere: no line equal, every line nearly so (more similar in sum).
    '  const subtotal = quote.items.reduce((sum, item) => sum + item.price, 0);',
    '  const discount = customer.loyaltyLevel >= 2 ? subtotal * 0.1 : 0;',
    '  const shipping = subtotal > 150 ? 0 : quote.shippingCost;',
    '  const tax = (subtotal - discount) * region.vatRate;',
    '  return subtotal - discount + shipping + tax + fee;',
    '',
    // The place the model meant: one line changed since it read the file.
    '  const subtotal = order.items.reduce((sum, item) => sum + item.price, 0);',
    '  const discount = customer.loyaltyLevel >= 3 ? subtotal * 0.1 : 0;',
    '  logger.debug(`pricing ${order.id}`);',
    '  const tax = (subtotal - discount) * region.taxRate;',
    '  return subtotal - discount + shipping + tax;',
  ];
  const index = new LineIndex(lines);
  assert.deepEqual(index.closest(pattern), { start: 6, difference: { line: 8, expected: pattern[2], actual: lines[8] } });
  assert.match(describeClosestRegion(index, pattern), /First difference, at line 9: expected/);
});
