/**
 * One writer per state dir. Two processes appending to the same journal would interleave
 * transactions that each believed it saw the whole store (OpenCode's SQLITE_BUSY and lost
 * sessions). The lock is a file naming its owner; a lock left by a dead process is taken over.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StateDirInUseError } from './errors';

export const LOCK_FILE = 'lock';

interface LockOwner {
  readonly pid: number;
  readonly host: string;
  /** Tells apart two stores of one process, and a lock from its successor. */
  readonly token: string;
}

export interface LockHandle {
  readonly path: string;
  release(): void;
}

function readOwner(path: string): LockOwner | undefined | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (typeof value.pid === 'number' && typeof value.host === 'string' && typeof value.token === 'string') {
      return { pid: value.pid, host: value.host, token: value.token };
    }
  } catch {
    // Reported below: a lock we cannot read is never taken over silently.
  }
  return 'unreadable';
}

/** Whether the owner may still be writing. Another host's process cannot be checked, so it counts as alive. */
function isAlive(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** What a lock guards, for its messages: the whole state dir, or one session in it. */
export interface LockSubject {
  /** Starts the message: "The state dir /x", "The session abc in /x". */
  readonly name: string;
  /** What else the user can do besides waiting. */
  readonly alternative: string;
}

const stateDirSubject = (stateDir: string): LockSubject => ({ name: `The state dir ${stateDir}`, alternative: 'use another --state-dir' });

function inUse(subject: LockSubject, path: string, owner: LockOwner): StateDirInUseError {
  const who =
    owner.pid === process.pid && owner.host === hostname()
      ? `pid ${owner.pid} (this process, through another open store)`
      : `pid ${owner.pid}${owner.host === hostname() ? '' : ` on ${owner.host}`}`;
  return new StateDirInUseError(
    `${subject.name} is in use by ${who}. Only one Zuno process may write it at a time; ` +
      `wait for that one to finish, or ${subject.alternative}. If no such process is running, delete ${path}.`,
    owner.pid,
  );
}

/**
 * Takes the write lock of `stateDir` or throws StateDirInUseError naming the owner. The lock
 * file appears whole (written aside, then hard-linked into place), so nobody reads it half
 * written.
 */
export function acquireLock(stateDir: string, subject: LockSubject = stateDirSubject(stateDir)): LockHandle {
  const path = join(stateDir, LOCK_FILE);
  const mine: LockOwner = { pid: process.pid, host: hostname(), token: randomUUID() };
  const draft = `${path}.${mine.token}`;
  writeFileSync(draft, JSON.stringify(mine));
  try {
    // A few rounds cover a lock that vanishes or goes stale between our look and our move.
    for (let round = 0; round < 5; round++) {
      try {
        linkSync(draft, path);
        return { path, release: () => releaseLock(path, mine) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = readOwner(path);
      if (owner === undefined) continue;
      if (owner === 'unreadable') {
        throw new StateDirInUseError(`The lock file ${path} cannot be read. If no Zuno process is using ${stateDir}, delete it.`, 0);
      }
      if (isAlive(owner)) throw inUse(subject, path, owner);
      takeOverStale(subject, path, owner, mine);
    }
    throw new StateDirInUseError(`Could not take the lock ${path}: other processes keep taking it. Try again.`, 0);
  } finally {
    unlinkSync(draft);
  }
}

/**
 * Moves a stale lock aside. Rename is atomic, so of two processes racing for the same stale
 * lock only one moves it; if what was moved turns out to be a fresh lock of a live process (it
 * replaced the stale one in between), it is put back and that owner is reported.
 */
function takeOverStale(subject: LockSubject, path: string, stale: LockOwner, mine: LockOwner): void {
  const aside = `${path}.stale.${mine.token}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = readOwner(aside);
  try {
    if (moved !== undefined && moved !== 'unreadable' && moved.token !== stale.token && isAlive(moved)) {
      try {
        linkSync(aside, path);
      } catch {
        // Someone else holds it now; either way the state dir is in use.
      }
      throw inUse(subject, path, moved);
    }
  } finally {
    unlinkSync(aside);
  }
}

/** Removes the lock only if it is still ours, so a release can never free someone else's lock. */
function releaseLock(path: string, mine: LockOwner): void {
  const owner = readOwner(path);
  if (owner !== undefined && owner !== 'unreadable' && owner.token === mine.token) unlinkSync(path);
}
