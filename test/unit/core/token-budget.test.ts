// The next request's size, estimated before it is sent (issue 10 item 1): the last reported
// usage is exact up to the answer; only what was appended since is counted at chars/4.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimateRequest, estimateTokens, messageCharacters, RequestEstimator } from '../../../src/core/token-budget';
import { costUsd, formatUsd, priceFor } from '../../../src/core/pricing';
import type { TranscriptMessage } from '../../../src/core/transcript';

test('issue 10 item 1: with no usage yet, everything is estimated at four characters a token, tools included', () => {
  const estimator = new RequestEstimator();
  const tools = [{ name: 'read', description: 'x'.repeat(100) }];
  const messages: TranscriptMessage[] = [{ role: 'user', content: 'y'.repeat(400) }];
  const expected = estimateTokens('s'.repeat(40).length + JSON.stringify(tools).length + 400);
  assert.equal(estimator.estimate({ system: 's'.repeat(40), tools, messages }), expected);
  assert.equal(estimateTokens(401), 101);
});

test('issue 10 item 1: after a reported usage, the estimate is input + output + the appended messages at chars/4', () => {
  const estimator = new RequestEstimator();
  const messages: TranscriptMessage[] = [{ role: 'user', content: 'read it' }];
  estimator.record(messages.length, 5000, 40);
  messages.push({ role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read', arguments: '{"path":"a.txt"}' }] });
  // The answer's own tokens are the reported output, so the assistant message adds nothing more.
  assert.equal(estimator.estimate({ system: 'ignored now', tools: [], messages }), 5040);
  messages.push({ role: 'tool', callId: 'c1', toolName: 'read', content: 'z'.repeat(4000) });
  assert.equal(estimator.estimate({ system: 'ignored now', tools: [], messages }), 5040 + 1000);
});

test('issue 10 item 1: a transcript shorter than the anchor (rebuilt elsewhere) is estimated from scratch', () => {
  const estimator = new RequestEstimator();
  estimator.record(10, 90_000, 100);
  const messages: TranscriptMessage[] = [{ role: 'user', content: 'q'.repeat(80) }];
  assert.equal(estimator.estimate({ system: '', tools: [], messages }), estimateTokens(2 + 80));
});

test('issue 10 item 1: an assistant message counts its text and its calls', () => {
  assert.equal(messageCharacters({ role: 'assistant', content: 'ab', toolCalls: [{ id: 'x', name: 'read', arguments: '{}' }] }), 2 + 4 + 2);
  assert.equal(messageCharacters({ role: 'tool', callId: 'x', toolName: 'read', content: 'abc' }), 3);
});

test('issue 10 item 2: a reported usage calibrates whole-request estimates, and reset drops the anchor after a prune or compaction', () => {
  const estimator = new RequestEstimator();
  const messages: TranscriptMessage[] = [{ role: 'user', content: 'y'.repeat(4000) }];
  const shape = { system: '', tools: [], messages };
  const measured = estimateRequest(shape);
  // The server counted half again as many tokens as chars/4 (escaping, wire overhead).
  estimator.record(messages.length, Math.round(measured * 1.5), 10, measured);
  assert.equal(estimator.measure(shape), Math.ceil(measured * 1.5));
  estimator.reset();
  assert.equal(estimator.estimate(shape), Math.ceil(measured * 1.5), 'without the anchor, the calibrated whole-request estimate');
});

test('issue 10 item 7: a request costs its uncached, cached, cache-write and output tokens at the model.prices rates', () => {
  const price = { input: 3, output: 15, cached_input: 0.3, cache_write: 3.75 };
  // 1M input of which 600k cached and 100k written: 300k × 3 + 600k × 0.3 + 100k × 3.75 + 10k × 15, per million.
  const cost = costUsd({ inputTokens: 1_000_000, outputTokens: 10_000, cachedTokens: 600_000, cacheWriteTokens: 100_000 }, price);
  assert.ok(Math.abs(cost - 1.605) < 1e-9, String(cost));
  assert.equal(
    costUsd({ inputTokens: 1_000_000, outputTokens: 0, cachedTokens: 500_000 }, { input: 2, output: 8 }),
    2,
    'cached at the input price when no cached price is given',
  );
  assert.equal(priceFor({ 'gpt-4o': price }, 'openai/gpt-4o'), price, 'an OpenRouter id finds the entry after its vendor/ prefix');
  assert.equal(priceFor({ 'gpt-4o': price }, 'gpt-4o-mini'), undefined);
  assert.equal(formatUsd(0.00421), '$0.0042');
  assert.equal(formatUsd(12.345), '$12.35');
});
