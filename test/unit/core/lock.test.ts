import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FairSharedLock, LockAbortedError } from '../../../src/core/lock';

/** Lets every pending promise callback run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('C1: shared holders overlap up to the cap, and the next waits for a release (I3)', async () => {
  const lock = new FairSharedLock(2);
  const granted: number[] = [];
  const releases = [0, 1, 2].map((index) => lock.acquire('shared').then((release) => (granted.push(index), release)));
  await settle();
  assert.deepEqual(granted, [0, 1]);
  (await releases[0]!)();
  await settle();
  assert.deepEqual(granted, [0, 1, 2]);
});

test('C1: an exclusive request is a two-way barrier in arrival order (I2)', async () => {
  const lock = new FairSharedLock(8);
  const log: string[] = [];
  const first = await lock.acquire('shared');
  const exclusive = lock.acquire('exclusive').then((release) => (log.push('exclusive'), release));
  const later = lock.acquire('shared').then((release) => (log.push('later'), release));
  await settle();
  assert.deepEqual(log, [], 'the exclusive waits for the earlier holder, and the later one waits behind it');
  first();
  await settle();
  assert.deepEqual(log, ['exclusive']);
  assert.deepEqual(lock.holders, { shared: 0, exclusive: true, waiting: 1 });
  (await exclusive)();
  await settle();
  assert.deepEqual(log, ['exclusive', 'later']);
  (await later)();
  assert.deepEqual(lock.holders, { shared: 0, exclusive: false, waiting: 0 });
});

test('C2: an abort while waiting rejects that waiter and lets the ones behind it through', async () => {
  const lock = new FairSharedLock(1);
  const held = await lock.acquire('shared');
  const controller = new AbortController();
  const aborted = lock.acquire('exclusive', controller.signal);
  let laterGranted = false;
  const later = lock.acquire('shared').then((release) => ((laterGranted = true), release));
  controller.abort();
  await assert.rejects(aborted, LockAbortedError);
  held();
  (await later)();
  assert.equal(laterGranted, true);
  await assert.rejects(lock.acquire('shared', controller.signal), LockAbortedError, 'an aborted signal is refused at once');
});

test('C2: releasing twice does not free a slot twice', async () => {
  const lock = new FairSharedLock(1);
  const release = await lock.acquire('shared');
  release();
  release();
  const again = await lock.acquire('shared');
  let second = false;
  void lock.acquire('shared').then(() => (second = true));
  await settle();
  assert.equal(second, false);
  again();
  await settle();
  assert.equal(second, true);
});

test('C3: a cap below 1 is refused', () => {
  assert.throws(() => new FairSharedLock(0), RangeError);
});
