/**
 * The virtualized transcript. Only the rows in view (plus overscan) exist in the DOM; the rest
 * are two spacers whose heights come from measured (or, until drawn, estimated) row heights.
 * A row is re-drawn only when its item's version changed. While the reader follows the end, new
 * content keeps the view pinned to the bottom; otherwise the row under the reader's eyes stays
 * put when heights above it change (the browser's own scroll anchoring is off in chat.css).
 */
import { element } from './dom';
import { estimateHeight } from './presentation';
import type { TranscriptItem } from './transcript';
import { HeightIndex, anchoredScrollTop, captureAnchor, isAtBottom, visibleRange, type Anchor } from './virtual-list-math';

/** Rows drawn beyond the viewport, in pixels, so a flick of the wheel never shows a blank gap. */
const OVERSCAN_PIXELS = 800;
/** Measuring can change which rows are visible; a few passes always settle it. */
const MAX_LAYOUT_PASSES = 3;

interface Row {
  readonly element: HTMLElement;
  readonly index: number;
  version: number;
}

export class VirtualList {
  private heights = new HeightIndex();
  private readonly rows = new Map<string, Row>();
  /** Rows to re-draw even though their item did not change (UI state such as an expanded card). */
  private readonly stale = new Set<string>();
  private readonly topSpacer = element('div', { className: 'spacer', attributes: { 'aria-hidden': 'true' } });
  private readonly bottomSpacer = element('div', { className: 'spacer', attributes: { 'aria-hidden': 'true' } });
  private readonly resizeObserver: ResizeObserver;
  private generation = -1;
  private followingEnd = true;

  constructor(
    private readonly scroller: HTMLElement,
    private readonly draw: (item: TranscriptItem) => HTMLElement,
    private readonly requestFrame: () => void,
    private readonly onFollowChange: (following: boolean) => void,
  ) {
    scroller.append(this.topSpacer, this.bottomSpacer);
    // A row that grows or shrinks on its own (an expanded card, a narrower sidebar) is measured again.
    this.resizeObserver = new ResizeObserver(() => this.requestFrame());
    scroller.addEventListener('scroll', () => this.onScroll(), { passive: true });
  }

  /** Re-draws the row of `key` at the next frame even if its item is unchanged. */
  invalidate(key: string): void {
    this.stale.add(key);
    this.requestFrame();
  }

  scrollToEnd(): void {
    this.setFollowing(true);
    this.scroller.scrollTop = this.scroller.scrollHeight;
    this.requestFrame();
  }

  /** Brings the DOM in line with `items`; call once per animation frame. */
  update(items: readonly TranscriptItem[], generation: number): void {
    if (generation !== this.generation) this.reset(generation);
    for (let index = this.heights.count; index < items.length; index += 1) {
      const item = items[index];
      if (item !== undefined) this.heights.push(estimateHeight(item));
    }
    const anchor: Anchor | undefined = this.followingEnd ? undefined : captureAnchor(this.heights, this.scroller.scrollTop);

    for (let pass = 0; pass < MAX_LAYOUT_PASSES; pass += 1) {
      const range = visibleRange(this.heights, this.scroller.scrollTop, this.scroller.clientHeight, OVERSCAN_PIXELS);
      this.reconcile(items, range.start, range.end);
      const changed = this.measure(range.start, range.end);
      this.topSpacer.style.height = `${this.heights.offsetOf(range.start)}px`;
      this.bottomSpacer.style.height = `${this.heights.total() - this.heights.offsetOf(range.end)}px`;
      if (this.followingEnd) this.scroller.scrollTop = this.scroller.scrollHeight;
      else if (anchor !== undefined) this.scroller.scrollTop = anchoredScrollTop(this.heights, anchor);
      if (!changed) break;
    }
    this.stale.clear();
  }

  private reset(generation: number): void {
    for (const row of this.rows.values()) this.removeRow(row);
    this.rows.clear();
    this.heights = new HeightIndex();
    this.generation = generation;
    this.setFollowing(true);
  }

  private reconcile(items: readonly TranscriptItem[], start: number, end: number): void {
    for (const [key, row] of this.rows) {
      if (row.index < start || row.index >= end) {
        this.removeRow(row);
        this.rows.delete(key);
      }
    }
    let cursor: Element = this.topSpacer;
    for (let index = start; index < end; index += 1) {
      const item = items[index];
      if (item === undefined) continue;
      let row = this.rows.get(item.key);
      if (row === undefined) {
        row = { element: element('div', { className: 'row', attributes: { 'data-key': item.key } }), index, version: -1 };
        this.rows.set(item.key, row);
        this.resizeObserver.observe(row.element);
      }
      if (row.version !== item.version || this.stale.has(item.key)) this.redraw(row, item);
      if (cursor.nextSibling !== row.element) cursor.after(row.element);
      cursor = row.element;
    }
  }

  /** Replaces a row's content, keeping keyboard focus on the same control if it had it. */
  private redraw(row: Row, item: TranscriptItem): void {
    const active = document.activeElement;
    const focusKey = active instanceof HTMLElement && row.element.contains(active) ? active.dataset.focusKey : undefined;
    row.element.replaceChildren(this.draw(item));
    row.version = item.version;
    if (focusKey !== undefined) row.element.querySelector<HTMLElement>(`[data-focus-key="${focusKey}"]`)?.focus();
  }

  /** Records the drawn rows' real heights; true if any differed from what the index held. */
  private measure(start: number, end: number): boolean {
    let changed = false;
    for (const row of this.rows.values()) {
      if (row.index < start || row.index >= end) continue;
      if (this.heights.set(row.index, row.element.getBoundingClientRect().height) !== 0) changed = true;
    }
    return changed;
  }

  private removeRow(row: Row): void {
    this.resizeObserver.unobserve(row.element);
    row.element.remove();
  }

  private onScroll(): void {
    this.setFollowing(isAtBottom(this.scroller.scrollTop, this.scroller.clientHeight, this.scroller.scrollHeight));
    this.requestFrame();
  }

  private setFollowing(following: boolean): void {
    if (following === this.followingEnd) return;
    this.followingEnd = following;
    this.onFollowChange(following);
  }
}
