// What deny rules hide from search and listing tools (issue 8 §5): the policy's pathVisibility.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PermissionRule } from '../../../src/core/config';
import { pathVisibility } from '../../../src/core/policy';

const ROOT = '/work/ws';
const deny = (match: string, tool = '*'): PermissionRule => ({ tool, match, action: 'deny' });
const visibility = (rules: readonly PermissionRule[], tool = 'grep') => pathVisibility({ tool, rules, workspaceRoot: ROOT });
const at = (relative: string): string => (relative === '.' ? ROOT : `${ROOT}/${relative}`);

test('issue 8 §5 E1: secrets/** hides the folder, everything in it (dotfiles too), and nothing else', () => {
  const seen = visibility([deny('secrets/**')]);
  for (const path of ['secrets', 'secrets/', 'secrets/key.txt', 'secrets/.env', 'secrets/deep/er/x.txt']) {
    assert.equal(seen.isHidden(at(path)), true, `${path} is hidden`);
  }
  for (const path of ['.', 'src', 'src/secrets/key.txt', 'secretsX/a.txt', 'secrets.txt']) {
    assert.equal(seen.isHidden(at(path)), false, `${path} is visible`);
  }
});

test('issue 8 §5: the reason names the rule, and a visible path has none', () => {
  const seen = visibility([deny('secrets/**')]);
  assert.match(
    seen.hiddenReason(at('secrets')) ?? '',
    /permission rule \{tool: "\*", match: "secrets\/\*\*", action: "deny"\} keeps it from read/,
  );
  assert.equal(seen.hiddenReason(at('src/a.ts')), undefined);
});

test('issue 8 §5 §9: deny rules of *, read and the calling tool count; allow, ask, other tools and bare rules do not', () => {
  const path = at('secrets/key.txt');
  assert.equal(visibility([deny('secrets/**', 'read')], 'grep').isHidden(path), true);
  assert.equal(visibility([deny('secrets/**', 'grep')], 'grep').isHidden(path), true);
  assert.equal(visibility([deny('secrets/**', 'grep')], 'glob').isHidden(path), false);
  assert.equal(visibility([deny('secrets/**', 'write')], 'grep').isHidden(path), false);
  assert.equal(visibility([{ tool: '*', match: 'secrets/**', action: 'ask' }]).isHidden(path), false);
  assert.equal(visibility([{ tool: '*', match: 'secrets/**', action: 'allow' }]).isHidden(path), false);
  assert.equal(visibility([{ tool: 'read', action: 'deny' }]).isHidden(path), false);
});

test('issue 8 §5: a rule naming a folder hides what is inside it', () => {
  const seen = visibility([deny('secrets')]);
  assert.equal(seen.isHidden(at('secrets')), true);
  assert.equal(seen.isHidden(at('secrets/sub/key.txt')), true);
  assert.equal(seen.isHidden(at('secrets2/key.txt')), false);
});

test('issue 8 §5: secrets/* hides the entries of the folder, not the folder itself', () => {
  const seen = visibility([deny('secrets/*')]);
  assert.equal(seen.isHidden(at('secrets')), false);
  assert.equal(seen.isHidden(at('secrets/key.txt')), true);
  // A hidden entry that is a folder hides its contents as well.
  assert.equal(seen.isHidden(at('secrets/sub/key.txt')), true);
});

test('issue 8 §5: a rule for top-level names (`.*`) does not hide the whole workspace through its relative form "."', () => {
  const seen = visibility([deny('.*')]);
  assert.equal(seen.isHidden(at('.env')), true);
  assert.equal(seen.isHidden(at('.git/config')), true);
  assert.equal(seen.isHidden(at('src/a.ts')), false);
  assert.equal(seen.isHidden(at('src/.env')), false);
});

test('issue 8 §5: paths outside the workspace are judged by absolute globs', () => {
  const seen = visibility([deny('/outside/private/**')]);
  assert.equal(seen.isHidden('/outside/private'), true);
  assert.equal(seen.isHidden('/outside/private/token'), true);
  assert.equal(seen.isHidden('/outside/public/readme'), false);
});

test('issue 8 §5: no deny rule, nothing hidden and no exclusions', () => {
  const seen = visibility([]);
  assert.equal(seen.isHidden(at('secrets/key.txt')), false);
  assert.deepEqual(seen.excludeGlobs(ROOT), []);
});

test('issue 8 §5: rg exclusions are anchored at the folder rg runs in', () => {
  const seen = visibility([deny('secrets/**'), deny('**/*.pem'), deny('src/**/*.key'), deny(`${ROOT}/private/**`)]);
  assert.deepEqual([...seen.excludeGlobs(ROOT)].sort(), ['**/*.pem', '/private/**', '/secrets/**', '/src/**/*.key'].sort());
  // Below src only the rules that can reach into src remain, rebased on it.
  assert.deepEqual([...seen.excludeGlobs(`${ROOT}/src`)].sort(), ['**/*.key', '**/*.pem'].sort());
  // A search root that a rule hides as a whole excludes everything.
  assert.ok(seen.excludeGlobs(`${ROOT}/secrets/sub`).includes('**'));
});

test('issue 8 §5: rebasing follows `*` segments and `**` over several folders', () => {
  const seen = visibility([deny('*/config/*.json'), deny('a/**/b/c')]);
  assert.deepEqual(seen.excludeGlobs(`${ROOT}/pkg`), ['/config/*.json']);
  assert.deepEqual([...seen.excludeGlobs(`${ROOT}/a/b`)].sort(), ['**/b/c', '/c'].sort());
});

test('issue 8 §5: a glob whose group spans a slash gets no rg exclusion, and isHidden still hides its paths', () => {
  const seen = visibility([deny('{secrets/a.txt,b}')]);
  assert.deepEqual(seen.excludeGlobs(ROOT), []);
  assert.equal(seen.isHidden(at('secrets/a.txt')), true);
});

test('issue 8 §5: a path known to be a file is judged by its name and its folders alone', () => {
  const folderRule = visibility([deny('secrets')]);
  assert.equal(folderRule.isHidden(at('secrets/key.txt'), 'file'), true);
  assert.equal(folderRule.isHidden(at('src/key.txt'), 'file'), false);
  const contents = visibility([deny('secrets/**'), deny('**/*.pem')]);
  assert.equal(contents.isHidden(at('secrets/sub/.env'), 'file'), true);
  assert.equal(contents.isHidden(at('src/server.pem'), 'file'), true);
  assert.equal(contents.isHidden(at('src/server.ts'), 'file'), false);
});

test('issue 8 §5: a rule rg cannot parse as a glob gets no rg exclusion, so it cannot make every search fail', () => {
  for (const match of ['secrets/[abc', 'secrets/{a,b', 'secrets/}', 'secrets\\']) {
    assert.deepEqual(visibility([deny(match)]).excludeGlobs(ROOT), [], match);
  }
  assert.deepEqual(visibility([deny('secrets/{a,{b,c}}/[!x]*')]).excludeGlobs(ROOT), ['/secrets/{a,{b,c}}/[!x]*']);
});
