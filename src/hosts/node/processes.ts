/**
 * Child processes on execa. Each command gets its own process group, so a timeout or a cancel
 * kills everything it started, not just the shell. Completion means the process exited: pipes
 * held open by a background child are drained briefly and then abandoned, never waited on.
 */
import { DEFAULT_ENVIRONMENT_POLICY, filterEnvironment } from '../../core/environment';
import type { ProcessResult, ProcessRunner, ProcessSpec, OutputStream } from '../../core/host';
import type { SandboxSupport } from '../../core/sandbox';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duplex, type Readable } from 'node:stream';
import { pinDirectory, type VerificationMode } from './fs';
import {
  bwrapArguments,
  createProcessLimit,
  expandWritableGlobs,
  SANDBOX_BLOCK_FD,
  SANDBOX_INFO_FD,
  SANDBOX_TEMP,
  sandboxExecutable,
  seatbeltProfile,
  type ProcessLimit,
} from './sandbox';

type ExecaModule = typeof import('execa');

// execa is ESM-only. A static import works in the esbuild bundle but not under tsx's CJS loader
// (execa's own dependencies export only an `import` condition), and a dynamic import works in both.
let execaModule: Promise<ExecaModule> | undefined;
const loadExeca = (): Promise<ExecaModule> => (execaModule ??= import('execa'));

/** How long the pipes are still read after the process exited, for output already in flight. */
const DRAIN_AFTER_EXIT_MS = 150;
/** How long a group gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 1500;

const isWindows = process.platform === 'win32';

/** Sends a signal to a whole process group; false when the group no longer exists. */
function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * SIGTERM to the group now, SIGKILL after a grace period for whatever ignored it. The SIGKILL is
 * not polled for: orphans are not always reaped (a container's init may not), and a zombie would
 * look alive to `kill(pid, 0)`.
 */
function killGroup(pid: number): void {
  if (isWindows) {
    void loadExeca().then(({ execa }) => execa('taskkill', ['/pid', String(pid), '/T', '/F'], { reject: false }));
    return;
  }
  if (signalGroup(pid, 'SIGTERM')) setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
}

/** The command and arguments that make the child write stderr into its stdout pipe. */
function withMergedStderr(spec: ProcessSpec): { readonly command: string; readonly args: readonly string[]; readonly shell: boolean } {
  const shell = spec.shell ?? false;
  if (!spec.mergeStderr || isWindows) return { command: spec.command, args: spec.args ?? [], shell };
  if (shell) return { command: `exec 2>&1; ${spec.command}`, args: [], shell };
  return { command: '/bin/sh', args: ['-c', 'exec 2>&1; exec "$0" "$@"', spec.command, ...(spec.args ?? [])], shell: false };
}

interface Launch {
  readonly command: string;
  readonly args: readonly string[];
  readonly shell: boolean;
  /** Laid over the child's environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Undoes what the sandbox set up for this child (a temp dir, a cgroup), once it is gone. */
  readonly cleanup?: () => Promise<void>;
  /** The pids cgroup the command starts in (`ProcessLimit`). */
  readonly limit?: ProcessLimit;
}

/**
 * The launch as an argv, with the process-count limit set inside the sandbox before the command
 * starts: `ulimit -p` in dash, `-u` in bash. Counted per user namespace, so it bounds this
 * command's processes only. The kernel does not apply it to root; a pids cgroup does that where
 * one can be made (then `maxProcesses` is 0 here). A shell command gets it as its first command,
 * in its own shell; anything else through a shell that sets it and execs the command.
 */
function sandboxArgv(launch: Launch, maxProcesses: number): readonly string[] {
  if (maxProcesses <= 0) return launch.shell ? ['/bin/sh', '-c', launch.command] : [launch.command, ...launch.args];
  const limit = `ulimit -p ${maxProcesses} 2>/dev/null || ulimit -u ${maxProcesses} 2>/dev/null`;
  if (launch.shell) return ['/bin/sh', '-c', `${limit}; ${launch.command}`];
  return ['/bin/sh', '-c', `${limit}; exec "$@"`, 'sh', launch.command, ...launch.args];
}

/** The cgroup goes once its last process has: off the call's path, which must not wait for the kernel's teardown. */
const releaseLater = (limit: { release(): Promise<void> }) => async (): Promise<void> => {
  void limit.release();
};

/** Wraps a launch in the plan's sandbox; rejects, running nothing, when the sandbox cannot be used. */
async function sandboxed(
  launch: Launch,
  spec: ProcessSpec,
  support: SandboxSupport | undefined,
  processLimit: (max: number) => ProcessLimit | undefined,
): Promise<Launch> {
  const plan = spec.sandbox;
  if (!plan) return launch;
  const availability = support ? await support.availability(plan.bwrapPath) : undefined;
  if (!availability?.available) {
    throw new Error(
      `Nothing ran: the command was to run in the sandbox, and the sandbox cannot be used here${availability ? ` (${availability.reason})` : ''}.`,
    );
  }
  const executable = sandboxExecutable(availability);
  if (availability.mechanism === 'bubblewrap') {
    const limit = plan.maxProcesses > 0 ? processLimit(plan.maxProcesses) : undefined;
    // A pids cgroup bounds everything already; the rlimit is what binds where none is needed or can be made.
    const argv = sandboxArgv(launch, limit ? 0 : plan.maxProcesses);
    return {
      command: executable,
      args: [...(limit?.kind === 'admitted' ? limit.bwrapArguments : []), ...bwrapArguments(plan, spec.cwd), '--', ...argv],
      shell: false,
      env: { TMPDIR: SANDBOX_TEMP },
      ...(limit ? { limit, cleanup: releaseLater(limit) } : {}),
    };
  }
  const temporary = await mkdtemp(join(tmpdir(), 'zuno-sandbox-'));
  return {
    command: executable,
    args: [
      '-p',
      seatbeltProfile({ ...plan, writable: [...plan.writable, ...expandWritableGlobs(plan)] }, temporary),
      ...sandboxArgv(launch, plan.maxProcesses),
    ],
    shell: false,
    env: { TMPDIR: temporary },
    cleanup: () => rm(temporary, { recursive: true, force: true }),
  };
}

/** Forwards a pipe's bytes as text, reassembling UTF-8 sequences split across chunks. */
function decode(stream: Readable | null, name: OutputStream, onOutput: ProcessSpec['onOutput']): Promise<void> {
  if (!stream) return Promise.resolve();
  const decoder = new TextDecoder('utf-8');
  stream.on('data', (chunk: Buffer) => {
    const text = decoder.decode(chunk, { stream: true });
    if (text.length > 0) onOutput?.(text, name);
  });
  return new Promise((resolve) => {
    const finish = (): void => {
      const rest = decoder.decode();
      if (rest.length > 0) onOutput?.(rest, name);
      resolve();
    };
    stream.once('close', finish);
  });
}

export interface ProcessRunnerOptions {
  /**
   * The environment every child inherits before `spec.env` is laid over it. Every spawn goes
   * through here, so no path (shell, background, task, hook) can forget the secret filter; the
   * default is this process's environment without secrets (core/environment.ts).
   */
  readonly environment?: () => Readonly<Record<string, string>>;
  /** How a `verifiedCwd` is tied to its check; tests force `identity` to exercise the portable path on Linux. */
  readonly verification?: VerificationMode;
  /** Applies `ProcessSpec.sandbox`; without it a spec with a sandbox is refused. */
  readonly sandbox?: SandboxSupport;
  /** Makes a sandboxed command's pids cgroup; tests force the cgroup v2 way (`admitted`) on v1. */
  readonly processLimit?: (maxProcesses: number) => ProcessLimit | undefined;
}

/** This process's environment, secrets dropped by the default policy. */
export const defaultChildEnvironment = (): Record<string, string> => filterEnvironment(process.env, DEFAULT_ENVIRONMENT_POLICY);

export function createProcessRunner(options: ProcessRunnerOptions = {}): ProcessRunner {
  const environment = options.environment ?? defaultChildEnvironment;
  return {
    async run(spec: ProcessSpec): Promise<ProcessResult> {
      const started = performance.now();
      const elapsed = (): number => Math.round(performance.now() - started);
      if (spec.signal?.aborted) {
        return { exitCode: null, signal: null, timedOut: false, cancelled: true, durationMs: 0 };
      }
      const { execa } = await loadExeca();
      const launch = await sandboxed(withMergedStderr(spec), spec, options.sandbox, options.processLimit ?? createProcessLimit);
      // Held open until the child is gone: on Linux the child changes into the descriptor itself.
      const pinned = spec.verifiedCwd ? await pinDirectory(spec.cwd, options.verification) : undefined;
      const { limit } = launch;
      let spawnedPid: number | undefined;
      const start = () => {
        const child = execa(launch.command, launch.args, {
          cwd: pinned?.cwd ?? spec.cwd,
          shell: launch.shell,
          // Not extended from process.env: the child sees exactly the filtered environment.
          env: { ...environment(), ...spec.env, ...launch.env },
          extendEnv: false,
          // A new group on POSIX; on Windows `detached` would open a console window instead.
          detached: !isWindows,
          ...(spec.stdin !== undefined ? { input: spec.stdin } : {}),
          // Beyond stderr: bwrap's info and block descriptors, when the command waits for its cgroup.
          stdio: [
            spec.stdin !== undefined ? 'pipe' : 'ignore',
            'pipe',
            'pipe',
            ...(limit?.kind === 'admitted' ? (['pipe', 'pipe'] as const) : []),
          ],
          buffer: false,
          reject: false,
        });
        spawnedPid = child.pid;
        return child;
      };
      let subprocess: ReturnType<typeof start>;
      if (limit?.kind !== 'born-inside') subprocess = start();
      else
        try {
          subprocess = limit.spawnInside(start);
        } catch (error) {
          // The cgroup could not be entered (nothing started), or this thread could not leave it: then
          // the command is killed before it runs unwatched.
          if (spawnedPid !== undefined) signalGroup(spawnedPid, 'SIGKILL');
          await pinned?.close();
          await launch.cleanup?.();
          throw new Error(`Nothing ran: the sandbox could not put the command in its process-count cgroup (${String(error)}).`);
        }
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
        subprocess.once('exit', (code, signal) => resolve({ code, signal }));
      });
      const settled = subprocess.then((result) => result);
      const stdoutDone = decode(subprocess.stdout, 'stdout', spec.onOutput);
      const stderrDone = decode(subprocess.stderr, 'stderr', spec.onOutput);

      let timedOut = false;
      let cancelled = false;
      let killed = false;
      const stop = (): void => {
        if (subprocess.pid === undefined || killed) return;
        killed = true;
        killGroup(subprocess.pid);
      };
      const timer =
        spec.timeoutMs !== undefined
          ? setTimeout(() => {
              timedOut = true;
              stop();
            }, spec.timeoutMs)
          : undefined;
      const onAbort = (): void => {
        cancelled = true;
        stop();
      };
      spec.signal?.addEventListener('abort', onAbort, { once: true });

      try {
        if (limit?.kind === 'admitted') {
          // Node makes each extra descriptor a socket; execa's types do not follow a spread stdio.
          const [info, block] = [SANDBOX_INFO_FD, SANDBOX_BLOCK_FD].map((fd) => (subprocess.stdio as readonly unknown[])[fd]);
          const admitted =
            info instanceof Duplex && block instanceof Duplex
              ? await limit.admit(info, block).catch((error: unknown) => error)
              : new Error('bwrap got no info and block descriptors');
          if (admitted !== true) {
            // Killed before the block descriptor closes, since bwrap would start the command at its end.
            if (subprocess.pid !== undefined) signalGroup(subprocess.pid, 'SIGKILL');
            killed = true;
            for (const stream of [info, block]) if (stream instanceof Duplex) stream.destroy();
            // false: bwrap failed by itself, and its exit and stderr below say why.
            if (admitted !== false)
              throw new Error(`Nothing ran: the sandbox could not put the command in its process-count cgroup (${String(admitted)}).`);
          }
        }
        if (pinned) {
          await Promise.race([new Promise((resolve) => subprocess.once('spawn', resolve)), settled]);
          try {
            await pinned.verify();
          } catch (error) {
            // The child may have started in the wrong folder: it goes, and its output with it.
            stop();
            throw error;
          }
        }
        const first = await Promise.race([exited, settled.then(() => undefined)]);
        if (first === undefined && subprocess.pid === undefined) {
          // Settled without a process: it never started (for example, no such executable).
          const result = await settled;
          throw new Error(
            `Could not start ${JSON.stringify(spec.command)} in ${spec.cwd}: ${result.originalMessage || result.shortMessage}`,
          );
        }
        const exit = await exited;
        const drained = Promise.all([stdoutDone, stderrDone]);
        await Promise.race([drained, delay(DRAIN_AFTER_EXIT_MS)]);
        // Whatever the command left behind in its group (a daemon, `sleep &`) goes with it.
        stop();
        subprocess.stdout?.destroy();
        subprocess.stderr?.destroy();
        await drained;
        return {
          exitCode: exit.code,
          signal: exit.signal,
          timedOut,
          cancelled,
          durationMs: elapsed(),
        };
      } finally {
        if (timer) clearTimeout(timer);
        spec.signal?.removeEventListener('abort', onAbort);
        await settled.catch(() => undefined);
        await pinned?.close();
        await launch.cleanup?.();
      }
    },
  };
}
