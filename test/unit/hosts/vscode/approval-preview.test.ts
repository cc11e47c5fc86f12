// Readable approvals (issue 14 item 3): a diff per file, a command line, a URL, the todo list, an
// MCP tool's arguments as a table, and the reason in plain words; the raw JSON only under Details.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApprovalRequest, FileChange } from '../../../../src/core/host';
import { evaluatePermission } from '../../../../src/core/policy';
import { buildApprovalPreview, DIFF_LINE_BUDGET, plainReason } from '../../../../src/hosts/vscode/approval-preview';
import { ApprovalBroker } from '../../../../src/hosts/vscode/approval-state';
import type { ApprovalPreview, ToWebview } from '../../../../src/webview/protocol';

const root = '/work/project';
const display = (path: string): string => (path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path);

function request(tool: string, args: unknown, extra: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    callId: 'c1',
    sessionId: 's1',
    tool,
    arguments: args,
    declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
    reason: evaluatePermission({
      tool,
      declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
      subjects: [],
      permission: { mode: 'strict', rules: [] },
      workspaceRoot: root,
    }).reason,
    ...extra,
  };
}

const preview = (tool: string, args: unknown, extra: Partial<ApprovalRequest> = {}): ApprovalPreview | undefined =>
  buildApprovalPreview(request(tool, args, extra), display, root);

test('issue 14 item 3: a patch approval is a diff per file with +/- counts and hunk headers, paths relative, no JSON', () => {
  const cart: FileChange = {
    path: `${root}/src/cart.js`,
    kind: 'update',
    before: 'a\nb\nc\nd\ne\nf\ng\nh\n',
    after: 'a\nb\nc\nD\ne\nf\ng\nh\n',
  };
  const notes: FileChange = { path: `${root}/NOTES.md`, kind: 'create', before: undefined, after: 'one\ntwo\n' };
  const result = preview('apply_patch', { patch: '*** Begin Patch\n*** Update File: src/cart.js\n…' }, { changes: [cart, notes] });
  assert.equal(result?.kind, 'files');
  if (result?.kind !== 'files') return;
  const [first, second] = result.files;
  assert.deepEqual([first?.path, first?.change, first?.added, first?.removed], ['src/cart.js', 'update', 1, 1]);
  assert.equal(first?.hunks[0]?.header, '@@ -1,7 +1,7 @@');
  assert.deepEqual(
    first?.hunks[0]?.lines.filter((line) => line.kind !== 'context'),
    [
      { kind: 'remove', text: 'd' },
      { kind: 'add', text: 'D' },
    ],
  );
  assert.deepEqual([second?.path, second?.change, second?.added, second?.removed], ['NOTES.md', 'create', 2, 0]);
  assert.doesNotMatch(JSON.stringify(result), /Begin Patch|\\\\n/, 'the patch envelope and escaped newlines are not what the card draws');
});

test('issue 14 item 3: a huge write draws at most the line budget, counts every line, and says how many it left out', () => {
  const big = Array.from({ length: DIFF_LINE_BUDGET + 250 }, (_, index) => `line ${index}`).join('\n');
  const result = preview(
    'write',
    { path: 'big.txt', content: big },
    { changes: [{ path: `${root}/big.txt`, kind: 'create', before: undefined, after: big }] },
  );
  assert.equal(result?.kind, 'files');
  if (result?.kind !== 'files') return;
  const file = result.files[0];
  const drawn = file?.hunks.reduce((sum, hunk) => sum + hunk.lines.length, 0);
  assert.equal(drawn, DIFF_LINE_BUDGET);
  assert.equal(file?.added, DIFF_LINE_BUDGET + 250);
  assert.equal(file?.omittedLines, 250);
});

test('issue 14 item 3: a shell approval is the bare command line with its working directory', () => {
  assert.deepEqual(preview('shell', { command: 'npm test -- --grep "cart total"' }), {
    kind: 'command',
    command: 'npm test -- --grep "cart total"',
    cwd: root,
    background: false,
  });
  assert.equal((preview('shell', { command: 'npm run dev', background: true }) as { background?: boolean } | undefined)?.background, true);
});

test('issue 14 item 3: webfetch shows its URL, todo/plan/goal updates show the list or text, a task its goal', () => {
  assert.deepEqual(preview('webfetch', { url: 'https://example.com/a?b=1' }), { kind: 'url', url: 'https://example.com/a?b=1' });
  assert.deepEqual(
    preview('todo_update', {
      todos: [
        { id: '1', content: 'Fix the total', status: 'in_progress' },
        { id: '2', content: 'Run tests', status: 'pending' },
      ],
    }),
    {
      kind: 'todos',
      replacesList: true,
      items: [
        { id: '1', content: 'Fix the total', status: 'in_progress' },
        { id: '2', content: 'Run tests', status: 'pending' },
      ],
    },
  );
  assert.deepEqual(preview('todo_update', { changes: [{ id: '2', status: 'completed' }] }), {
    kind: 'todos',
    replacesList: false,
    items: [{ id: '2', status: 'completed' }],
  });
  assert.deepEqual(preview('plan_update', { plan: '1. read\n2. fix' }), { kind: 'text', label: 'New plan', text: '1. read\n2. fix' });
  assert.deepEqual(preview('goal_update', { text: 'Ship it', status: 'achieved' }), {
    kind: 'text',
    label: 'Goal (achieved)',
    text: 'Ship it',
  });
  assert.deepEqual(preview('task', { goal: 'Write CHANGELOG.md', agent: 'writer' }), {
    kind: 'text',
    label: 'Task for agent "writer"',
    text: 'Write CHANGELOG.md',
  });
});

test('issue 14 item 3: an MCP call is its server, its tool and a table of arguments; a tool with no form has no preview', () => {
  assert.deepEqual(preview('mcp__everything__echo', { message: 'hi', times: 2, nested: { a: 1 } }), {
    kind: 'table',
    title: 'everything › echo',
    rows: [
      { name: 'message', value: 'hi' },
      { name: 'times', value: '2' },
      { name: 'nested', value: '{\n  "a": 1\n}' },
    ],
  });
  assert.equal(preview('memory_propose', { text: 'x' }), undefined);
  assert.equal(preview('shell', { command: 42 }), undefined, 'a field of the wrong type degrades to no preview');
});

test('issue 14 item 3: the reason is in plain words for the mode fallback, delegation and ask rules; other reasons stay specific', () => {
  assert.equal(plainReason(request('shell', {})), 'Zuno asks before running commands; add a rule to skip this.');
  assert.equal(
    plainReason(request('apply_patch', {})),
    'Zuno asks before changing files; switch to auto-edit mode or add a rule to skip this.',
  );
  assert.equal(plainReason(request('todo_update', {})), 'Zuno asks before updating the plan, todos or goal; auto-edit mode skips this.');
  assert.equal(
    plainReason(request('mcp__everything__echo', {})),
    "Zuno asks before calling an MCP server's tools; add a rule to skip this.",
  );
  const delegation = evaluatePermission({
    tool: 'task',
    declarations: { effect: 'Delegating', replay: 'Never', concurrency: 'Exclusive' },
    subjects: [],
    permission: { mode: 'strict', rules: [] },
    workspaceRoot: root,
  });
  assert.match(plainReason(request('task', {}, { reason: delegation.reason })), /^Zuno asks before handing work to another agent/);
  const askRule = evaluatePermission({
    tool: 'webfetch',
    declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
    subjects: [{ kind: 'url', value: 'https://example.com' }],
    permission: { mode: 'auto', rules: [{ tool: 'webfetch', match: 'https://example.com', action: 'ask' }] },
    workspaceRoot: root,
  });
  assert.equal(askRule.action, 'ask');
  assert.equal(
    plainReason(request('webfetch', {}, { reason: askRule.reason })),
    'A rule in your settings asks before webfetch calls matching "https://example.com".',
  );
  assert.equal(
    plainReason(request('write', {}, { reason: 'x is a protected path (it matches "**/.npmrc")' })),
    'X is a protected path (it matches "**/.npmrc").',
  );
  for (const text of [plainReason(request('shell', {})), plainReason(request('write', {}))])
    assert.doesNotMatch(text, /strict mode|side effects|allow rule covers/);
});

test('issue 14 item 3: the broker sends the preview and the plain reason with the card, and keeps the policy wording', () => {
  const posted: ToWebview[] = [];
  const broker = new ApprovalBroker(
    {
      post: (message) => posted.push(message),
      showDiff: async () => undefined,
      proposedText: async () => undefined,
      unsavedPaths: () => [],
      currentText: async () => undefined,
      addAllowRule: async () => undefined,
      discardProposals: async () => undefined,
    },
    root,
  );
  void broker.request(request('shell', { command: 'npm test' }, { subject: 'npm test' }), new AbortController().signal);
  const card = posted[0];
  assert.equal(card?.type, 'approval');
  if (card?.type !== 'approval') return;
  assert.deepEqual(card.approval.preview, { kind: 'command', command: 'npm test', cwd: root, background: false });
  assert.equal(card.approval.plainReason, 'Zuno asks before running commands; add a rule to skip this.');
  assert.match(card.approval.reason, /strict mode asks before every call/);
  broker.cancelAll();
});
