/**
 * The sandbox's cost per command (issue 12; target ≤ 30 ms added per call): `true` through the
 * node host's process runner with the default workspace-write plan, against the same `true`
 * without a sandbox, in the same run so load hits both alike. The bwrap probe is taken once before
 * the samples, as a session pays it once.
 *
 * Then the parts, one at a time, so each line says what one step adds to the one before:
 * bwrap started directly (no runner) with a user namespace and the read-only root, then the PID
 * namespace and /proc, the IPC namespace, /dev, the network namespace, the private /tmp, the
 * hardening flags, and the plan's own binds and protections (the real argv). A minimal /dev made
 * of device binds is measured against `--dev` as an alternative. Through the runner: what the
 * runner adds around bwrap, the process limit (a pids cgroup as root, `ulimit` in the command's
 * shell elsewhere) and the network namespace. Last, the JavaScript work per call before the
 * spawn (the plan and the argv, with the disk checks it makes), timed synchronously.
 *
 * Every variant is sampled once per round, in a shuffled order, and medians are reported: these
 * machines are shared, and an order fixed across rounds would give one variant the quiet slots.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
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

/** A Fisher-Yates shuffle driven by a small LCG, so runs are repeatable. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const result = [...items];
  let state = seed;
  for (let index = result.length - 1; index > 0; index--) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const other = state % (index + 1);
    [result[index], result[other]] = [result[other] as T, result[index] as T];
  }
  return result;
}

export default async function bench(): Promise<BenchResult[]> {
  const support = createSandboxSupport();
  const availability = await support.availability();
  if (!availability.available)
    return [{ name: 'sandboxed true', value: Number.NaN, unit: 'ms', detail: `no sandbox here: ${availability.reason}` }];
  const bwrap = sandboxExecutable(availability);
  const workspace = mkdtempSync(join(tmpdir(), 'zuno-bench-sandbox-'));
  // A workspace as a repository has one: its .git is bound read-only (.vscode and .zuno get placeholders).
  mkdirSync(join(workspace, '.git'));
  const runner = createProcessRunner({ sandbox: support });
  const config = parseConfig({});
  const planFor = (): SandboxPlan => {
    const planned = planSandbox({
      config,
      workspaceRoot: workspace,
      ...(support.home !== undefined ? { home: support.home } : {}),
    });
    if (!planned) throw new Error('the default config has a sandbox');
    return planned;
  };
  const plan = planFor();
  const viaRunner = (sandbox: SandboxPlan | undefined) => async (): Promise<number> => {
    const started = performance.now();
    const result = await runner.run({ command: 'true', shell: true, cwd: workspace, ...(sandbox ? { sandbox } : {}) });
    if (result.exitCode !== 0) throw new Error(`true exited ${String(result.exitCode)}`);
    return performance.now() - started;
  };
  const command = ['--', '/bin/sh', '-c', 'true'];
  // Each step is the one before plus one thing, in the order bwrapArguments puts them.
  const steps = {
    root: [bwrap, '--unshare-user', '--ro-bind', '/', '/'],
    pid: ['--unshare-pid', '--proc', '/proc'],
    ipc: ['--unshare-ipc'],
    dev: ['--dev', '/dev'],
    net: ['--unshare-net'],
    tmp: ['--tmpfs', '/tmp'],
    flags: ['--die-with-parent', '--new-session', '--cap-drop', 'ALL'],
  };
  const upTo = (last: keyof typeof steps): string[] => {
    const names = Object.keys(steps) as (keyof typeof steps)[];
    return [...names.slice(0, names.indexOf(last) + 1).flatMap((name) => steps[name]), ...command];
  };
  const deviceBinds = [
    '--tmpfs',
    '/dev',
    ...['null', 'zero', 'full', 'random', 'urandom', 'tty'].flatMap((device) => ['--dev-bind', `/dev/${device}`, `/dev/${device}`]),
    ...[
      ['/proc/self/fd', '/dev/fd'],
      ['/proc/self/fd/0', '/dev/stdin'],
      ['/proc/self/fd/1', '/dev/stdout'],
      ['/proc/self/fd/2', '/dev/stderr'],
    ].flatMap(([target = '', link = '']) => ['--symlink', target, link]),
    '--dir',
    '/dev/shm',
  ];
  const variants = {
    plain: () => spawnTime(['/bin/sh', '-c', 'true']),
    root: () => spawnTime(upTo('root')),
    pid: () => spawnTime(upTo('pid')),
    ipc: () => spawnTime(upTo('ipc')),
    dev: () => spawnTime(upTo('dev')),
    deviceBinds: () => spawnTime([...upTo('ipc').slice(0, -command.length), ...deviceBinds, ...command]),
    net: () => spawnTime(upTo('net')),
    tmp: () => spawnTime(upTo('tmp')),
    flags: () => spawnTime(upTo('flags')),
    wholeArgv: () => spawnTime([bwrap, ...bwrapArguments(plan, workspace), ...command]),
    runnerPlain: viaRunner(undefined),
    runnerNoLimit: viaRunner({ ...plan, maxProcesses: 0 }),
    runnerSandboxed: viaRunner(plan),
    runnerNetworkOn: viaRunner({ ...plan, network: true }),
  };
  type Variant = keyof typeof variants;
  const samples = new Map<Variant, number[]>();
  const load = loadavg()[0] ?? Number.NaN;
  let jsMs = 0;
  try {
    for (const measure of Object.values(variants)) await measure();
    for (let round = 0; round < SAMPLES; round++) {
      for (const name of shuffled(Object.keys(variants) as Variant[], round + 1))
        samples.set(name, [...(samples.get(name) ?? []), await variants[name]()]);
    }
    const started = performance.now();
    for (let round = 0; round < 200; round++) bwrapArguments(planFor(), workspace);
    jsMs = (performance.now() - started) / 200;
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
  const at = (name: Variant): number => median(samples.get(name) ?? []);
  const added = (name: Variant, base: Variant): number => at(name) - at(base);
  const part = (name: string, measured: Variant, base: Variant, detail: string): BenchResult => ({
    name,
    value: added(measured, base),
    unit: 'ms added',
    detail: `${at(measured).toFixed(1)} ms against ${at(base).toFixed(1)} ms; ${detail}`,
  });
  const aroundBwrap = added('runnerNoLimit', 'runnerPlain') - added('wholeArgv', 'plain');
  return [
    {
      name: 'sandboxed `true` (bwrap, workspace-write, network off)',
      value: at('runnerSandboxed'),
      unit: 'ms',
      baseline: { name: 'unsandboxed `true`', value: at('runnerPlain') },
      detail:
        `${added('runnerSandboxed', 'runnerPlain').toFixed(1)} ms added per call (target ≤ 30), medians of ${SAMPLES}, ` +
        `load average ${load.toFixed(2)}, ${availability.detail}`,
    },
    part('part: bwrap, a user namespace and the read-only root', 'root', 'plain', 'against `sh -c true` spawned directly'),
    part('part: + the PID namespace and /proc', 'pid', 'root', '--unshare-pid --proc /proc'),
    part('part: + the IPC namespace', 'ipc', 'pid', '--unshare-ipc'),
    part('part: + /dev', 'dev', 'ipc', '--dev /dev'),
    part('part (alternative): a minimal /dev of device binds instead', 'deviceBinds', 'ipc', '--tmpfs /dev, six --dev-bind, links'),
    part('part: + the network namespace', 'net', 'dev', '--unshare-net (loopback brought up in it)'),
    part('part: + the private /tmp', 'tmp', 'net', '--tmpfs /tmp'),
    part('part: + --die-with-parent, --new-session, --cap-drop ALL', 'flags', 'tmp', 'hardening flags'),
    part(
      "part: + the plan's binds and protections (the real argv)",
      'wholeArgv',
      'flags',
      `workspace, .git read-only, .vscode/.zuno placeholders, ${plan.hidden.length} hidden paths (the existing ones mounted over)`,
    ),
    {
      name: 'part: the runner around bwrap',
      value: aroundBwrap,
      unit: 'ms added',
      detail: "the sandboxed runner's extra over the plain runner's, less bwrap's own cost spawned directly",
    },
    part(
      'part: the process limit, through the runner',
      'runnerSandboxed',
      'runnerNoLimit',
      process.getuid?.() === 0 ? 'a pids cgroup bwrap is born in (root)' : "`ulimit -p`, the shell command's first command",
    ),
    part('part: the network namespace, through the runner', 'runnerSandboxed', 'runnerNetworkOn', 'against sandbox.network on'),
    {
      name: "part: the JavaScript before the spawn (the plan and the argv, the plan's paths checked on disk)",
      value: jsMs,
      unit: 'ms',
      detail: 'per call, synchronous, mean of 200',
    },
  ];
}
