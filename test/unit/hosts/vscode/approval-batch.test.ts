// "Approve all N" (issue 14): exactly the calls pending when the user clicked are approved, each
// through its own decision (same checks, approved by the user, no rule added); a call that came up
// later still waits. The broker is the real one; the editor behind it is a small stand-in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApprovalDecision, ApprovalRequest } from '../../../../src/core/host';
import { ApprovalBroker, type ApprovalEnvironment } from '../../../../src/hosts/vscode/approval-state';
import { parseFromWebview, type PendingApproval, type ToWebview } from '../../../../src/webview/protocol';
import { approvalBatch, batchAttribute, batchLabel, parseBatch } from '../../../../media/approval-batch';

const root = '/work/project';

function environment(posted: ToWebview[], rulesAdded: unknown[], unsaved: ReadonlySet<string> = new Set()): ApprovalEnvironment {
  return {
    post: (message) => posted.push(message),
    showDiff: async () => undefined,
    proposedText: async () => undefined,
    unsavedPaths: (paths) => paths.filter((path) => unsaved.has(path)),
    currentText: async () => undefined,
    addAllowRule: async (rule) => void rulesAdded.push(rule),
    discardProposals: async () => undefined,
  };
}

const shellRequest = (callId: string, command: string): ApprovalRequest => ({
  callId,
  sessionId: 's1',
  tool: 'shell',
  arguments: { command },
  declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
  reason: 'strict mode asks before every side-effecting call',
  subject: command,
});

const newFile = (callId: string, name: string): ApprovalRequest => ({
  callId,
  sessionId: 's1',
  tool: 'write',
  arguments: { path: name, content: 'x' },
  declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
  reason: 'strict',
  changes: [{ path: `${root}/${name}`, kind: 'create', before: undefined, after: 'x' }],
  subject: `${root}/${name}`,
});

test('issue 14 batch approvals: Approve all approves exactly the listed pending calls, each as a plain approval with no rule; a later call still waits', async () => {
  const posted: ToWebview[] = [];
  const rules: unknown[] = [];
  const broker = new ApprovalBroker(environment(posted, rules), root);
  const signal = new AbortController().signal;
  const first = broker.request(shellRequest('c1', 'npm test'), signal);
  const second = broker.request(shellRequest('c2', 'npm run lint'), signal);
  const third = broker.request(shellRequest('c3', 'git push'), signal);
  // The view drew "Approve all 2" before c3 came up: only c1 and c2 are in the click.
  const results = await broker.approveAll(['c1', 'c2']);
  assert.deepEqual(results, [{ accepted: true }, { accepted: true }]);
  const decisions: ApprovalDecision[] = await Promise.all([first, second]);
  assert.deepEqual(decisions, [{ approved: true }, { approved: true }], 'each approved as by its own Approve: no rule, no edits');
  assert.deepEqual(rules, [], 'never a hidden "always"');
  assert.deepEqual(
    broker.pending().map((approval) => approval.callId),
    ['c3'],
  );
  assert.deepEqual(
    posted.flatMap((message) => (message.type === 'approval-closed' ? [message.callId] : [])),
    ['c1', 'c2'],
  );
  broker.cancelAll();
  assert.deepEqual(await third, { approved: false, reason: 'cancelled' });
});

test('issue 14 batch approvals: a call settled since the click is skipped quietly, and one the checks refuse keeps waiting with the reason', async () => {
  const posted: ToWebview[] = [];
  const broker = new ApprovalBroker(environment(posted, [], new Set([`${root}/open.txt`])), root);
  const cancelled = new AbortController();
  const gone = broker.request(shellRequest('c1', 'npm test'), cancelled.signal);
  const refused = broker.request(newFile('c2', 'open.txt'), new AbortController().signal);
  const fine = broker.request(newFile('c3', 'fine.txt'), new AbortController().signal);
  cancelled.abort();
  assert.deepEqual(await gone, { approved: false, reason: 'cancelled' });
  const results = await broker.approveAll(['c1', 'c2', 'c3']);
  assert.equal(results.length, 2, 'the cancelled call is not decided again');
  assert.equal(results[0]?.accepted, false);
  assert.match(posted.flatMap((message) => (message.type === 'error' ? [message.text] : [])).join('\n'), /open\.txt has unsaved changes/);
  assert.deepEqual(await fine, { approved: true });
  assert.deepEqual(
    broker.pending().map((approval) => approval.callId),
    ['c2'],
  );
  broker.cancelAll();
  await refused;
});

const pending = (callId: string): PendingApproval => ({
  callId,
  tool: 'shell',
  declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
  reason: 'strict',
  argumentsPreview: '{}',
  canShowDiff: false,
});

test('issue 14 batch approvals: the view offers "Approve all N" only for two or more undecided approvals, and its message is validated', () => {
  const approvals = new Map([
    ['a', pending('a')],
    ['b', pending('b')],
    ['c', pending('c')],
  ]);
  assert.deepEqual(approvalBatch(approvals, new Set()), ['a', 'b', 'c']);
  assert.equal(batchLabel(approvalBatch(approvals, new Set())), 'Approve all 3');
  assert.deepEqual(approvalBatch(approvals, new Set(['a'])), ['b', 'c']);
  assert.deepEqual(approvalBatch(approvals, new Set(['a', 'b'])), [], 'one left is a plain Approve');

  // The button carries its ids as JSON: ids with spaces survive, junk approves nothing.
  assert.deepEqual(parseBatch(batchAttribute(['call 1', 'call"2'])), ['call 1', 'call"2']);
  for (const junk of [undefined, '', 'a b', '["a"]', '[1,2]', '{"a":1}', '["a",""]']) assert.deepEqual(parseBatch(junk), [], String(junk));

  assert.equal(parseFromWebview({ type: 'approve-all', callIds: ['a', 'b'] }).ok, true);
  for (const bad of [
    { type: 'approve-all', callIds: ['a'] },
    { type: 'approve-all', callIds: 'a' },
    { type: 'approve-all', callIds: ['a', ''] },
  ])
    assert.equal(parseFromWebview(bad).ok, false, JSON.stringify(bad));
});
