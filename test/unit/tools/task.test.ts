// The task tool's own contract: declarations per call (T3), the subject rules match, what it says
// when delegation is unavailable, and how a delegation's result reads. The children themselves
// run in test/unit/agent/delegation.test.ts, over the real loop and a scripted model server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DelegationResult } from '../../../src/core/delegation';
import { ToolError } from '../../../src/core/errors';
import { describeDelegation, taskTool } from '../../../src/tools/task';
import { makeTempDir, makeToolContext } from '../../support/tool-context';

test('S1 the task tool: declarations per call, the agent as subject, unavailable without a delegator (as inside a child)', async () => {
  const foreground = taskTool.parse({ goal: 'x' });
  const background = taskTool.parse({ goal: 'x', background: true });
  assert.ok(foreground.success && background.success);
  assert.deepEqual(taskTool.declarationsFor(foreground.args), { effect: 'Delegating', replay: 'Never', concurrency: 'ParallelSafe' });
  assert.deepEqual(taskTool.declarationsFor(background.args), { effect: 'Delegating', replay: 'Never', concurrency: 'IsolatedBackground' });
  const ctx = makeToolContext({ workspaceRoot: makeTempDir() });
  assert.deepEqual(await taskTool.subjectsFor(foreground.args, ctx), [{ kind: 'name', value: 'general' }]);
  assert.match(taskTool.unavailableReason(ctx) ?? '', /a delegated agent cannot delegate further/);
  await assert.rejects(
    taskTool.run(foreground.args, ctx),
    (error: unknown) => error instanceof ToolError && /Do the work yourself/.test(error.message),
  );
  assert.equal(taskTool.parse({ goal: '   ' }).success, false);
  assert.equal(taskTool.parse({ goal: 'x', max_steps: 0 }).success, false);
});

const base: DelegationResult = {
  childSessionId: 'child-1',
  agent: 'general',
  reason: 'done',
  answer: 'All tests pass now.',
  maxSteps: 25,
  calls: [
    { tool: 'read', effect: 'ReadOnly', subject: 'src/a.ts', outcome: 'ok' },
    { tool: 'apply_patch', effect: 'SideEffecting', subject: 'src/a.ts', outcome: 'ok' },
    { tool: 'shell', effect: 'SideEffecting', subject: '`npm test`', outcome: 'error' },
    { tool: 'write', effect: 'SideEffecting', subject: '/etc/passwd', outcome: 'blocked (denied)' },
    { tool: 'grep', effect: 'ReadOnly', outcome: 'ok' },
    { tool: 'read', effect: 'ReadOnly', subject: 'src/b.ts', outcome: 'ok' },
  ],
};

test('S1: a delegation result is the final answer plus every call with an effect, in order, and a count of the read-only ones', () => {
  assert.equal(
    describeDelegation(base),
    [
      'The delegated agent (general) finished.',
      'Its final answer:',
      'All tests pass now.',
      '',
      'What it did, from its call records (child session child-1):',
      '- apply_patch src/a.ts: ok',
      '- shell `npm test`: error',
      '- write /etc/passwd: blocked (denied)',
      'Also read-only calls: read ×2, grep ×1.',
    ].join('\n'),
  );
});

test('S1: a delegation that stopped early says so and what to do next', () => {
  assert.match(
    describeDelegation({ ...base, reason: 'step-limit', maxSteps: 4 }),
    /stopped at its step limit \(4 steps\) before it finished: the goal may be incomplete\. Continue the rest yourself, or delegate it again with a larger max_steps\./,
  );
  assert.match(
    describeDelegation({ ...base, reason: 'error', error: 'HTTP 500 from the model server' }),
    /failed: HTTP 500 from the model server\. Check what it did below before trying again\./,
  );
  assert.match(
    describeDelegation({ ...base, reason: 'cancelled', answer: '', calls: [] }),
    /was cancelled before it finished: part of its work may have happened\.\nIts final answer:\n\(no answer\)\n\n.*\nIt made no tool calls\.$/,
  );
});
