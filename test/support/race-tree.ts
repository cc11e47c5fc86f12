/**
 * The stage of the symlink-swap race tests (issue 8 item 4): a workspace whose `dir` the swapper
 * (symlink-swapper.ts, a real process) keeps swapping for a link to `../outside`, and the means
 * to prove afterwards that nothing outside was read, listed, created or changed.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** In the outside copy of `secret.txt` only: a result holding it read outside the workspace. */
export const OUTSIDE_SECRET = 'OUTSIDE-SECRET';
/** A file that exists only outside: a result naming it listed outside the workspace. */
export const OUTSIDE_ONLY = 'outside-only';

/** Every entry below `root`, files by content hash: equal snapshots mean nothing changed. */
export function snapshot(root: string, prefix = ''): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const name of readdirSync(join(root, prefix)).sort()) {
    const relative = join(prefix, name);
    if (lstatSync(join(root, relative)).isDirectory()) Object.assign(entries, { [relative]: 'directory' }, snapshot(root, relative));
    else
      entries[relative] = createHash('sha256')
        .update(readFileSync(join(root, relative)))
        .digest('hex');
  }
  return entries;
}

/** `<base>/ws/dir` and `<base>/outside` with the same file names, different secrets. */
export function plantRaceTree(base: string): { workspace: string; outside: string } {
  const workspace = join(base, 'ws');
  const outside = join(base, 'outside');
  mkdirSync(join(workspace, 'dir'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(workspace, 'dir', 'secret.txt'), 'inside\n');
  writeFileSync(join(workspace, 'dir', 'p.txt'), 'alpha\n');
  writeFileSync(join(outside, 'secret.txt'), `${OUTSIDE_SECRET}\n`);
  writeFileSync(join(outside, 'p.txt'), 'alpha\n');
  writeFileSync(join(outside, `${OUTSIDE_ONLY}.txt`), 'a name that must not be listed\n');
  return { workspace, outside };
}

export interface Swapper {
  /** True until the swapper process exits. */
  readonly running: () => boolean;
  /** Its exit code, and the swaps it reports having made. */
  readonly finished: Promise<{ code: number | null; swaps: number }>;
  readonly kill: () => void;
}

/** Starts the swapper on `workspace`: `swaps` swaps, or fewer by its own deadline. */
export function startSwapper(workspace: string, swaps: number, deadlineMs: number): Swapper {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'symlink-swapper.ts'), workspace, String(swaps), String(deadlineMs)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let running = true;
  let report = '';
  child.stdout.on('data', (chunk: Buffer) => (report += chunk.toString()));
  const finished = new Promise<{ code: number | null; swaps: number }>((resolve) =>
    child.on('exit', (code) => {
      running = false;
      const parsed = report.trim() === '' ? { swaps: 0 } : (JSON.parse(report) as { swaps: number });
      resolve({ code, swaps: parsed.swaps });
    }),
  );
  return { running: () => running, finished, kill: () => void child.kill('SIGKILL') };
}
