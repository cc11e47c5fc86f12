import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchGlob } from '../../../src/core/glob';

test('§9 rules: in a path glob `*` stays within one folder and `**` crosses folders', () => {
  assert.equal(matchGlob('src/*.ts', 'src/a.ts', 'path'), true);
  assert.equal(matchGlob('src/*.ts', 'src/deep/a.ts', 'path'), false);
  assert.equal(matchGlob('src/**/*.ts', 'src/deep/er/a.ts', 'path'), true);
  assert.equal(matchGlob('src/**/*.ts', 'src/a.ts', 'path'), true, '`**/` also matches no folder');
  assert.equal(matchGlob('src/**', 'src/x/y', 'path'), true);
  assert.equal(matchGlob('/home/*/.ssh/**', '/home/ana/.ssh/id_rsa', 'path'), true);
  assert.equal(matchGlob('?.md', 'a.md', 'path'), true);
  assert.equal(matchGlob('?.md', '/.md', 'path'), false);
});

test('§9 rules: in a text glob `*` matches anything, slashes included', () => {
  assert.equal(matchGlob('git *', 'git log --oneline src/a.ts', 'text'), true);
  assert.equal(matchGlob('https://example.com/*', 'https://example.com/a/b?c=1', 'text'), true);
  assert.equal(matchGlob('git *', 'gitk', 'text'), false);
  assert.equal(matchGlob('npm test', 'npm test --watch', 'text'), false, 'a glob matches the whole value');
});

test('§9 rules: classes, alternatives and escapes', () => {
  assert.equal(matchGlob('*.{ts,tsx}', 'a.tsx', 'path'), true);
  assert.equal(matchGlob('*.{ts,tsx}', 'a.js', 'path'), false);
  assert.equal(matchGlob('file[0-9].txt', 'file7.txt', 'path'), true);
  assert.equal(matchGlob('file[!0-9].txt', 'file7.txt', 'path'), false);
  assert.equal(matchGlob('file[!0-9].txt', 'filex.txt', 'path'), true);
  assert.equal(matchGlob('a\\*b', 'a*b', 'text'), true);
  assert.equal(matchGlob('a\\*b', 'axb', 'text'), false);
  assert.equal(matchGlob('{a,{b,c}}d', 'cd', 'text'), true);
});

test('§9 rules: regular-expression characters in a glob are literal', () => {
  assert.equal(matchGlob('a.b+(c)$^|', 'a.b+(c)$^|', 'text'), true);
  assert.equal(matchGlob('a.b', 'axb', 'text'), false);
});

test('§9 rules: a malformed glob is read literally instead of throwing', () => {
  assert.equal(matchGlob('[abc', '[abc', 'text'), true);
  assert.equal(matchGlob('{a,b', '{a,b', 'text'), true);
  assert.equal(matchGlob('trailing\\', 'trailing\\', 'text'), true);
});
