import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PermissionRule } from '../../../../src/core/config';
import type { ApprovalRequest, FileChange } from '../../../../src/core/host';
import { allowRuleFor, ApprovalBroker, escapeGlob, type ApprovalEnvironment } from '../../../../src/hosts/vscode/approval-state';
import type { ToWebview } from '../../../../src/webview/protocol';
import { matchGlob } from '../../../../src/core/glob';

const root = '/work/project';

class FakeEditor implements ApprovalEnvironment {
  readonly posted: ToWebview[] = [];
  readonly diffsShown: string[] = [];
  readonly discarded: string[] = [];
  readonly rules: PermissionRule[] = [];
  /** What the proposed side holds, by path, once a preview was opened. */
  readonly proposed = new Map<string, string>();
  /** The files on disk. */
  readonly disk = new Map<string, string>();
  readonly unsaved = new Set<string>();
  failRuleWrite = false;

  post(message: ToWebview): void {
    this.posted.push(message);
  }
  async showDiff(callId: string, changes: readonly FileChange[]): Promise<void> {
    this.diffsShown.push(callId);
    for (const change of changes) if (change.after !== undefined) this.proposed.set(change.path, change.after);
  }
  async proposedText(_callId: string, change: FileChange): Promise<string | undefined> {
    return this.proposed.get(change.path);
  }
  unsavedPaths(paths: readonly string[]): readonly string[] {
    return paths.filter((path) => this.unsaved.has(path));
  }
  async currentText(path: string): Promise<string | undefined> {
    return this.disk.get(path);
  }
  async addAllowRule(rule: PermissionRule): Promise<void> {
    if (this.failRuleWrite) throw new Error('settings are read-only');
    this.rules.push(rule);
  }
  async discardProposals(callId: string): Promise<void> {
    this.discarded.push(callId);
  }
  errors(): string[] {
    return this.posted.flatMap((message) => (message.type === 'error' ? [message.text] : []));
  }
}

const update = (path: string, before: string, after: string): FileChange => ({ path, kind: 'update', before, after });

function writeRequest(callId: string, changes: FileChange[], subject = changes[0]?.path): ApprovalRequest {
  return {
    callId,
    sessionId: 's1',
    tool: changes.length > 1 ? 'apply_patch' : 'write',
    arguments: { path: subject },
    declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
    reason: 'strict mode asks before every side-effecting call',
    changes,
    ...(subject !== undefined ? { subject } : {}),
  };
}

function setup(changes: FileChange[]) {
  const editor = new FakeEditor();
  for (const change of changes) if (change.before !== undefined) editor.disk.set(change.path, change.before);
  const broker = new ApprovalBroker(editor, root);
  return { editor, broker };
}

test('issue 4 Approvals: a request becomes an approval card, and Approve with no edits lands the proposal as is', async () => {
  const change = update(`${root}/a.txt`, 'old\n', 'new\n');
  const { editor, broker } = setup([change]);
  const pending = broker.request(writeRequest('c1', [change]), new AbortController().signal);
  const card = editor.posted[0];
  assert.equal(card?.type, 'approval');
  assert.deepEqual(card?.type === 'approval' ? [card.approval.callId, card.approval.canShowDiff, card.approval.paths] : [], [
    'c1',
    true,
    ['a.txt'],
  ]);
  assert.deepEqual(
    broker.pending().map((approval) => approval.callId),
    ['c1'],
  );
  assert.deepEqual(await broker.decide('c1', { approved: true }), { accepted: true });
  assert.deepEqual(await pending, { approved: true });
  assert.deepEqual(editor.posted.at(-1), { type: 'approval-closed', callId: 'c1' });
  assert.deepEqual(broker.pending(), []);
  assert.deepEqual(editor.discarded, ['c1']);
});

test('issue 4 Diff preview: the text the user edited on the proposed side is what is approved, per file', async () => {
  const first = update(`${root}/a.ts`, 'a\n', 'a2\n');
  const second = update(`${root}/b.ts`, 'b\n', 'b2\n');
  const { editor, broker } = setup([first, second]);
  const pending = broker.request(writeRequest('c1', [first, second]), new AbortController().signal);
  assert.deepEqual(await broker.showDiff('c1'), { accepted: true });
  assert.deepEqual(editor.diffsShown, ['c1']);
  editor.proposed.set(second.path, 'b2 edited by the user\n');
  await broker.decide('c1', { approved: true });
  assert.deepEqual(await pending, { approved: true, editedContents: { [second.path]: 'b2 edited by the user\n' } });
});

test('issue 4 Deny: a denial carries the optional reason and leaves nothing approved', async () => {
  const change = update(`${root}/a.txt`, 'old\n', 'new\n');
  const { editor, broker } = setup([change]);
  const withReason = broker.request(writeRequest('c1', [change]), new AbortController().signal);
  await broker.decide('c1', { approved: false, reason: '  not this file  ' });
  assert.deepEqual(await withReason, { approved: false, reason: 'not this file' });
  const withoutReason = broker.request(writeRequest('c2', [change]), new AbortController().signal);
  await broker.decide('c2', { approved: false, reason: '   ' });
  assert.deepEqual(await withoutReason, { approved: false });
  assert.deepEqual(editor.rules, []);
});

test('issue 4 Cancel: the scheduler signal and Cancel in the UI close pending approvals as denied "cancelled"', async () => {
  const change = update(`${root}/a.txt`, 'old\n', 'new\n');
  const { editor, broker } = setup([change]);
  const controller = new AbortController();
  const bySignal = broker.request(writeRequest('c1', [change]), controller.signal);
  const byCancel = broker.request(writeRequest('c2', [change]), new AbortController().signal);
  controller.abort();
  assert.deepEqual(await bySignal, { approved: false, reason: 'cancelled' });
  broker.cancelAll();
  assert.deepEqual(await byCancel, { approved: false, reason: 'cancelled' });
  assert.deepEqual(
    editor.posted.filter((message) => message.type === 'approval-closed'),
    [
      { type: 'approval-closed', callId: 'c1' },
      { type: 'approval-closed', callId: 'c2' },
    ],
  );
  const already = new AbortController();
  already.abort();
  assert.deepEqual(await broker.request(writeRequest('c3', [change]), already.signal), { approved: false, reason: 'cancelled' });
  assert.equal(broker.size, 0);
});

test('issue 4 A file edited meanwhile: an unsaved editor buffer is never overwritten; approval waits until it is saved', async () => {
  const change = update(`${root}/a.txt`, 'old\n', 'new\n');
  const { editor, broker } = setup([change]);
  let settled = false;
  const pending = broker.request(writeRequest('c1', [change]), new AbortController().signal).then((decision) => {
    settled = true;
    return decision;
  });
  editor.unsaved.add(change.path);
  const refused = await broker.decide('c1', { approved: true });
  assert.equal(refused.accepted, false);
  assert.match(editor.errors().at(-1) ?? '', /a\.txt has unsaved changes in an editor.*save or revert it/);
  await Promise.resolve();
  assert.equal(settled, false, 'the request stays pending');
  assert.deepEqual(
    broker.pending().map((approval) => approval.callId),
    ['c1'],
  );
  editor.unsaved.clear();
  assert.deepEqual(await broker.decide('c1', { approved: true }), { accepted: true });
  assert.deepEqual(await pending, { approved: true });
});

test('issue 4 A file edited meanwhile: a file changed on disk needs a second, explicit Approve, and then the tool re-verifies', async () => {
  const change = update(`${root}/a.txt`, 'old\n', 'new\n');
  const { editor, broker } = setup([change]);
  const pending = broker.request(writeRequest('c1', [change]), new AbortController().signal);
  editor.disk.set(change.path, 'changed by someone else\n');
  const first = await broker.decide('c1', { approved: true });
  assert.equal(first.accepted, false);
  assert.match(editor.errors().at(-1) ?? '', /a\.txt changed on disk after this proposal was made\. If you approve again/);
  assert.deepEqual(await broker.decide('c1', { approved: true }), { accepted: true });
  assert.deepEqual(await pending, { approved: true });
});

test('issue 4 A file edited meanwhile: user edits on a stale proposal are refused, since they would clobber the newer file', async () => {
  const change = update(`${root}/a.txt`, 'old\n', 'new\n');
  const { editor, broker } = setup([change]);
  void broker.request(writeRequest('c1', [change]), new AbortController().signal);
  await broker.showDiff('c1');
  editor.proposed.set(change.path, 'user text\n');
  editor.disk.set(change.path, 'changed by someone else\n');
  for (let attempt = 0; attempt < 2; attempt++) {
    assert.equal((await broker.decide('c1', { approved: true })).accepted, false);
    assert.match(editor.errors().at(-1) ?? '', /your edits to the proposal are based on the old text/);
  }
  await broker.decide('c1', { approved: false });
});

test('issue 4 A file edited meanwhile: a file created since a create proposal counts as changed', async () => {
  const change: FileChange = { path: `${root}/new.txt`, kind: 'create', before: undefined, after: 'hello\n' };
  const { editor, broker } = setup([change]);
  void broker.request(writeRequest('c1', [change]), new AbortController().signal);
  editor.disk.set(change.path, 'appeared\n');
  assert.equal((await broker.decide('c1', { approved: true })).accepted, false);
  assert.match(editor.errors().at(-1) ?? '', /new\.txt changed on disk/);
});

test('issue 4 Approvals: "Allow like this" writes a visible rule for exactly this subject and reports it', async () => {
  const change = update(`${root}/src/[id].ts`, 'a\n', 'b\n');
  const { editor, broker } = setup([change]);
  const pending = broker.request(writeRequest('c1', [change]), new AbortController().signal);
  await broker.decide('c1', { approved: true, allowLikeThis: true });
  const rule: PermissionRule = { tool: 'write', match: 'src/\\[id\\].ts', action: 'allow' };
  assert.deepEqual(editor.rules, [rule]);
  assert.deepEqual(await pending, { approved: true, addedRule: rule });
  assert.ok(matchGlob(rule.match ?? '', 'src/[id].ts', 'path'));
  assert.equal(matchGlob(rule.match ?? '', 'src/i.ts', 'path'), false, 'the rule covers this file only');
});

test('issue 4 Approvals: a rule that cannot be written still approves the call the user approved, and says so', async () => {
  const change = update(`${root}/a.txt`, 'a\n', 'b\n');
  const { editor, broker } = setup([change]);
  editor.failRuleWrite = true;
  const pending = broker.request(writeRequest('c1', [change]), new AbortController().signal);
  await broker.decide('c1', { approved: true, allowLikeThis: true });
  assert.deepEqual(await pending, { approved: true });
  assert.match(editor.errors().at(-1) ?? '', /rule could not be written to settings: settings are read-only/);
});

test('§9: "Allow like this" for a command allows exactly that command line, metacharacters escaped', () => {
  const request: ApprovalRequest = { ...writeRequest('c1', []), tool: 'shell', subject: 'ls *.ts', changes: [] };
  const rule = allowRuleFor(request, root);
  const { subject: _subject, ...noSubject } = request;
  assert.deepEqual(rule, { tool: 'shell', match: 'ls \\*.ts', action: 'allow' });
  assert.ok(matchGlob(rule.match ?? '', 'ls *.ts', 'text'));
  assert.equal(matchGlob(rule.match ?? '', 'ls x.ts; rm -rf /', 'text'), false);
  assert.deepEqual(allowRuleFor({ ...noSubject, tool: 'todo_update' }, root), { tool: 'todo_update', action: 'allow' });
  assert.deepEqual(allowRuleFor({ ...request, tool: 'write', subject: '/elsewhere/x.txt' }, root), {
    tool: 'write',
    match: '/elsewhere/x.txt',
    action: 'allow',
  });
  assert.equal(escapeGlob('a\\b{c,d}?'), 'a\\\\b\\{c,d\\}\\?');
});

test('issue 12: "Allow like this" for a shell call outside the sandbox writes a rule that says sandbox: "off"', () => {
  const request: ApprovalRequest = {
    ...writeRequest('c1', []),
    tool: 'shell',
    subject: 'npm publish',
    arguments: { command: 'npm publish', sandbox: 'off' },
    changes: [],
  };
  assert.deepEqual(allowRuleFor(request, root), { tool: 'shell', match: 'npm publish', action: 'allow', sandbox: 'off' });
  assert.deepEqual(allowRuleFor({ ...request, arguments: { command: 'npm publish' } }, root), {
    tool: 'shell',
    match: 'npm publish',
    action: 'allow',
  });
});

test('issue 4 Approvals: decisions for unknown or closed requests are refused and close the stale card', async () => {
  const { editor, broker } = setup([]);
  const result = await broker.decide('ghost', { approved: true });
  assert.equal(result.accepted, false);
  assert.deepEqual(editor.posted.slice(-2), [
    { type: 'error', text: 'This approval is no longer pending.' },
    { type: 'approval-closed', callId: 'ghost' },
  ]);
});

test('issue 4 Approvals: a second decision while the first is being checked is refused, and a cancel meanwhile wins', async () => {
  const change = update(`${root}/a.txt`, 'a\n', 'b\n');
  const { editor, broker } = setup([change]);
  const pending = broker.request(writeRequest('c1', [change]), new AbortController().signal);
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const readDisk = editor.currentText.bind(editor);
  editor.currentText = async (path) => {
    await gate;
    return readDisk(path);
  };
  const first = broker.decide('c1', { approved: true });
  const second = await broker.decide('c1', { approved: false });
  assert.deepEqual(second, { accepted: false, error: 'This approval is already being applied.' });
  broker.cancelAll();
  release();
  assert.equal((await first).accepted, false);
  assert.deepEqual(await pending, { approved: false, reason: 'cancelled' });
});

test('issue 4 Approvals: Show diff for a call without file changes is refused', async () => {
  const { broker } = setup([]);
  const { changes: _changes, ...request0 } = writeRequest('c1', []);
  const request: ApprovalRequest = { ...request0, tool: 'shell', subject: 'make' };
  void broker.request(request, new AbortController().signal);
  assert.equal(broker.pending()[0]?.canShowDiff, false);
  assert.equal((await broker.showDiff('c1')).accepted, false);
});
