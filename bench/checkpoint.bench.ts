/**
 * Checkpoints on a generated 10,000-file workspace (issue 13): the first checkpoint, a later one
 * after 10 files changed (target ≤ 300 ms), and the disk each uses. The baseline, measured in
 * the same run, is `git status` of the same tree through the same shadow repository: the walk
 * any incremental checkpoint must do at least once.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ShadowCheckpoints } from '../src/hosts/node/checkpoints';
import type { BenchResult } from './run';

const FILES = 10_000;
const PER_FOLDER = 100;
const CHANGED = 10;
const LATER_RUNS = 7;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Bytes of every file below a folder. */
function diskBytes(folder: string): number {
  let total = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    total += entry.isDirectory() ? diskBytes(path) : statSync(path).size;
  }
  return total;
}

const fileText = (index: number, version: number): string =>
  `// file ${index}, version ${version}\n${`export const value${index} = ${version};\n`.repeat(20)}`;

export default async function checkpointBench(): Promise<BenchResult[]> {
  const root = mkdtempSync(join(tmpdir(), 'zuno-checkpoint-bench-'));
  try {
    const workspace = join(root, 'workspace');
    const state = join(root, 'state');
    for (let index = 0; index < FILES; index++) {
      const folder = join(workspace, `module-${Math.floor(index / PER_FOLDER)}`);
      if (index % PER_FOLDER === 0) mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, `file-${index}.ts`), fileText(index, 0));
    }
    // A loaded machine must not turn the cold first checkpoint into a give-up: the bench wants its time.
    const opened = await ShadowCheckpoints.open({ stateDir: state, workspaceRoot: workspace, budgetMs: 600_000 });
    if (!(opened instanceof ShadowCheckpoints)) throw new Error(opened.unavailable);
    const checkpoints = opened;

    let started = performance.now();
    await checkpoints.snapshot({ sessionId: 'bench', kind: 'turn' });
    const firstMillis = performance.now() - started;
    const firstBytes = diskBytes(checkpoints.gitDir);

    const laterMillis: number[] = [];
    const statusMillis: number[] = [];
    let bytesBefore = diskBytes(checkpoints.gitDir);
    const laterBytes: number[] = [];
    for (let run = 1; run <= LATER_RUNS; run++) {
      for (let change = 0; change < CHANGED; change++) {
        const index = (run * 997 + change * 613) % FILES;
        writeFileSync(join(workspace, `module-${Math.floor(index / PER_FOLDER)}`, `file-${index}.ts`), fileText(index, run));
      }
      started = performance.now();
      execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
        env: { ...process.env, GIT_DIR: checkpoints.gitDir, GIT_WORK_TREE: workspace, GIT_CONFIG_NOSYSTEM: '1' },
        cwd: workspace,
        maxBuffer: 64 * 1024 * 1024,
      });
      statusMillis.push(performance.now() - started);
      started = performance.now();
      await checkpoints.snapshot({ sessionId: 'bench', kind: 'turn' });
      laterMillis.push(performance.now() - started);
      const bytes = diskBytes(checkpoints.gitDir);
      laterBytes.push(bytes - bytesBefore);
      bytesBefore = bytes;
    }
    const status = { name: 'git status of the same tree', value: median(statusMillis) };
    return [
      {
        name: 'first checkpoint, 10,000 files',
        value: firstMillis,
        unit: 'ms',
        baseline: status,
        detail: `${(firstBytes / 1024 / 1024).toFixed(1)} MiB in the shadow repository`,
      },
      {
        name: `later checkpoint after ${CHANGED} changed files (median of ${LATER_RUNS}; target ≤ 300 ms)`,
        value: median(laterMillis),
        unit: 'ms',
        baseline: status,
        detail: `runs ${laterMillis.map((value) => value.toFixed(0)).join(', ')} ms`,
      },
      {
        name: 'disk per later checkpoint (loose objects, before gc)',
        value: median(laterBytes) / 1024,
        unit: 'KiB',
        detail: `first checkpoint ${(firstBytes / 1024).toFixed(0)} KiB`,
      },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
