// The recovery notice (R3) as the model reads it, built from stored rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recoveryNoticeText, summarizeArguments } from '../../../src/store/recovery';
import type { RecoveryNotice } from '../../../src/store/recovery';

const notice = (callId: string, tool: string, argumentSummary: string, attempt: number): RecoveryNotice => ({
  sessionId: 's1',
  callId,
  tool,
  argumentSummary,
  attempt,
  startedAt: 1,
  recoveredAt: 2,
});

test('R3: argument summaries are one short line of key=value pairs', () => {
  assert.equal(summarizeArguments('{"command":"npm test","timeout_ms":60000}'), 'command="npm test", timeout_ms=60000');
  assert.equal(summarizeArguments('{"path":"a.txt","content":"line 1\\nline 2"}'), 'path="a.txt", content="line 1\\nline 2"');
  assert.equal(summarizeArguments('{"queries":["a","b"],"options":{"deep":true}}'), 'queries=["a","b"], options={"deep":true}');
  assert.equal(summarizeArguments('{}'), '(no arguments)');
  assert.equal(summarizeArguments('{"command": "rm -rf bu'), '(not valid JSON) {"command": "rm -rf bu');
  const long = summarizeArguments(JSON.stringify({ content: 'y'.repeat(500), path: 'p' }));
  assert.equal(long, `content="${'y'.repeat(79)}…", path="p"`);
  assert.ok(summarizeArguments(JSON.stringify({ a: 'z'.repeat(80), b: 'z'.repeat(80), c: 'z'.repeat(80) })).length <= 200);
});

test('R3: clipping never splits a character made of two UTF-16 units', () => {
  const summary = summarizeArguments(JSON.stringify({ text: `${'a'.repeat(78)}😀😀` }));
  assert.equal(summary, `text="${'a'.repeat(78)}…"`);
});

test('R3: the notice names each call, its tool, arguments and attempt, says indeterminate and not retried, and says to check state first', () => {
  const text = recoveryNoticeText([notice('call_7', 'shell', 'command="npm publish"', 2), notice('call_8', 'write', 'path="a.txt"', 1)]);
  assert.match(
    text,
    /^RECOVERY NOTICE \(from the session store\): the previous run of this session stopped while these 2 tool calls were running:/,
  );
  assert.match(text, /- call call_7: tool "shell" with command="npm publish"; attempt 2; outcome: indeterminate\./);
  assert.match(text, /- call call_8: tool "write" with path="a.txt"; attempt 1; outcome: indeterminate\./);
  assert.match(text, /INDETERMINATE: its effect may or may not have happened/);
  assert.match(text, /They were NOT retried and will NOT be retried automatically\./);
  assert.match(
    text,
    /Before any new mutation, check the authoritative state \(for example read the file, list the running processes, or run `git status`\)/,
  );

  const single = recoveryNoticeText([notice('c1', 'shell', 'command="make"', 1)]);
  assert.match(single, /stopped while this tool call was running/);
  assert.match(single, /It was NOT retried/);
  assert.equal(recoveryNoticeText([]), '');
});
