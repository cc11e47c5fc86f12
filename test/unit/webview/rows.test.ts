// Compact rows (issue 14 item 5): one line per read-only call, consecutive reads grouped, the
// model's mistakes muted, shell rows with their exit code and last lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exitLabel, groupLabel, groupState, isModelMistake, lastLines, mistakeText, rowKind } from '../../../media/rows';
import { Transcript, type ToolItem } from '../../../media/transcript';
import { event } from './events';

function card(transcript: Transcript, callId: string): ToolItem {
  const found = transcript.card(callId);
  assert.ok(found, callId);
  return found;
}

function read(transcript: Transcript, callId: string, path: string, outcome: 'ok' | 'error' | 'running' = 'ok'): void {
  transcript.apply(event({ type: 'tool-call-requested', call_id: callId, tool: 'read', arguments: JSON.stringify({ path }) }));
  transcript.apply(
    event({
      type: 'tool-call-started',
      call_id: callId,
      tool: 'read',
      effect: 'ReadOnly',
      replay: 'Safe',
      concurrency: 'ParallelSafe',
      attempt: 1,
    }),
  );
  if (outcome !== 'running')
    transcript.apply(event({ type: 'tool-call-finished', call_id: callId, tool: 'read', outcome, duration_ms: 3, truncated: false }));
}

test('issue 14 item 5: four parallel reads form one group "Read 4 files"; its first row counts them and redraws when any changes', () => {
  const transcript = new Transcript();
  read(transcript, 'r1', 'a.ts', 'running');
  const leader = card(transcript, 'r1');
  for (const [callId, path] of [
    ['r2', 'b.ts'],
    ['r3', 'c.ts'],
    ['r4', 'd.ts'],
  ] as const)
    read(transcript, callId, path, 'running');
  assert.equal(leader.groupSize, 4);
  assert.deepEqual(
    transcript.groupMembers('r1').map((member) => member.callId),
    ['r1', 'r2', 'r3', 'r4'],
  );
  assert.deepEqual(
    ['r2', 'r3', 'r4'].map((callId) => card(transcript, callId).groupLeader),
    ['r1', 'r1', 'r1'],
  );
  assert.equal(groupLabel('read', 4), 'Read 4 files');
  assert.equal(groupState(transcript.groupMembers('r1')), '4 running');
  const before = leader.version;
  transcript.apply(event({ type: 'tool-call-finished', call_id: 'r3', tool: 'read', outcome: 'error', duration_ms: 1, truncated: false }));
  assert.ok(leader.version > before, 'a member finishing redraws the group row');
  assert.equal(groupState(transcript.groupMembers('r1')), '3 running, 1 failed');
  for (const member of transcript.groupMembers('r1')) assert.equal(rowKind(member, false), 'compact');
});

test('issue 14 item 5: a group ends at anything else: a different tool, a message, a side effect', () => {
  const transcript = new Transcript();
  read(transcript, 'r1', 'a.ts');
  transcript.apply(event({ type: 'tool-call-requested', call_id: 'g1', tool: 'grep', arguments: '{"pattern":"x"}' }));
  read(transcript, 'r2', 'b.ts');
  transcript.apply(event({ type: 'assistant-delta', text: 'Now…' }));
  read(transcript, 'r3', 'c.ts');
  for (const callId of ['r1', 'g1', 'r2', 'r3']) {
    assert.equal(card(transcript, callId).groupSize, 1, callId);
    assert.equal(card(transcript, callId).groupLeader, undefined, callId);
  }
  assert.equal(groupLabel('grep', 1), 'Searched 1 pattern');
});

test('issue 14 item 5: side effects, approvals, questions and user-facing blocks keep the full card', () => {
  const transcript = new Transcript();
  transcript.apply(event({ type: 'tool-call-requested', call_id: 's1', tool: 'shell', arguments: '{"command":"npm test"}' }));
  assert.equal(rowKind(card(transcript, 's1'), false), 'card');
  read(transcript, 'r1', 'a.ts', 'running');
  assert.equal(rowKind(card(transcript, 'r1'), true), 'card', 'a pending approval or question needs the full card');
  transcript.apply(
    event({
      type: 'dispatch-blocked',
      call_id: 'r1',
      tool: 'read',
      category: 'denied',
      reason: 'the permission rule {tool: "read", match: ".env", action: "deny"} denies it',
    }),
  );
  transcript.apply(
    event({
      type: 'tool-call-finished',
      call_id: 'r1',
      tool: 'read',
      outcome: 'blocked',
      category: 'denied',
      duration_ms: 0,
      truncated: false,
    }),
  );
  assert.equal(rowKind(card(transcript, 'r1'), false), 'card', 'a denial stays a clear card');
  transcript.apply(event({ type: 'tool-call-requested', call_id: 'u1', tool: 'webfetch', arguments: '{}' }));
  transcript.apply(
    event({
      type: 'dispatch-blocked',
      call_id: 'u1',
      tool: 'webfetch',
      category: 'unavailable',
      reason: '"webfetch" is switched off in config (tools.webfetch = false).',
    }),
  );
  transcript.apply(
    event({
      type: 'tool-call-finished',
      call_id: 'u1',
      tool: 'webfetch',
      outcome: 'blocked',
      category: 'unavailable',
      duration_ms: 0,
      truncated: false,
    }),
  );
  assert.equal(isModelMistake(card(transcript, 'u1')), false, 'a tool the user switched off is theirs to know about');
  assert.equal(rowKind(card(transcript, 'u1'), false), 'card');
});

test("issue 14 item 5: invalid arguments and an unknown tool are the model's mistakes: a muted line, nothing alarming", () => {
  const transcript = new Transcript();
  transcript.apply(event({ type: 'tool-call-requested', call_id: 'm1', tool: 'write', arguments: '{"path":1}' }));
  transcript.apply(
    event({
      type: 'dispatch-blocked',
      call_id: 'm1',
      tool: 'write',
      category: 'invalid_arguments',
      reason: 'path: expected string. The arguments must match this JSON Schema: {"type":"object"}',
    }),
  );
  transcript.apply(
    event({
      type: 'tool-call-finished',
      call_id: 'm1',
      tool: 'write',
      outcome: 'blocked',
      category: 'invalid_arguments',
      duration_ms: 0,
      truncated: false,
    }),
  );
  const invalid = card(transcript, 'm1');
  assert.equal(rowKind(invalid, false), 'mistake');
  assert.equal(mistakeText(invalid), 'The model sent write invalid arguments; it was told and can correct itself. Nothing ran.');
  assert.doesNotMatch(mistakeText(invalid), /Schema|BLOCKED/i, 'the schema stays under the toggle');
  transcript.apply(event({ type: 'tool-call-requested', call_id: 'm2', tool: 'edit_file', arguments: '{}' }));
  transcript.apply(
    event({
      type: 'dispatch-blocked',
      call_id: 'm2',
      tool: 'edit_file',
      category: 'unavailable',
      reason: 'There is no tool named "edit_file". The tools you can call are: read, write.',
    }),
  );
  transcript.apply(
    event({
      type: 'tool-call-finished',
      call_id: 'm2',
      tool: 'edit_file',
      outcome: 'blocked',
      category: 'unavailable',
      duration_ms: 0,
      truncated: false,
    }),
  );
  assert.equal(rowKind(card(transcript, 'm2'), false), 'mistake');
  assert.match(mistakeText(card(transcript, 'm2')), /asked for a tool it does not have \(edit_file\)/);
});

test('issue 14 item 5: a failing shell row shows exit N and the last lines of its output', () => {
  const transcript = new Transcript();
  transcript.apply(event({ type: 'tool-call-requested', call_id: 's1', tool: 'shell', arguments: '{"command":"npm test"}' }));
  transcript.apply(
    event({
      type: 'tool-call-started',
      call_id: 's1',
      tool: 'shell',
      effect: 'SideEffecting',
      replay: 'Never',
      concurrency: 'Exclusive',
      attempt: 1,
    }),
  );
  transcript.apply(
    event({ type: 'tool-call-output', call_id: 's1', chunk: '> test\n\n  ✓ adds\n  ✗ totals\n\nAssertionError: 41 !== 42\n' }),
  );
  transcript.apply(
    event({ type: 'tool-call-finished', call_id: 's1', tool: 'shell', outcome: 'error', duration_ms: 900, truncated: false, exit_code: 1 }),
  );
  const shell = card(transcript, 's1');
  assert.equal(exitLabel(shell), 'exit 1');
  assert.deepEqual(lastLines(shell.output), ['  ✓ adds', '  ✗ totals', 'AssertionError: 41 !== 42']);
  assert.equal(rowKind(shell, false), 'card');
  read(transcript, 'r1', 'a.ts');
  assert.equal(exitLabel(card(transcript, 'r1')), undefined, 'no exit code is invented for a tool that ran no command');
});
