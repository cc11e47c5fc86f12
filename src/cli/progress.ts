/** What `zuno exec` prints on stderr while it runs (without --json) and the usage line at the end. */
import type { ZunoEvent } from '../core/events';
import { formatUsd } from '../core/pricing';

/** Human-readable progress on stderr, for runs without --json; `told` are notices already written there. */
export function progressPrinter(write: (text: string) => void, told: ReadonlySet<string> = new Set()): (event: ZunoEvent) => void {
  const clip = (text: string, max = 160): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
  let lastNotice = '';
  return (event) => {
    switch (event.type) {
      case 'session-started':
        write(`zuno: session ${event.session_id}${event.resumed ? ' (resumed)' : ''} in ${event.workspace ?? ''}\n`);
        break;
      case 'tool-call-requested':
        write(`→ ${event.tool} ${clip(event.arguments.replace(/\s+/g, ' '))}\n`);
        break;
      case 'dispatch-blocked':
        write(`  blocked (${event.category}): ${clip(event.reason, 400)}\n`);
        break;
      case 'tool-call-finished':
        write(
          `  ${event.tool} ${event.call_id}: ${event.outcome}${event.category ? ` (${event.category})` : ''}, ${event.duration_ms} ms${event.truncated ? ', output truncated' : ''}\n`,
        );
        break;
      case 'recovery-notice':
        if (event.text !== lastNotice) write(`${event.text}\n`);
        lastNotice = event.text;
        break;
      case 'notice':
        if (!told.has(event.text)) write(`[${event.level}] ${event.text}\n`);
        break;
      case 'context-compacted':
        write(
          `zuno: context compacted (${event.reason}), about ${event.tokens_before} → ${event.tokens_after} tokens; the handoff keeps ${event.kept.join(', ') || 'nothing'}\n`,
        );
        break;
      case 'session-finished':
        // An error's message is printed once, by exec, in both output modes.
        if ((event.reason === 'step-limit' || event.reason === 'cancelled') && event.message) write(`zuno: ${event.message}\n`);
        break;
      default:
        break;
    }
  };
}

/** Adds up a run's usage events for the line printed when it ends. */
export class UsageTally {
  private requests = 0;
  private input = 0;
  private output = 0;
  private cached = 0;
  private cost: number | undefined;
  private estimated = false;
  private last: Extract<ZunoEvent, { type: 'usage' }> | undefined;

  add(event: ZunoEvent): void {
    if (event.type !== 'usage') return;
    this.requests++;
    this.input += event.input_tokens;
    this.output += event.output_tokens;
    this.cached += event.cached_tokens ?? 0;
    if (event.cost_usd !== undefined) this.cost = (this.cost ?? 0) + event.cost_usd;
    this.estimated ||= event.estimated === true;
    this.last = event;
  }

  /** E.g. `zuno: usage: 3 model requests, 4,210 input tokens (1,024 cached), 96 output; context 1,530 of 32,768 tokens (a guess)`. */
  line(): string | undefined {
    const last = this.last;
    if (!last) return undefined;
    const number = (value: number): string => value.toLocaleString('en-US');
    const cached = this.cached > 0 ? ` (${number(this.cached)} cached)` : '';
    const estimated = this.estimated ? ', estimated where the server reported none' : '';
    const window =
      last.context_window !== undefined
        ? `; context ${number(last.input_tokens + last.output_tokens)} of ${number(last.context_window)} tokens${last.context_window_source === 'default' ? ' (a guess; set model.context_window)' : ''}`
        : '';
    const requests = `${this.requests} model request${this.requests === 1 ? '' : 's'}`;
    const cost = this.cost !== undefined ? `, ${formatUsd(this.cost)} (model.prices)` : '';
    return `zuno: usage: ${requests}, ${number(this.input)} input tokens${cached}, ${number(this.output)} output${cost}${estimated}${window}\n`;
  }
}
