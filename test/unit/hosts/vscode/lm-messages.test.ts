import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toChatTurns, toolInput } from '../../../../src/hosts/vscode/lm-messages';

test('§9 Models (vscode.lm): system prompt first, tool calls as parts, the results of one turn together in call order', () => {
  const turns = toChatTurns('You are Zuno.', [
    { role: 'user', content: 'read both' },
    {
      role: 'assistant',
      content: 'Reading.',
      toolCalls: [
        { id: 'a', name: 'read', arguments: '{"path":"a.ts"}' },
        { id: 'b', name: 'read', arguments: '{"path":"b.ts"}' },
      ],
    },
    { role: 'tool', callId: 'a', toolName: 'read', content: '1: a' },
    { role: 'tool', callId: 'b', toolName: 'read', content: '1: b' },
    { role: 'user', content: 'thanks' },
    { role: 'assistant', content: 'Done.' },
  ]);
  assert.deepEqual(turns, [
    { role: 'user', parts: [{ kind: 'text', text: 'You are Zuno.' }] },
    { role: 'user', parts: [{ kind: 'text', text: 'read both' }] },
    {
      role: 'assistant',
      parts: [
        { kind: 'text', text: 'Reading.' },
        { kind: 'tool-call', callId: 'a', name: 'read', input: { path: 'a.ts' } },
        { kind: 'tool-call', callId: 'b', name: 'read', input: { path: 'b.ts' } },
      ],
    },
    {
      role: 'user',
      parts: [
        { kind: 'tool-result', callId: 'a', text: '1: a' },
        { kind: 'tool-result', callId: 'b', text: '1: b' },
      ],
    },
    { role: 'user', parts: [{ kind: 'text', text: 'thanks' }] },
    { role: 'assistant', parts: [{ kind: 'text', text: 'Done.' }] },
  ]);
});

test('B1 invalid_arguments: malformed tool-call JSON is passed back wrapped, never dropped', () => {
  assert.deepEqual(toolInput('{"path": '), { invalid_json: '{"path": ' });
  assert.deepEqual(toolInput('[1,2]'), { invalid_json: '[1,2]' });
  assert.deepEqual(toolInput('{"ok":true}'), { ok: true });
});

test('§9 Models (vscode.lm): an assistant turn with only tool calls has no empty text part', () => {
  const turns = toChatTurns('', [{ role: 'assistant', content: '', toolCalls: [{ id: 'x', name: 'glob', arguments: '{}' }] }]);
  assert.deepEqual(turns, [{ role: 'assistant', parts: [{ kind: 'tool-call', callId: 'x', name: 'glob', input: {} }] }]);
});
