/**
 * Process liveness for tests that prove a process group was killed. A killed orphan can linger
 * as a zombie where the container's init does not reap it; a zombie runs nothing, so it counts
 * as gone.
 */
import { readFileSync } from 'node:fs';

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state ..."; comm may contain spaces, so split after the ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

/** Waits until the process is gone; false if it is still running after `attempts` polls. */
export async function waitUntilGone(pid: number, attempts = 200): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (!isRunning(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return !isRunning(pid);
}
