/**
 * The sandbox's cost per command (issue 12; target ≤ 30 ms added per call): `true` through the
 * node host's process runner with the default workspace-write plan, against the same `true`
 * without a sandbox, alternated in the same run so load hits both alike. The bwrap probe is
 * taken once before the samples, as a session pays it once.
 *
 * Then the parts, each as bwrap started directly (no runner) against a plain `sh -c true` started
 * the same way: bwrap with its namespaces and the read-only root alone, plus the network
 * namespace, plus /dev, /proc and the private /tmp, plus the plan's binds (the whole argv); and
 * through the runner, the plan without the pids cgroup and without the network namespace. What
 * is left over (the argv's file checks, the cgroup) is reported as its own line.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../src/core/config';
import { planSandbox, type SandboxPlan } from '../src/core/sandbox';
import { createProcessRunner } from '../src/hosts/node/processes';
import { bwrapArguments, createSandboxSupport, sandboxExecutable } from '../src/hosts/node/sandbox';
import type { BenchResult } from './run';

const SAMPLES = 30;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Milliseconds from spawn to exit, stdio ignored, in a new process group as the runner does. */
function spawnTime(argv: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const [command = 'true', ...args] = argv;
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`${argv.join(' ')} exited ${String(code)}`)),
    );
  });
}

export default async function bench(): Promise<BenchResult[]> {
  const support = createSandboxSupport();
  const availability = await support.availability();
  if (!availability.available)
    return [{ name: 'sandboxed true', value: Number.NaN, unit: 'ms', detail: `no sandbox here: ${availability.reason}` }];
  const bwrap = sandboxExecutable(availability);
  const workspace = mkdtempSync(join(tmpdir(), 'zuno-bench-sandbox-'));
  const runner = createProcessRunner({ sandbox: support });
  const defaultPlan = planSandbox({
    config: parseConfig({}),
    workspaceRoot: workspace,
    ...(support.home !== undefined ? { home: support.home } : {}),
  });
  if (!defaultPlan) throw new Error('the default config has a sandbox');
  const plan: SandboxPlan = defaultPlan;
  const viaRunner = (sandbox: SandboxPlan | undefined) => async (): Promise<number> => {
    const started = performance.now();
    const result = await runner.run({ command: 'true', shell: true, cwd: workspace, ...(sandbox ? { sandbox } : {}) });
    if (result.exitCode !== 0) throw new Error(`true exited ${String(result.exitCode)}`);
    return performance.now() - started;
  };
  const command = ['--', '/bin/sh', '-c', 'true'];
  const namespaces = [bwrap, '--unshare-user', '--unshare-pid', '--unshare-ipc', '--ro-bind', '/', '/'];
  const mounts = ['--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  const variants = {
    runnerPlain: viaRunner(undefined),
    runnerSandboxed: viaRunner(plan),
    runnerNoCgroup: viaRunner({ ...plan, maxProcesses: 0 }),
    runnerNetworkOn: viaRunner({ ...plan, network: true }),
    plain: () => spawnTime(['/bin/sh', '-c', 'true']),
    bwrapNamespaces: () => spawnTime([...namespaces, ...command]),
    bwrapNetwork: () => spawnTime([...namespaces, '--unshare-net', ...command]),
    bwrapMounts: () => spawnTime([...namespaces, '--unshare-net', ...mounts, ...command]),
    bwrapWholeArgv: () => spawnTime([bwrap, ...bwrapArguments(plan, workspace), ...command]),
  };
  const samples = new Map<string, number[]>();
  let argvMs = 0;
  try {
    for (const measure of Object.values(variants)) await measure();
    for (let sample = 0; sample < SAMPLES; sample++) {
      for (const [name, measure] of Object.entries(variants)) samples.set(name, [...(samples.get(name) ?? []), await measure()]);
    }
    const started = performance.now();
    for (let round = 0; round < 100; round++) bwrapArguments(plan, workspace);
    argvMs = (performance.now() - started) / 100;
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
  const at = (name: keyof typeof variants): number => median(samples.get(name) ?? []);
  const added = (name: keyof typeof variants, base: keyof typeof variants): string => `${(at(name) - at(base)).toFixed(1)} ms added`;
  const part = (name: string, measured: keyof typeof variants, base: keyof typeof variants, detail: string): BenchResult => ({
    name,
    value: at(measured),
    unit: 'ms',
    baseline: { name: base === 'plain' ? 'plain `sh -c true` (spawned directly)' : 'the step before', value: at(base) },
    detail: `${added(measured, base)}; ${detail}`,
  });
  return [
    {
      name: 'sandboxed `true` (bwrap, workspace-write, network off)',
      value: at('runnerSandboxed'),
      unit: 'ms',
      baseline: { name: 'unsandboxed `true`', value: at('runnerPlain') },
      detail: `${added('runnerSandboxed', 'runnerPlain')} per call (target ≤ 30), medians of ${SAMPLES}, ${availability.detail}`,
    },
    part('part: bwrap, its namespaces and the read-only root', 'bwrapNamespaces', 'plain', 'user, PID and IPC namespaces'),
    part('part: + the network namespace', 'bwrapNetwork', 'bwrapNamespaces', '--unshare-net'),
    part('part: + /dev, /proc and the private /tmp', 'bwrapMounts', 'bwrapNetwork', 'three mounts'),
    part(
      "part: + the plan's binds (the whole argv)",
      'bwrapWholeArgv',
      'bwrapMounts',
      'workspace, .git/.zuno/.vscode, hidden secrets, --cap-drop, --new-session',
    ),
    {
      name: 'part: the pids cgroup, through the runner',
      value: at('runnerSandboxed'),
      unit: 'ms',
      baseline: { name: 'the same plan without the cgroup (max_processes 0)', value: at('runnerNoCgroup') },
      detail: `${added('runnerSandboxed', 'runnerNoCgroup')} (zero where RLIMIT_NPROC binds, i.e. not root)`,
    },
    {
      name: 'part: the network namespace, through the runner',
      value: at('runnerSandboxed'),
      unit: 'ms',
      baseline: { name: 'the same plan with sandbox.network on', value: at('runnerNetworkOn') },
      detail: added('runnerSandboxed', 'runnerNetworkOn'),
    },
    {
      name: "part: the bwrap argv (the plan's paths checked on disk)",
      value: argvMs,
      unit: 'ms',
      detail: 'per call, synchronous, mean of 100',
    },
  ];
}
