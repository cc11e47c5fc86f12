// What of a transcript is sent (issue 10 item 2): old tool outputs pruned to stubs that keep the
// call, its outcome and a digest; a cut that never separates a call from its result; and the view
// that puts the handoff first. Every view is checked against the pairing invariant.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callSubject, chooseCut, choosePrunedOutputs, contextView, prunedStub } from '../../../src/core/context-view';
import type { TranscriptMessage } from '../../../src/core/transcript';

/** A session of `turns` reads, each answered with `size` characters. */
function reads(turns: number, size: number): TranscriptMessage[] {
  const messages: TranscriptMessage[] = [{ role: 'user', content: 'read them all' }];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push({
      role: 'assistant',
      content: '',
      toolCalls: [{ id: `c${turn}`, name: 'read', arguments: JSON.stringify({ path: `src/file${turn}.js` }) }],
    });
    messages.push({ role: 'tool', callId: `c${turn}`, toolName: 'read', content: `${'line\n'.repeat(size / 5)}`.slice(0, size) });
  }
  return messages;
}

/** Each assistant tool call has exactly one result, in order, before anything else. */
function wellFormed(messages: readonly TranscriptMessage[]): boolean {
  let pending: string[] = [];
  for (const message of messages) {
    if (message.role === 'tool') {
      if (pending.shift() !== message.callId) return false;
      continue;
    }
    if (pending.length > 0) return false;
    pending = message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => call.id) : [];
  }
  return pending.length === 0;
}

test('issue 10 item 2: a pruned output becomes a one-line stub naming the call, its subject, its size and outcome, and what to do', () => {
  const stub = prunedStub({ name: 'read', arguments: '{"path":"src/cart.js"}' }, 'a\nb\nc', 'ok');
  assert.equal(
    stub,
    '[pruned] read src/cart.js: 3 lines, 5 characters, ok. The output was pruned to save context; run the call again if you need it.',
  );
  assert.equal(callSubject('{"command":"npm   test\\n-- --watch"}'), 'npm test -- --watch');
  assert.equal(callSubject('not json'), 'not json');
});

test('issue 10 item 2: pruning keeps the newest turn and the newest outputs within the budget whole, and never unprunes', () => {
  const messages = reads(6, 4000);
  // 1000 tokens per output: the budget keeps two older ones besides the newest turn.
  const pruned = choosePrunedOutputs(messages, 2000, new Set());
  assert.deepEqual([...pruned].sort(), ['c1', 'c2', 'c3']);
  const view = contextView(messages, undefined, pruned, (id) => (id === 'c1' ? 'ok' : undefined));
  assert.ok(wellFormed(view));
  assert.equal(view.length, messages.length);
  assert.match(view[2]?.role === 'tool' ? view[2].content : '', /^\[pruned\] read src\/file1\.js: \d+ lines, 4000 characters, ok\./);
  assert.equal(view.at(-1), messages.at(-1), 'the newest output is sent as it is');
  assert.deepEqual(
    [...choosePrunedOutputs(messages, 1_000_000, pruned)].sort(),
    ['c1', 'c2', 'c3'],
    'a pruned output stays pruned: the sent prefix stays stable',
  );
  // The newest turn is never pruned, even when it alone is over the budget.
  assert.ok(!choosePrunedOutputs(messages, 0, new Set()).has('c6'));
});

test('issue 10 item 2: the cut never falls on a tool result, always makes progress when it can, and the view stays well formed', () => {
  const messages = reads(8, 2000);
  for (const keep of [0, 100, 600, 1500, 3000, 100_000]) {
    const cut = chooseCut(messages, 0, keep);
    assert.notEqual(messages[cut]?.role, 'tool', `keep ${keep}: cut at ${cut}`);
    const view = contextView(messages, { cut, handoff: 'HANDOFF' }, new Set());
    assert.ok(wellFormed(view), `keep ${keep}: the view is well formed`);
    assert.equal(view[0]?.content, 'HANDOFF');
  }
  // Nothing newer than the current cut but the newest turn: the cut moves to that turn.
  assert.equal(chooseCut(messages, 0, 0), messages.length - 2);
  assert.equal(chooseCut(messages, messages.length - 2, 0), messages.length - 2, 'no progress possible: the cut stays');
  // A generous budget keeps more, but still compacts something.
  const generous = chooseCut(messages, 0, 1500);
  assert.ok(generous > 0 && generous < messages.length - 2, `cut at ${generous}`);
});
