import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ZunoEvent } from '../../../../src/core/events';
import { toolLogLine } from '../../../../src/hosts/vscode/tool-log';

const at = { ts: 1, session_id: '0123456789abcdef' };

test('issue 4 Open Tool Log: every step of a call is one line, blocked calls read as not run', () => {
  const events: ZunoEvent[] = [
    { ...at, type: 'tool-call-requested', call_id: 'c1', tool: 'shell', arguments: '{"command":"make"}' },
    { ...at, type: 'approval-requested', call_id: 'c1', tool: 'shell', subject: 'make' },
    { ...at, type: 'approval-resolved', call_id: 'c1', tool: 'shell', approved: false, reason: 'not now' },
    { ...at, type: 'dispatch-blocked', call_id: 'c1', tool: 'shell', category: 'denied', reason: 'The user declined: not now' },
    {
      ...at,
      type: 'tool-call-finished',
      call_id: 'c1',
      tool: 'shell',
      outcome: 'blocked',
      category: 'denied',
      duration_ms: 0,
      truncated: false,
    },
    {
      ...at,
      type: 'tool-call-started',
      call_id: 'c2',
      tool: 'read',
      effect: 'ReadOnly',
      replay: 'Safe',
      concurrency: 'ParallelSafe',
      attempt: 2,
    },
    { ...at, type: 'tool-call-finished', call_id: 'c2', tool: 'read', outcome: 'ok', duration_ms: 4, truncated: true },
  ];
  assert.deepEqual(events.map(toolLogLine), [
    '01234567/c1 shell requested {"command":"make"}',
    '01234567/c1 shell waits for approval (make)',
    '01234567/c1 shell denied by the user: not now',
    '01234567/c1 shell BLOCKED (denied), not run: The user declined: not now',
    '01234567/c1 shell finished: blocked (denied) in 0 ms',
    '01234567/c2 read started, attempt 2 [ReadOnly, replay Safe, ParallelSafe]',
    '01234567/c2 read finished: ok in 4 ms, output truncated',
  ]);
});

test('issue 4 Open Tool Log: chat text is not logged, and huge arguments are cut', () => {
  assert.equal(toolLogLine({ ...at, type: 'assistant-delta', text: 'hello' }), undefined);
  const line = toolLogLine({ ...at, type: 'tool-call-requested', call_id: 'c', tool: 'write', arguments: 'x'.repeat(5000) }) ?? '';
  assert.match(line, /… \(3000 more characters\)$/);
});
