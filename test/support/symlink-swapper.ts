/**
 * The attacker of the symlink-swap race (issue 8 item 4), as a real process beside the calls:
 * it swaps `<workspace>/dir` between the real folder and a symlink to `../outside`, by renames,
 * as fast as it can, for a fixed number of swaps or until its deadline, then restores the real
 * folder and exits. It prints one JSON line: `{"swaps": N}`.
 *
 * Usage: node --import tsx symlink-swapper.ts <workspace> <swaps> <deadline-ms>
 *
 * A write that lands while `dir` is briefly missing creates a new folder there; the swapper
 * moves such a stray aside (inside the workspace) and goes on.
 */
import { existsSync, renameSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

const [workspace = '', swapsArgument = '0', deadlineArgument = '0'] = process.argv.slice(2);
const wanted = Number(swapsArgument);
const deadline = Date.now() + Number(deadlineArgument);
const dir = join(workspace, 'dir');
const parked = join(workspace, 'dir.real');
const link = join(workspace, 'dir.link');
let strays = 0;

if (!existsSync(link)) symlinkSync('../outside', link);

/** Renames, moving aside a folder that a write created at `to` while it was missing. */
function move(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch {
    renameSync(to, join(workspace, `dir.stray-${++strays}`));
    renameSync(from, to);
  }
}

// Holds each state now and then (about as often for the link as for the real folder), so the
// calls meet both instead of the swapper finishing before the first call starts.
const pause = new Int32Array(new SharedArrayBuffer(4));
const hold = (): void => void Atomics.wait(pause, 0, 0, 1);
let swaps = 0;
while (swaps < wanted && Date.now() < deadline) {
  move(dir, parked);
  move(link, dir); // `dir` now leads outside
  if (++swaps % 4 === 1) hold();
  move(dir, link);
  move(parked, dir); // `dir` is the real folder again
  if (++swaps % 4 === 0) hold();
}
process.stdout.write(`${JSON.stringify({ swaps, strays })}\n`);
