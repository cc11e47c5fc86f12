/**
 * Messages typed while Zuno works (issue 14 item 7): kept in order, each removable until the run
 * takes it at its next step. Nothing typed is dropped: what the run never took is handed back.
 */
import type { ImagePart } from '../../core/transcript';
import type { QueuedMessage } from '../../webview/protocol';

export class MessageQueue {
  private items: QueuedMessage[] = [];
  private counter = 0;

  constructor(private readonly changed: (items: readonly QueuedMessage[]) => void) {}

  get size(): number {
    return this.items.length;
  }

  list(): readonly QueuedMessage[] {
    return this.items;
  }

  add(text: string, images?: readonly ImagePart[]): QueuedMessage {
    this.counter += 1;
    const item = { id: `queued-${this.counter}`, text, ...(images !== undefined && images.length > 0 ? { images } : {}) };
    this.items = [...this.items, item];
    this.changed(this.items);
    return item;
  }

  /** False when the run already took it (the view's button raced the step). */
  remove(id: string): boolean {
    const before = this.items.length;
    this.items = this.items.filter((item) => item.id !== id);
    if (this.items.length === before) return false;
    this.changed(this.items);
    return true;
  }

  /** Everything queued, in order, emptying the queue. */
  take(): readonly QueuedMessage[] {
    if (this.items.length === 0) return [];
    const taken = this.items;
    this.items = [];
    this.changed(this.items);
    return taken;
  }
}
