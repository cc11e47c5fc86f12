// Issue 14 item 13: a Zuno proposal in the diff editor reads as `cart.js (proposed by Zuno)`, and
// its URI path is the file's own (`src › cart.js` in the breadcrumbs), with the call in the authority.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callIdOfAuthority, proposalAuthority, proposalPath, proposalTitle } from '../../../../src/hosts/vscode/proposal-names';

test('issue 14 item 13: the diff title names the file and that Zuno proposed it, with the kind of change when it is not an edit', () => {
  assert.equal(proposalTitle('update', 'cart.js', 'cart.js'), 'cart.js (proposed by Zuno)');
  assert.equal(proposalTitle('create', 'plan.md', 'plan.md'), 'plan.md (new file proposed by Zuno)');
  assert.equal(proposalTitle('delete', 'old.ts', 'old.ts'), 'old.ts (deletion proposed by Zuno)');
  assert.equal(proposalTitle('move', 'a.ts', 'b.ts'), 'a.ts → b.ts (proposed by Zuno)');
});

test('issue 14 item 13: the proposal URI path is the workspace-relative path; the call id survives the authority whatever it holds', () => {
  assert.equal(proposalPath('proposed', 'src/cart.js'), '/src/cart.js');
  assert.equal(proposalPath('proposed', 'src\\win\\cart.js'), '/src/win/cart.js');
  assert.equal(proposalPath('proposed', '/tmp/outside/x.js'), '/tmp/outside/x.js', 'outside the workspace: the absolute path');
  assert.equal(proposalPath('original', 'plan.md'), '/.zuno-original/plan.md', "a new file's empty side is kept apart");
  for (const callId of ['call_4_0', 'call:with/slash@and spaces', 'toolu_01ABC%xyz'])
    assert.equal(callIdOfAuthority(proposalAuthority(callId)), callId);
  assert.doesNotMatch(proposalAuthority('a/b:c@d'), /[/:@]/, 'nothing that would end the authority');
  assert.equal(callIdOfAuthority(''), undefined);
  assert.equal(callIdOfAuthority('%zz'), undefined, 'a malformed authority names no call');
});
