/**
 * The shell sandbox on this machine (issue 12): bubblewrap on Linux, Seatbelt (`sandbox-exec`)
 * on macOS, none on Windows. Detection runs a probe sandbox once per bubblewrap path and caches
 * the answer, because a bwrap that is installed can still be refused by the kernel (user
 * namespaces off, AppArmor's restriction, a container): only a run proves it works. The argv and
 * the profile are built by pure functions, so they are tested as text.
 */
import { execFile } from 'node:child_process';
import {
  accessSync,
  constants,
  type Dirent,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { mkdir, mkdtemp, rm, rmdir, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { compileGlob } from '../../core/glob';
import { globMatchAllowed, splitGlob, type SandboxAvailability, type SandboxPlan, type SandboxSupport } from '../../core/sandbox';

/** `file` and `directory` exist; anything else (missing, a dangling link) cannot be mounted over. */
export type PathKind = 'file' | 'directory' | undefined;

/** What is at `path`, without following a final symlink (a link is mounted over as what it is not). */
export function pathKind(path: string): PathKind {
  try {
    // No exception for a missing path: most of the home secrets are missing, and this runs per command.
    const stat = lstatSync(path, { throwIfNoEntry: false });
    return stat === undefined ? undefined : stat.isDirectory() ? 'directory' : stat.isFile() || stat.isSymbolicLink() ? 'file' : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `path` with every symlink resolved. When it does not exist, its folder is resolved and the name
 * kept, so a missing `.vscode` in a workspace reached through a symlink still lies inside the
 * workspace's real path; as given when the folder does not exist either.
 */
function realPath(path: string): string {
  // The C realpath (node's own walks the path in JavaScript), and only on what exists: most home
  // secrets do not, and an exception per missing path is most of this function's cost per command.
  if (pathKind(path) !== undefined) {
    try {
      return realpathSync.native(path);
    } catch {
      // A dangling symlink: its folder resolved, as for a missing path.
    }
  }
  try {
    return join(realpathSync.native(dirname(path)), basename(path));
  } catch {
    return path;
  }
}

/** Where the private, empty temp dir is mounted inside the sandbox (and what TMPDIR says). */
export const SANDBOX_TEMP = '/tmp';

/**
 * The bubblewrap arguments for a plan, up to (not including) the `--` and the command. Later
 * mounts lie over earlier ones, so the order is the meaning: the root read-only, then what is
 * writable, then what stays read-only inside it, then what is not there at all. Paths that do
 * not exist are left out, since bwrap would have to create them on the real disk to mount over
 * them; except the read-only ones inside a writable folder, which would otherwise be free to make.
 */
export function bwrapArguments(
  plan: SandboxPlan,
  cwd: string,
  kindOf: (path: string) => PathKind = pathKind,
  real: (path: string) => string = realPath,
  globMatches: readonly string[] = expandWritableGlobs(plan, real),
): string[] {
  const args = [
    // A new user namespace drops every capability even for root, so nothing inside can remount the root writable.
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    ...(plan.network ? [] : ['--unshare-net']),
    '--die-with-parent',
    // No terminal to inject keystrokes into (TIOCSTI).
    '--new-session',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    SANDBOX_TEMP,
  ];
  // Mounted at their real paths: a symlinked workspace or ~/.ssh then still resolves to the mount.
  const writable = plan.writable.map(real);
  for (const path of writable) {
    if (kindOf(path) !== undefined) args.push('--bind', path, path);
  }
  for (const path of globMatches) args.push('--bind', path, path);
  for (const path of plan.readOnly.map(real)) {
    if (kindOf(path) !== undefined) args.push('--ro-bind', path, path);
    // Not there yet, in a writable folder: an empty read-only placeholder takes the name, so the
    // command cannot create `.vscode/tasks.json` or `.git/hooks`. bwrap makes its mount point, an
    // empty folder that stays on the disk; empty, it is harmless (git skips an empty .git).
    else if (writable.some((folder) => path.startsWith(`${folder}/`))) args.push('--tmpfs', path, '--remount-ro', path);
  }
  for (const path of plan.hidden.map(real)) {
    const kind = kindOf(path);
    if (kind === 'directory') args.push('--tmpfs', path, '--remount-ro', path);
    else if (kind === 'file') args.push('--ro-bind', '/dev/null', path);
  }
  args.push('--chdir', real(cwd));
  return args;
}

/** How far a `sandbox.writable` glob is followed below its base, and how much it may cost per command. */
const GLOB_LIMITS = { depthWithGlobstar: 6, entries: 10_000, matches: 64 };

/**
 * What the plan's `sandbox.writable` globs match on the disk now, as real paths that
 * `globMatchAllowed` lets through. The walk starts at each glob's base with symlinks resolved,
 * never follows a symlink below it (a link planted by an earlier command must not make its target
 * writable), stops descending where a folder matches, and is bounded in depth and entries.
 */
export function expandWritableGlobs(plan: SandboxPlan, real: (path: string) => string = realPath): string[] {
  if (plan.writableGlobs.length === 0) return [];
  const kept = {
    writable: plan.writable.map(real),
    readOnly: plan.readOnly.map(real),
    hidden: plan.hidden.map(real),
  };
  const found = new Set<string>();
  for (const pattern of plan.writableGlobs) {
    const { base, rest } = splitGlob(pattern);
    let matches: (relative: string) => boolean;
    try {
      matches = compileGlob(rest, 'path');
    } catch {
      continue;
    }
    const root = real(base);
    if (pathKind(root) !== 'directory') continue;
    const depth = rest.includes('**') ? GLOB_LIMITS.depthWithGlobstar : rest.split('/').length;
    let visited = 0;
    const queue: { folder: string; relative: string; level: number }[] = [{ folder: root, relative: '', level: 0 }];
    while (queue.length > 0 && visited < GLOB_LIMITS.entries && found.size < GLOB_LIMITS.matches) {
      const { folder, relative, level } = queue.shift() ?? { folder: root, relative: '', level: depth };
      let entries: Dirent[];
      try {
        entries = readdirSync(folder, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (++visited > GLOB_LIMITS.entries) break;
        if (entry.isSymbolicLink()) continue;
        const path = join(folder, entry.name);
        const name = relative === '' ? entry.name : `${relative}/${entry.name}`;
        if (matches(name)) {
          if ((entry.isDirectory() || entry.isFile()) && globMatchAllowed(path, kept)) found.add(path);
        } else if (entry.isDirectory() && level + 1 < depth) {
          queue.push({ folder: path, relative: name, level: level + 1 });
        }
      }
    }
  }
  return [...found];
}

/** A string literal in Seatbelt's profile language. */
const sbString = (text: string): string => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/**
 * The Seatbelt profile for a plan (macOS `sandbox-exec -p`), with the same meaning as the
 * bubblewrap mounts: reads anywhere but the hidden paths, writes only in the writable paths and
 * the private temp dir, minus the read-only ones, and no network unless the plan allows it.
 * Seatbelt has no PID namespace: the runner's process-group kill is what ends descendants there.
 */
export function seatbeltProfile(plan: SandboxPlan, tempDir: string): string {
  const subpaths = (paths: readonly string[]): string => paths.map((path) => `(subpath ${sbString(path)})`).join(' ');
  const notHidden = plan.hidden.map((path) => `(require-not (subpath ${sbString(path)}))`).join(' ');
  const writable = [...plan.writable, tempDir];
  const notReadOnly = [...plan.readOnly, ...plan.hidden].map((path) => `(require-not (subpath ${sbString(path)}))`).join(' ');
  return [
    '(version 1)',
    '(deny default)',
    '(allow process-exec process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow mach-lookup)',
    '(allow ipc-posix-shm)',
    '(allow pseudo-tty)',
    `(allow file-read* (require-all (subpath "/") ${notHidden}))`,
    '(allow file-write-data (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/dtracehelper"))',
    `(allow file-write* (require-all (require-any ${subpaths(writable)}) ${notReadOnly}))`,
    ...(plan.network ? ['(allow network*)'] : ['(allow network-outbound (remote unix-socket))']),
    '',
  ].join('\n');
}

/** The first executable named `name` on `PATH`. */
export function findOnPath(name: string, path: string | undefined): string | undefined {
  for (const folder of (path ?? '').split(delimiter)) {
    if (folder === '') continue;
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (pathKind(candidate) !== 'directory') return candidate;
    } catch {
      // Not here; the next folder.
    }
  }
  return undefined;
}

interface ProbeOutcome {
  readonly ok: boolean;
  readonly output: string;
}

function probe(executable: string, args: readonly string[]): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    execFile(executable, args, { timeout: 10_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({ ok: error === null && stdout.includes('zuno-sandbox-ok'), output: `${stderr}${stdout}`.trim() || (error?.message ?? '') });
    });
  });
}

/** What the bwrap probe lays out in its scratch folder, one entry per kind of mount a command gets. */
const PROBE_ENTRIES = { readOnly: 'read-only', placeholder: '.git', hiddenFolder: 'hidden', hiddenFile: 'secret' } as const;

/** What the probe prints when bwrap ran but one of its mounts did not hold. */
const PROBE_UNENFORCED = 'zuno-sandbox-unenforced';

/**
 * The bwrap probe's argv: the real builder's, for a plan over a scratch folder laid out (by
 * `probeBwrap`) so that every kind of mount a command gets is made: a writable bind, a
 * read-only bind inside it, a read-only placeholder, a hidden folder and a hidden file, the
 * network off. The command then checks that they hold, so a bwrap or a kernel that starts but
 * refuses or ignores any of them is found at detection, not at a command.
 */
export function bwrapProbeArguments(
  scratch: string,
  kindOf: (path: string) => PathKind = pathKind,
  real: (path: string) => string = realPath,
): string[] {
  const plan: SandboxPlan = {
    mode: 'workspace-write',
    writable: [scratch],
    writableGlobs: [],
    readOnly: [join(scratch, PROBE_ENTRIES.readOnly), join(scratch, PROBE_ENTRIES.placeholder)],
    hidden: [join(scratch, PROBE_ENTRIES.hiddenFolder), join(scratch, PROBE_ENTRIES.hiddenFile)],
    network: false,
    maxProcesses: 0,
  };
  // Shell builtins, no process per check: a session's first command waits for the probe.
  const checks = [
    "printf '' > written",
    `! printf '' > ${PROBE_ENTRIES.readOnly}/x`,
    `! printf '' > ${PROBE_ENTRIES.placeholder}/x`,
    `! test -e ${PROBE_ENTRIES.hiddenFolder}/x`,
    `! test -s ${PROBE_ENTRIES.hiddenFile}`,
  ];
  const script = `{ ${checks.join(' && ')}; } 2>/dev/null && echo zuno-sandbox-ok || echo ${PROBE_UNENFORCED}`;
  return [...bwrapArguments(plan, scratch, kindOf, real, []), '--', '/bin/sh', '-c', script];
}

/** Runs the bwrap probe in a scratch folder made for it. */
async function probeBwrap(executable: string): Promise<ProbeOutcome> {
  const scratch = await mkdtemp(join(tmpdir(), 'zuno-sandbox-probe-'));
  try {
    await Promise.all([
      mkdir(join(scratch, PROBE_ENTRIES.readOnly)),
      mkdir(join(scratch, PROBE_ENTRIES.hiddenFolder)).then(() => writeFile(join(scratch, PROBE_ENTRIES.hiddenFolder, 'x'), '')),
      writeFile(join(scratch, PROBE_ENTRIES.hiddenFile), 'secret'),
    ]);
    return await probe(executable, bwrapProbeArguments(scratch));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

const BWRAP_FIX = 'Install bubblewrap (Debian/Ubuntu: apt install bubblewrap) or set sandbox.bwrap_path to it.';
const USERNS_FIX =
  'Allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap), ' +
  'or, in a container, run it with user namespaces allowed.';

export interface SandboxDetectionOptions {
  readonly platform?: NodeJS.Platform;
  /** PATH to search for bwrap; this process's PATH when absent. */
  readonly path?: string;
  /** The home whose secrets are hidden; this user's when absent. */
  readonly home?: string;
}

/** Detects the sandbox once per bubblewrap path, by running a probe in it. */
export function createSandboxSupport(options: SandboxDetectionOptions = {}): SandboxSupport {
  const platform = options.platform ?? process.platform;
  const cache = new Map<string, Promise<SandboxAvailability>>();
  const detect = async (configured: string | undefined): Promise<SandboxAvailability> => {
    if (platform === 'win32') {
      return {
        available: false,
        reason: 'Windows has no sandbox for commands',
        fix: 'Use WSL or a Dev Container to get one, or set sandbox.mode to "off" to say you accept that.',
      };
    }
    if (platform === 'darwin') {
      if (pathKind('/usr/bin/sandbox-exec') === undefined)
        return { available: false, reason: 'sandbox-exec was not found', fix: 'It ships with macOS; check /usr/bin/sandbox-exec.' };
      const result = await probe('/usr/bin/sandbox-exec', ['-p', '(version 1)(allow default)', '/bin/echo', 'zuno-sandbox-ok']);
      return result.ok
        ? { available: true, mechanism: 'seatbelt', detail: 'sandbox-exec' }
        : {
            available: false,
            reason: `sandbox-exec refused to run (${result.output.split('\n')[0] ?? ''})`,
            fix: 'Check that no outer sandbox forbids it.',
          };
    }
    const executable = configured ?? findOnPath('bwrap', options.path ?? process.env.PATH);
    if (executable === undefined) return { available: false, reason: 'bwrap (bubblewrap) was not found on PATH', fix: BWRAP_FIX };
    if (pathKind(executable) === undefined)
      return { available: false, reason: `sandbox.bwrap_path ${executable} does not exist`, fix: BWRAP_FIX };
    const result = await probeBwrap(executable);
    if (result.output === PROBE_UNENFORCED) {
      return {
        available: false,
        reason: `${executable} started a sandbox in which a path to be read-only or hidden was not`,
        fix: `Point sandbox.bwrap_path at bubblewrap itself, not a wrapper, or reinstall it. ${BWRAP_FIX}`,
      };
    }
    if (!result.ok) {
      return {
        available: false,
        reason: `bwrap could not create a sandbox (${(result.output.split('\n')[0] ?? '').slice(0, 200)})`,
        fix: USERNS_FIX,
      };
    }
    return { available: true, mechanism: 'bubblewrap', detail: executable };
  };
  return {
    home: options.home ?? homedir(),
    availability(bwrapPath) {
      const key = bwrapPath ?? '';
      let known = cache.get(key);
      if (!known) {
        known = detect(bwrapPath);
        cache.set(key, known);
      }
      return known;
    },
  };
}

/** The executable that applies a plan, from an availability that said yes. */
export function sandboxExecutable(availability: Extract<SandboxAvailability, { available: true }>): string {
  return availability.mechanism === 'bubblewrap' ? availability.detail : '/usr/bin/sandbox-exec';
}

/** A pids cgroup folder and its version: only v1 moves one thread at a time. */
interface PidsCgroup {
  readonly folder: string;
  readonly version: 1 | 2;
}

/** This thread's pids cgroup, when a child can be made in it: v1's `pids` hierarchy, or a v2 folder that delegates `pids`. */
function findPidsCgroup(): PidsCgroup | undefined {
  let membership: string;
  try {
    // This thread's, not the process's: it is this thread that moves (see `createProcessLimit`).
    membership = readFileSync('/proc/thread-self/cgroup', 'utf8');
  } catch {
    return undefined;
  }
  const candidates: PidsCgroup[] = [];
  for (const line of membership.split('\n')) {
    const [, controllers, path] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (path === undefined) continue;
    if (controllers?.split(',').includes('pids')) candidates.push({ folder: join('/sys/fs/cgroup/pids', path), version: 1 });
    else if (controllers === '') candidates.push({ folder: join('/sys/fs/cgroup', path), version: 2 });
  }
  return candidates.find(({ folder, version }) => {
    try {
      accessSync(folder, constants.W_OK);
      // v1 has pids.max in every child it makes; v2 only where the parent delegates the controller.
      return version === 1 || readFileSync(join(folder, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('pids');
    } catch {
      return false;
    }
  });
}

/** CAP_SYS_ADMIN and CAP_SYS_RESOURCE: either one lifts RLIMIT_NPROC, as being root does. */
const NPROC_EXEMPTING_CAPABILITIES = (1n << 21n) | (1n << 24n);

/**
 * Whether RLIMIT_NPROC fails to bind this process's sandboxed children: the kernel exempts root
 * and the holders of CAP_SYS_ADMIN or CAP_SYS_RESOURCE. Elsewhere `ulimit -p` in the sandbox is
 * enough, and a cgroup would only add its cost to every call.
 */
export function rlimitExempt(uid: number | undefined, status: () => string): boolean {
  if (uid === 0) return true;
  const effective = /^CapEff:\s*([0-9a-f]+)$/m.exec(status())?.[1];
  return effective !== undefined && (BigInt(`0x${effective}`) & NPROC_EXEMPTING_CAPABILITIES) !== 0n;
}

/** Decided once per process: who it runs as and where its cgroups are does not change. */
let cgroupParent: { readonly cgroup: PidsCgroup | undefined } | undefined;

function processLimitParent(): PidsCgroup | undefined {
  if (cgroupParent === undefined) {
    const exempt = rlimitExempt(process.getuid?.(), () => {
      try {
        return readFileSync('/proc/self/status', 'utf8');
      } catch {
        return '';
      }
    });
    const cgroup = exempt ? findPidsCgroup() : undefined;
    if (cgroup !== undefined) sweepStaleCgroups(cgroup.folder);
    cgroupParent = { cgroup };
  }
  return cgroupParent.cgroup;
}

let cgroupCount = 0;

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Removes the empty cgroups of Zuno processes that are gone: one that exits right after a command
 * may not live to see its cgroup emptied. Once per process, before its first cgroup.
 */
function sweepStaleCgroups(parent: string): void {
  let entries: string[];
  try {
    entries = readdirSync(parent);
  } catch {
    return;
  }
  for (const entry of entries) {
    const owner = /^zuno-(\d+)-\d+$/.exec(entry)?.[1];
    if (owner === undefined || Number(owner) === process.pid || isAlive(Number(owner))) continue;
    try {
      rmdirSync(join(parent, entry));
    } catch {
      // Still holding a process, or already gone: left as it is.
    }
  }
}

/** The descriptors bwrap is given to hold the command until it is in its cgroup (v2, see `ProcessLimit`). */
export const SANDBOX_INFO_FD = 3;
export const SANDBOX_BLOCK_FD = 4;

/**
 * A pids cgroup for one command, entered in one of two ways, so that the command and all it forks
 * are inside from their first instruction.
 *
 * `born-inside` (cgroup v1): the calling thread moves itself into the cgroup, starts bwrap, and
 * moves back, all synchronously; bwrap is forked inside and everything it starts stays there. The
 * kernel moves a thread that writes "0" to `tasks` without its global threadgroup lock, so this
 * costs microseconds, where moving another process costs an RCU grace period (about 10 ms, more
 * under load) on every call. bwrap's own monitor process is inside too, so the cgroup holds one
 * more than the command may have.
 *
 * `admitted` (cgroup v2, where only whole processes move): bwrap reports its sandbox's first
 * process on `--info-fd` and waits on `--block-fd` before it starts the command; `admit` moves
 * that process into the cgroup and only then lets it go, so the grace period overlaps bwrap's own
 * mount setup instead of adding to it.
 */
export type ProcessLimit =
  | {
      readonly kind: 'born-inside';
      /**
       * Runs `start` (which must spawn synchronously) with this thread inside the cgroup. Throws,
       * without calling `start`, when the cgroup cannot be entered.
       */
      spawnInside<T>(start: () => T): T;
      /** Removes the cgroup once its processes are gone; off the call's path. */
      release(): Promise<void>;
    }
  | {
      readonly kind: 'admitted';
      /** Given to bwrap before its other arguments. */
      readonly bwrapArguments: readonly string[];
      /**
       * Reads the sandbox's first pid from `info`, moves it into the cgroup, then writes to `block`.
       * Resolves false when bwrap made no sandbox (it failed, and says why on stderr). Whenever it
       * does not resolve true, the caller must kill the process group before `block` is closed,
       * because bwrap goes on at its end.
       */
      admit(info: Readable, block: Writable): Promise<boolean>;
      release(): Promise<void>;
    };

/** The `child-pid` bwrap writes on its info descriptor; undefined when bwrap ended before it made one. */
function childPid(info: Readable): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    let text = '';
    info.setEncoding('utf8');
    info.on('data', (chunk: string) => {
      text += chunk;
    });
    info.once('error', reject);
    info.once('end', () => {
      const pid = /"child-pid"\s*:\s*(\d+)/.exec(text)?.[1];
      resolve(pid === undefined ? undefined : Number(pid));
    });
  });
}

/** Moves the calling thread (only it: "0" in `tasks` is the writer) into a v1 cgroup. */
const moveThisThread = (folder: string): void => writeFileSync(join(folder, 'tasks'), '0');

/**
 * A pids cgroup holding at most `max` processes, where RLIMIT_NPROC does not bind (root) and this
 * process may make one (root, or a delegated cgroup): that is what stops a fork bomb there.
 * Undefined elsewhere, where `ulimit -p` in the sandbox does it.
 */
export function createProcessLimit(
  max: number,
  /** How the command gets in: by the cgroup's version; tests force `admitted` to exercise v2's way on v1. */
  entry?: ProcessLimit['kind'],
): ProcessLimit | undefined {
  const parent = processLimitParent();
  if (parent === undefined) return undefined;
  const kind = entry ?? (parent.version === 1 ? 'born-inside' : 'admitted');
  const folder = join(parent.folder, `zuno-${process.pid}-${++cgroupCount}`);
  try {
    mkdirSync(folder);
    writeFileSync(join(folder, 'pids.max'), String(kind === 'born-inside' ? max + 1 : max));
  } catch {
    return undefined;
  }
  const release = async (): Promise<void> => {
    // Removable once its last process is gone, which may take a moment after the call ends.
    for (let attempt = 0; attempt < 40; attempt++) {
      try {
        await rmdir(folder);
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };
  if (kind === 'born-inside') {
    return {
      kind: 'born-inside',
      spawnInside(start) {
        moveThisThread(folder);
        try {
          return start();
        } finally {
          // Back where the process's other threads are: that cgroup exists while they do, and
          // whoever could write this one's `tasks` can write it.
          moveThisThread(parent.folder);
        }
      },
      release,
    };
  }
  return {
    kind: 'admitted',
    bwrapArguments: ['--info-fd', String(SANDBOX_INFO_FD), '--block-fd', String(SANDBOX_BLOCK_FD)],
    async admit(info, block) {
      const pid = await childPid(info);
      if (pid === undefined) return false;
      await writeFile(join(folder, 'cgroup.procs'), String(pid));
      await new Promise<void>((resolve, reject) => block.end('1', (error?: Error | null) => (error ? reject(error) : resolve())));
      return true;
    },
    release,
  };
}
