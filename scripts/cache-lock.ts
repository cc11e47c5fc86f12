/**
 * A cross-process lock on a folder in .cache. `npm start`, `npm run package` and every e2e test
 * file (each its own process under node's test runner) may try to install code-server or build
 * the same .vsix at once; the second one must wait for the first, then reuse its result.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const POLL_MS = 200;

function ownerIsAlive(lockDir: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lockDir, 'pid'), 'utf8'));
  } catch {
    // The owner made the folder but has not written its pid yet: treat it as alive.
    return true;
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error: unknown) {
    // EPERM means the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `work` while holding the lock folder `lockDir` (mkdir is atomic). A lock left behind by a
 * process that died is taken over. `onWait` is called once, so callers can say why they pause.
 */
export async function withLock<T>(lockDir: string, work: () => Promise<T>, onWait?: () => void): Promise<T> {
  mkdirSync(dirname(lockDir), { recursive: true });
  let announced = false;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (error: unknown) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!ownerIsAlive(lockDir)) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (!announced) onWait?.();
      announced = true;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}
