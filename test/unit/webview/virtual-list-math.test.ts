// Windowing arithmetic for the transcript (issue 4: "A 2,000-message session stays smooth").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HeightIndex, anchoredScrollTop, captureAnchor, isAtBottom, visibleRange } from '../../../media/virtual-list-math';

function uniform(count: number, height: number): HeightIndex {
  const index = new HeightIndex();
  for (let position = 0; position < count; position += 1) index.push(height);
  return index;
}

test('issue 4 performance: of 2,000 messages only the viewport plus overscan is rendered', () => {
  const index = uniform(2_000, 50);
  assert.equal(index.total(), 100_000);
  const range = visibleRange(index, 50_000, 600, 200);
  // Pixels 49,800..50,800 cover items 996..1016.
  assert.deepEqual(range, { start: 996, end: 1_017 });
  assert.ok(range.end - range.start < 30);
});

test('issue 4 performance: the window clamps at both ends of the list', () => {
  const index = uniform(10, 100);
  assert.deepEqual(visibleRange(index, 0, 250, 100), { start: 0, end: 4 });
  assert.deepEqual(visibleRange(index, 800, 200, 100), { start: 7, end: 10 });
  assert.deepEqual(visibleRange(index, 5_000, 200, 100), { start: 9, end: 10 });
  assert.deepEqual(visibleRange(new HeightIndex(), 0, 500, 100), { start: 0, end: 0 });
});

test('issue 4 performance: offsets follow measured heights, including changes in the middle', () => {
  const index = uniform(5, 10);
  assert.equal(index.offsetOf(5), 50);
  assert.equal(index.set(2, 40), 30);
  assert.equal(index.set(2, 40), 0, 'the same height is no change');
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5].map((position) => index.offsetOf(position)),
    [0, 10, 20, 60, 70, 80],
  );
  assert.equal(index.indexAt(59), 2);
  assert.equal(index.indexAt(60), 3);
  assert.equal(index.indexAt(-5), 0);
  assert.equal(index.indexAt(1_000), 4);
  index.push(20);
  assert.equal(index.total(), 100);
});

test('issue 4 scroll anchoring: when a row above the viewport grows, the reader stays on the same content', () => {
  const index = uniform(100, 50);
  const scrollTop = 2_025; // 25 px into item 40
  const anchor = captureAnchor(index, scrollTop);
  assert.deepEqual(anchor, { index: 40, offset: 25 });
  index.set(10, 250); // a card above expanded by 200 px
  assert.equal(anchoredScrollTop(index, anchor), 2_225);
  index.set(60, 500); // growth below the anchor does not move it
  assert.equal(anchoredScrollTop(index, anchor), 2_225);
});

test('issue 4 scroll anchoring: following the end is detected with a little slack', () => {
  assert.equal(isAtBottom(400, 600, 1_000), true);
  assert.equal(isAtBottom(395, 600, 1_000), true);
  assert.equal(isAtBottom(300, 600, 1_000), false);
});
