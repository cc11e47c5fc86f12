// The context meter in the chat header (issue 10 item 7): used of the window with the model's
// name, the session's tokens and, when model.prices knows the model, its cost; rebuilt the same
// from a snapshot of stored events as from live events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContextMeter } from '../../../media/meter';
import { ViewModel } from '../../../media/view-model';
import type { ZunoEvent } from '../../../src/core/events';
import type { ViewStatus } from '../../../src/webview/protocol';
import { event } from './events';

const status: ViewStatus = { permissionMode: 'strict', modelLabel: 'qwen', running: false };

const usage = (input: number, output: number, extra: Partial<Extract<ZunoEvent, { type: 'usage' }>> = {}): ZunoEvent =>
  event({
    type: 'usage',
    input_tokens: input,
    output_tokens: output,
    context_window: 24_000,
    context_window_source: 'server',
    model: 'qwen2.5-coder',
    ...extra,
  });

test('issue 10 item 7: the meter shows the next request against the window, the model, and the session totals with cost', () => {
  const meter = new ContextMeter();
  assert.equal(meter.label(), undefined, 'nothing before the first request');
  assert.equal(meter.apply(event({ type: 'user-message', text: 'hi' })), false);
  assert.equal(meter.apply(usage(10_000, 200, { estimated_next_input_tokens: 12_000, cached_tokens: 8000, cost_usd: 0.0125 })), true);
  meter.apply(usage(12_000, 300, { estimated_next_input_tokens: 18_000, cost_usd: 0.02 }));
  assert.equal(meter.fill, 0.75);
  assert.equal(meter.label(), 'Context 18,000 / 24,000 tokens (75%) · qwen2.5-coder · Session: 22,000 in (8,000 cached), 500 out, $0.0325');
  // Compaction empties the context; the session totals stay.
  meter.apply(
    event({
      type: 'context-compacted',
      reason: 'threshold',
      message_index: 4,
      tokens_before: 18_000,
      tokens_after: 3000,
      kept: [],
      summary: '',
    }),
  );
  assert.match(meter.label() ?? '', /^Context 3,000 \/ 24,000 tokens \(13%\) · qwen2\.5-coder · Session: 22,000 in/);
});

test('issue 10 item 7: a guessed window says so and names model.context_window; no prices, no cost', () => {
  const meter = new ContextMeter();
  meter.apply(usage(1000, 10, { context_window: 32_768, context_window_source: 'default' }));
  assert.equal(
    meter.label(),
    'Context 1,010 / 32,768 tokens (3%), the window is a guess: set model.context_window · qwen2.5-coder · Session: 1,000 in, 10 out',
  );
});

test('issue 10 item 7: the view model rebuilds the meter from a snapshot as the live events built it, and a usage event redraws the header', () => {
  const events = [event({ type: 'session-started' }), usage(5000, 50, { cost_usd: 0.01 }), usage(6000, 60, { cost_usd: 0.01 })];
  const live = new ViewModel();
  live.receive({ type: 'snapshot', sessionId: 's', events: [], approvals: [], questions: [], status });
  const before = live.chromeVersion;
  for (const next of events) live.receive({ type: 'event', event: next });
  assert.equal(live.chromeVersion, before + 2);
  const reloaded = new ViewModel();
  reloaded.receive({ type: 'snapshot', sessionId: 's', events, approvals: [], questions: [], status });
  assert.equal(reloaded.meter.label(), live.meter.label());
  assert.match(live.meter.label() ?? '', /\$0\.0200$/);
});
