/**
 * The scheduler's one lock (SPEC C1, C2): a first-come, first-served reader/writer lock with a
 * cap on readers. Non-exclusive calls take it shared, Exclusive calls take it exclusive. Because
 * grants follow the queue strictly, an exclusive request is a two-way barrier: it waits for every
 * earlier holder to release, and everything queued after it waits for it. At most `maxShared`
 * shared holders run at once (C3's `concurrency.tool_calls`).
 */

export type LockMode = 'shared' | 'exclusive';

interface Waiter {
  readonly mode: LockMode;
  readonly grant: (release: () => void) => void;
  readonly detach: () => void;
}

export class LockAbortedError extends Error {
  override readonly name = 'LockAbortedError';
}

export class FairSharedLock {
  private readonly queue: Waiter[] = [];
  private shared = 0;
  private exclusive = false;

  constructor(private readonly maxShared: number) {
    if (!Number.isInteger(maxShared) || maxShared < 1) throw new RangeError(`maxShared must be a positive integer (got ${maxShared})`);
  }

  /** Holders right now, for tests and diagnostics. */
  get holders(): { readonly shared: number; readonly exclusive: boolean; readonly waiting: number } {
    return { shared: this.shared, exclusive: this.exclusive, waiting: this.queue.length };
  }

  /**
   * Waits for the lock in arrival order and resolves with its release function (idempotent).
   * Rejects with LockAbortedError if `signal` aborts while still waiting.
   */
  acquire(mode: LockMode, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(new LockAbortedError('aborted before the lock was granted'));
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.queue.indexOf(waiter);
        if (index === -1) return;
        this.queue.splice(index, 1);
        reject(new LockAbortedError('aborted while waiting for the lock'));
        // The departed waiter may have been holding up the ones behind it.
        this.pump();
      };
      const waiter: Waiter = {
        mode,
        grant: resolve,
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
      this.pump();
    });
  }

  private pump(): void {
    for (let head = this.queue[0]; head; head = this.queue[0]) {
      if (head.mode === 'exclusive' ? this.exclusive || this.shared > 0 : this.exclusive || this.shared >= this.maxShared) return;
      this.queue.shift();
      head.detach();
      if (head.mode === 'exclusive') this.exclusive = true;
      else this.shared++;
      head.grant(this.releaser(head.mode));
    }
  }

  private releaser(mode: LockMode): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (mode === 'exclusive') this.exclusive = false;
      else this.shared--;
      this.pump();
    };
  }
}
