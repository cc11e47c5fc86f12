// History with dates (issue 14 item 8).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sessionWhen } from '../../../media/history-format';

test("issue 14 item 8: a session's date reads as today, yesterday, a day, or a day of another year", () => {
  const now = new Date(2026, 11, 3, 10, 30);
  assert.equal(sessionWhen(new Date(2026, 11, 3, 9, 5).getTime(), now), 'today 09:05');
  assert.equal(sessionWhen(new Date(2026, 11, 2, 23, 59).getTime(), now), 'yesterday 23:59');
  assert.equal(sessionWhen(new Date(2026, 10, 28, 8, 0).getTime(), now), '28 Nov');
  assert.equal(sessionWhen(new Date(2025, 0, 1, 8, 0).getTime(), now), '1 Jan 2025');
  assert.equal(
    sessionWhen(new Date(2026, 11, 31).getTime(), new Date(2027, 0, 1, 10, 0)),
    'yesterday 00:00',
    'yesterday across a year boundary',
  );
  assert.equal(sessionWhen(Number.NaN, now), '');
});
