/**
 * The sandbox's cost per command (issue 12; target ≤ 30 ms added per call): `true` through the
 * node host's process runner with the default workspace-write plan, against the same `true`
 * without a sandbox, alternated in the same run so load hits both alike. The bwrap probe is
 * taken once before the samples, as a session pays it once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../src/core/config';
import { planSandbox } from '../src/core/sandbox';
import { createProcessRunner } from '../src/hosts/node/processes';
import { createSandboxSupport } from '../src/hosts/node/sandbox';
import type { BenchResult } from './run';

const SAMPLES = 30;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export default async function bench(): Promise<BenchResult[]> {
  const support = createSandboxSupport();
  const availability = await support.availability();
  if (!availability.available)
    return [{ name: 'sandboxed true', value: Number.NaN, unit: 'ms', detail: `no sandbox here: ${availability.reason}` }];
  const workspace = mkdtempSync(join(tmpdir(), 'zuno-bench-sandbox-'));
  const runner = createProcessRunner({ sandbox: support });
  const plan = planSandbox({
    config: parseConfig({}),
    workspaceRoot: workspace,
    ...(support.home !== undefined ? { home: support.home } : {}),
  });
  const time = async (sandboxed: boolean): Promise<number> => {
    const started = performance.now();
    const result = await runner.run({ command: 'true', shell: true, cwd: workspace, ...(sandboxed && plan ? { sandbox: plan } : {}) });
    if (result.exitCode !== 0) throw new Error(`true exited ${String(result.exitCode)}`);
    return performance.now() - started;
  };
  const plain: number[] = [];
  const sandboxed: number[] = [];
  try {
    await time(true);
    await time(false);
    for (let sample = 0; sample < SAMPLES; sample++) {
      plain.push(await time(false));
      sandboxed.push(await time(true));
    }
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
  const base = median(plain);
  const withSandbox = median(sandboxed);
  return [
    {
      name: 'sandboxed `true` (bwrap, workspace-write, network off)',
      value: withSandbox,
      unit: 'ms',
      baseline: { name: 'unsandboxed `true`', value: base },
      detail: `${(withSandbox - base).toFixed(1)} ms added per call (target ≤ 30), medians of ${SAMPLES}, ${availability.detail}`,
    },
  ];
}
