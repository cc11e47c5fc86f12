/**
 * The arithmetic of the virtualized transcript: item heights, their running offsets, which items
 * a viewport needs, and how to keep the content under the reader's eyes still when heights above
 * it change. DOM-free so the windowing is tested in node; media/virtual-list.ts applies it.
 */

export class HeightIndex {
  private readonly heights: number[] = [];
  /** offsets[i] is the sum of heights[0..i); valid up to `validUpTo`, recomputed lazily. */
  private readonly offsets: number[] = [0];
  private validUpTo = 0;

  get count(): number {
    return this.heights.length;
  }

  push(height: number): void {
    this.heights.push(height);
  }

  /** Records a measured height; returns how much it changed (0 if it did not). */
  set(index: number, height: number): number {
    const previous = this.heights[index];
    if (previous === undefined || previous === height) return 0;
    this.heights[index] = height;
    if (index < this.validUpTo) this.validUpTo = index;
    return height - previous;
  }

  /** The top of item `index`; `offsetOf(count)` is the total height. */
  offsetOf(index: number): number {
    const target = Math.max(0, Math.min(index, this.heights.length));
    for (let position = this.validUpTo; position < target; position += 1) {
      this.offsets[position + 1] = (this.offsets[position] ?? 0) + (this.heights[position] ?? 0);
    }
    if (target > this.validUpTo) this.validUpTo = target;
    return this.offsets[target] ?? 0;
  }

  total(): number {
    return this.offsetOf(this.heights.length);
  }

  /** The item covering pixel `y` (clamped to the list); binary search over the offsets. */
  indexAt(y: number): number {
    const count = this.heights.length;
    if (count === 0) return 0;
    this.offsetOf(count);
    let low = 0;
    let high = count - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.offsets[middle] ?? 0) <= y) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}

export interface Range {
  /** First item to render. */
  readonly start: number;
  /** One past the last item to render. */
  readonly end: number;
}

/**
 * The items a viewport shows, plus `overscan` pixels above and below so a small scroll never
 * reveals an empty gap before the next frame draws.
 */
export function visibleRange(index: HeightIndex, scrollTop: number, viewportHeight: number, overscan: number): Range {
  if (index.count === 0) return { start: 0, end: 0 };
  const start = index.indexAt(Math.max(0, scrollTop - overscan));
  const last = index.indexAt(scrollTop + viewportHeight + overscan);
  return { start, end: last + 1 };
}

/** The item at the top of the viewport and how far into it the viewport starts. */
export interface Anchor {
  readonly index: number;
  readonly offset: number;
}

export function captureAnchor(index: HeightIndex, scrollTop: number): Anchor {
  const anchorIndex = index.indexAt(scrollTop);
  return { index: anchorIndex, offset: scrollTop - index.offsetOf(anchorIndex) };
}

/** The scrollTop that puts the anchor back where it was after heights above it changed. */
export function anchoredScrollTop(index: HeightIndex, anchor: Anchor): number {
  return index.offsetOf(anchor.index) + anchor.offset;
}

/**
 * Whether the reader is following the end of the transcript. A few pixels of slack, because
 * fractional zoom levels leave scrollTop a little short of the true bottom.
 */
export function isAtBottom(scrollTop: number, viewportHeight: number, scrollHeight: number, slack = 8): boolean {
  return scrollHeight - (scrollTop + viewportHeight) <= slack;
}
