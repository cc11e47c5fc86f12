// "Zuno: Export Chat" (issue 14 item 14): a transcript as Markdown, messages whole and each tool
// call one line with what it was about and how it ended.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ZunoEvent, ZunoEventBody } from '../../../../src/core/events';
import { ApprovalBroker } from '../../../../src/hosts/vscode/approval-state';
import { ChatController } from '../../../../src/hosts/vscode/chat-controller';
import { fakeBackend } from './support/fake-backend';
import { chatMarkdown } from '../../../../src/hosts/vscode/chat-export';
import { QuestionBroker } from '../../../../src/hosts/vscode/question-state';

const events = (...bodies: ZunoEventBody[]): ZunoEvent[] => bodies.map((body, index) => ({ ...body, ts: index, session_id: 's1' }));
const started = (call_id: string, tool: string, parent_call_id?: string): ZunoEventBody => ({
  type: 'tool-call-started',
  call_id,
  tool,
  effect: 'ReadOnly',
  replay: 'Safe',
  concurrency: 'ParallelSafe',
  attempt: 1,
  ...(parent_call_id === undefined ? {} : { parent_call_id }),
});
const finished = (
  call_id: string,
  tool: string,
  outcome: 'ok' | 'error' | 'blocked',
  extra: { exit_code?: number } = {},
): ZunoEventBody => ({
  type: 'tool-call-finished',
  call_id,
  tool,
  outcome,
  duration_ms: 5,
  truncated: false,
  ...extra,
});

test('issue 14 item 14: the export has the messages as Markdown and one line per call with its subject, decision and outcome', () => {
  const markdown = chatMarkdown({
    sessionId: 's1',
    title: 'Why does the test fail?',
    exportedAt: new Date('2026-12-03T10:00:00Z'),
    events: events(
      { type: 'session-started' },
      { type: 'user-message', text: 'Why does the test fail?' },
      { type: 'assistant-delta', text: 'Look' },
      { type: 'assistant-message', text: 'Looking at `test.js`.' },
      { type: 'tool-call-requested', call_id: 'c1', tool: 'read', arguments: '{"path":"test.js"}' },
      { type: 'tool-call-requested', call_id: 'c2', tool: 'shell', arguments: '{"command":"npm test"}' },
      { type: 'tool-call-requested', call_id: 'c3', tool: 'write', arguments: '{"path":5}' },
      {
        type: 'dispatch-blocked',
        call_id: 'c3',
        tool: 'write',
        category: 'invalid_arguments',
        reason: 'path: expected string\nreceived number',
      },
      finished('c3', 'write', 'blocked'),
      started('c1', 'read'),
      finished('c1', 'read', 'ok'),
      { type: 'approval-requested', call_id: 'c2', tool: 'shell' },
      {
        type: 'approval-resolved',
        call_id: 'c2',
        tool: 'shell',
        approved: true,
        added_rule: { tool: 'shell', match: 'npm test *', action: 'allow' },
      },
      started('c2', 'shell'),
      { type: 'tool-call-output', call_id: 'c2', chunk: 'AssertionError' },
      finished('c2', 'shell', 'error', { exit_code: 3 }),
      { type: 'tool-call-requested', call_id: 'c4', tool: 'task', arguments: '{"description":"update the changelog"}' },
      started('c4', 'task'),
      {
        type: 'tool-call-requested',
        call_id: 'c4.1',
        tool: 'apply_patch',
        arguments: JSON.stringify({ patch: '*** Begin Patch\n*** Update File: CHANGELOG.md\n@@\n-a\n+b\n*** End Patch' }),
      },
      { type: 'approval-resolved', call_id: 'c4.1', tool: 'apply_patch', approved: false, reason: 'not\nnow' },
      finished('c4.1', 'apply_patch', 'blocked'),
      started('c4.1', 'apply_patch', 'c4'),
      finished('c4', 'task', 'ok'),
      { type: 'assistant-message', text: 'The total is off by one:\n\n```js\nconst total = 42;\n```' },
      { type: 'session-finished', reason: 'done' },
    ),
  });
  assert.equal(
    markdown,
    [
      '# Why does the test fail?',
      '',
      'Zuno session `s1`, exported 2026-12-03T10:00:00.000Z.',
      '',
      '## You',
      '',
      'Why does the test fail?',
      '',
      '## Zuno',
      '',
      'Looking at `test.js`.',
      '',
      '- `read` `test.js`: ok',
      '- `shell` `npm test`: approved, added the rule "shell: npm test *"; error, exit 3',
      '- `write`: not run: invalid arguments (path: expected string received number)',
      '- `task` `update the changelog`: ok',
      '  - `apply_patch` `CHANGELOG.md`: denied ("not now"); blocked',
      '',
      '## Zuno',
      '',
      'The total is off by one:',
      '',
      '```js',
      'const total = 42;',
      '```',
      '',
    ].join('\n'),
  );
});

test('issue 14 item 14: a run that stopped says so, and a subject with backticks stays one code span', () => {
  const markdown = chatMarkdown({
    sessionId: 's2',
    title: '',
    exportedAt: new Date(0),
    events: events(
      { type: 'user-message', text: 'run it' },
      { type: 'tool-call-requested', call_id: 'c1', tool: 'shell', arguments: '{"command":"echo `date`"}' },
      { type: 'session-finished', reason: 'cancelled', message: 'Cancelled by the user.' },
    ),
  });
  assert.match(markdown, /^# Zuno chat\n/);
  assert.match(markdown, /^- `shell` `` echo `date` ``: no outcome recorded$/m);
  assert.match(markdown, /^_The run stopped \(cancelled\): Cancelled by the user\._$/m);
});

test('issue 14 item 14: the controller exports the chat shown, from the store, and nothing before its first message', async () => {
  const stored = events({ type: 'user-message', text: 'hello' }, { type: 'assistant-message', text: 'hi' });
  const backend = fakeBackend({
    events: (sessionId) => (sessionId === 's1' ? stored : []),
    sessions: () => [{ id: 's1', title: 'Greeting', updatedAt: 1 }],
    hasSession: (sessionId) => sessionId === 's1',
  });
  const approvals = new ApprovalBroker(
    {
      post: () => undefined,
      showDiff: async () => undefined,
      proposedText: async () => undefined,
      unsavedPaths: () => [],
      currentText: async () => undefined,
      addAllowRule: async () => undefined,
      discardProposals: async () => undefined,
    },
    '/w',
  );
  assert.equal(await new ChatController(backend, approvals, new QuestionBroker(() => undefined)).exportable(), undefined);
  assert.equal(await new ChatController(backend, approvals, new QuestionBroker(() => undefined), 'gone').exportable(), undefined);
  const chat = await new ChatController(backend, approvals, new QuestionBroker(() => undefined), 's1').exportable();
  assert.deepEqual(chat, { sessionId: 's1', title: 'Greeting', events: stored });
});
