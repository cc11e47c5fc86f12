// The one-writer lock's edge cases; the live-owner and dead-owner cases with real processes are
// in test/integration/store/process.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StateDirInUseError } from '../../../src/store/errors';
import { LOCK_FILE, acquireLock } from '../../../src/store/lock';
import { temporaryDirectory } from '../../support/store-fixtures';

test('issue 2 §8: one writer: a lock file that cannot be read is never taken over silently', (context) => {
  const stateDir = temporaryDirectory(context);
  writeFileSync(join(stateDir, LOCK_FILE), 'garbage');
  assert.throws(
    () => acquireLock(stateDir),
    (error: unknown) =>
      error instanceof StateDirInUseError && error.message.includes(`The lock file ${join(stateDir, LOCK_FILE)} cannot be read`),
  );
  assert.equal(readFileSync(join(stateDir, LOCK_FILE), 'utf8'), 'garbage');
});

test('issue 2 §8: one writer: a lock held on another host counts as in use, since its pid cannot be checked there', (context) => {
  const stateDir = temporaryDirectory(context);
  writeFileSync(join(stateDir, LOCK_FILE), JSON.stringify({ pid: 4242, host: 'elsewhere.example', token: 't' }));
  assert.throws(
    () => acquireLock(stateDir),
    (error: unknown) =>
      error instanceof StateDirInUseError && error.ownerPid === 4242 && /in use by pid 4242 on elsewhere\.example/.test(error.message),
  );
});

test('issue 2 §8: one writer: releasing removes only our own lock, and leaves no draft files behind', (context) => {
  const stateDir = temporaryDirectory(context);
  const lock = acquireLock(stateDir);
  const successor = JSON.stringify({ pid: process.pid, host: 'elsewhere.example', token: 'someone-else' });
  writeFileSync(lock.path, successor);
  lock.release();
  assert.equal(readFileSync(lock.path, 'utf8'), successor, 'a lock that is no longer ours stays');

  const other = temporaryDirectory(context);
  const own = acquireLock(other);
  assert.deepEqual(readdirSync(other), [LOCK_FILE]);
  own.release();
  assert.equal(existsSync(own.path), false);
  assert.deepEqual(readdirSync(other), []);
});
