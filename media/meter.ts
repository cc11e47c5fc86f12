/**
 * The context meter in the chat header (issue 10 item 7): how full the model's context is (used
 * of the window, and which model), and what the session has used so far, with its cost when
 * `model.prices` knows the model. Reduced from the `usage` and `context-compacted` events, so a
 * reloaded view rebuilds it from the stored events like everything else. DOM-free.
 */
import type { ZunoEvent } from '../src/core/events';
import { formatUsd } from '../src/core/pricing';

export class ContextMeter {
  /** Tokens the next request is expected to take. */
  used: number | undefined;
  window: number | undefined;
  windowIsGuess = false;
  model: string | undefined;
  requests = 0;
  input = 0;
  output = 0;
  cached = 0;
  cost: number | undefined;

  /** Returns whether the meter changed (the header then redraws). */
  apply(event: ZunoEvent): boolean {
    if (event.type === 'usage') {
      this.requests += 1;
      this.input += event.input_tokens;
      this.output += event.output_tokens;
      this.cached += event.cached_tokens ?? 0;
      if (event.cost_usd !== undefined) this.cost = (this.cost ?? 0) + event.cost_usd;
      this.used = event.estimated_next_input_tokens ?? event.input_tokens + event.output_tokens;
      if (event.context_window !== undefined) this.window = event.context_window;
      this.windowIsGuess = event.context_window_source === 'default';
      if (event.model !== undefined) this.model = event.model;
      return true;
    }
    if (event.type === 'context-compacted') {
      this.used = event.tokens_after;
      return true;
    }
    return false;
  }

  /** Share of the window in use, 0 to 1; undefined before the first usage. */
  get fill(): number | undefined {
    return this.used === undefined || this.window === undefined || this.window === 0 ? undefined : Math.min(1, this.used / this.window);
  }

  /** E.g. `Context 12,345 / 24,000 tokens (51%) · qwen2.5-coder · Session: 45,678 in (1,024 cached), 1,234 out, $0.0123`. */
  label(): string | undefined {
    if (this.requests === 0) return undefined;
    const number = (value: number): string => value.toLocaleString('en-US');
    const parts: string[] = [];
    if (this.used !== undefined && this.window !== undefined) {
      const percent = Math.round((this.fill ?? 0) * 100);
      parts.push(
        `Context ${number(this.used)} / ${number(this.window)} tokens (${percent}%)${this.windowIsGuess ? ', the window is a guess: set model.context_window' : ''}`,
      );
    }
    if (this.model !== undefined) parts.push(this.model);
    const cached = this.cached > 0 ? ` (${number(this.cached)} cached)` : '';
    const cost = this.cost !== undefined ? `, ${formatUsd(this.cost)}` : '';
    parts.push(`Session: ${number(this.input)} in${cached}, ${number(this.output)} out${cost}`);
    return parts.join(' · ');
  }
}
