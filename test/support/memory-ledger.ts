/**
 * A CallLedger that keeps everything in memory, in the order it was asked, so tests can check the
 * scheduler's invariants against it: one outcome per call (I5), call-order persistence (I1), and
 * a start that is durable before the tool runs (R3).
 */
import type { CallFinish, CallLedger, CallStart } from '../../src/core/ledger';
import type { ZunoEvent } from '../../src/core/events';

export type LedgerEntry =
  | { readonly op: 'start'; readonly start: CallStart }
  | { readonly op: 'blocked'; readonly start: CallStart; readonly finish: CallFinish }
  | { readonly op: 'finish'; readonly finish: CallFinish }
  | { readonly op: 'event'; readonly event: ZunoEvent };

export interface MemoryLedgerOptions {
  /** Awaited inside recordStart before the start counts as durable (a slow disk). */
  readonly beforeDurable?: (start: CallStart) => Promise<void>;
  /** Makes recordStart reject for the starts it returns true for. */
  readonly failStart?: (start: CallStart) => boolean;
  /** Makes recordFinish and recordBlocked reject for the outcomes it returns true for. */
  readonly failFinish?: (finish: CallFinish) => boolean;
}

export class MemoryLedger implements CallLedger {
  readonly entries: LedgerEntry[] = [];
  private readonly durable = new Set<string>();

  constructor(private readonly options: MemoryLedgerOptions = {}) {}

  async recordStart(start: CallStart): Promise<void> {
    this.entries.push({ op: 'start', start });
    if (this.options.failStart?.(start)) throw new Error(`disk full while recording ${start.callId}`);
    await this.options.beforeDurable?.(start);
    this.durable.add(`${start.callId}#${start.attempt}`);
  }

  async recordBlocked(start: CallStart, finish: CallFinish): Promise<void> {
    if (this.options.failFinish?.(finish)) throw new Error(`disk full while recording ${finish.callId}`);
    this.entries.push({ op: 'blocked', start, finish });
  }

  async recordFinish(finish: CallFinish): Promise<void> {
    if (this.options.failFinish?.(finish)) throw new Error(`disk full while recording ${finish.callId}`);
    this.entries.push({ op: 'finish', finish });
  }

  recordEvent(event: ZunoEvent): void {
    this.entries.push({ op: 'event', event });
  }

  /** True once recordStart for this attempt has resolved. */
  isDurable(callId: string, attempt: number): boolean {
    return this.durable.has(`${callId}#${attempt}`);
  }

  /** Every final outcome recorded, in recording order. */
  finals(): CallFinish[] {
    return this.entries.flatMap((entry) => (entry.op === 'blocked' || entry.op === 'finish' ? [entry.finish] : []));
  }

  starts(callId?: string): CallStart[] {
    return this.entries.flatMap((entry) =>
      entry.op === 'start' && (callId === undefined || entry.start.callId === callId) ? [entry.start] : [],
    );
  }

  events(): ZunoEvent[] {
    return this.entries.flatMap((entry) => (entry.op === 'event' ? [entry.event] : []));
  }
}
