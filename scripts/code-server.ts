/**
 * A real VS Code for `npm start` and the e2e tests: code-server 4.100.3 (VS Code 1.100.3 served to
 * a browser). It is installed on first use into .cache/code-server, never as a dependency of the
 * extension, so `npm ci` stays light. The traps worked around here are recorded in the shared note
 * "Testing in a real VS Code on these machines".
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { withLock } from './cache-lock';

/** Newer releases need Node 22 or 24; this one bundles VS Code 1.100.3 and runs on Node 20. */
export const CODE_SERVER_VERSION = '4.100.3';
export const repoRoot = resolve(__dirname, '..');
export const cacheRoot = join(repoRoot, '.cache');
const installDir = join(cacheRoot, 'code-server');
const markerFile = join(installDir, 'installed-version');
const installLog = join(installDir, 'install.log');

export type Log = (line: string) => void;

/** Debian's Chromium. Playwright's own browser downloads cannot be reached from these machines. */
export const chromiumPath = '/usr/bin/chromium';

export interface SystemPackage {
  /** The Debian package that provides it. */
  readonly name: string;
  readonly why: string;
}

/** Whether an executable of that name is in one of PATH's folders. */
export const onPath = (command: string): boolean =>
  (process.env.PATH ?? '').split(':').some((folder) => folder !== '' && existsSync(join(folder, command)));

/**
 * System packages that are missing, checked by the files they provide rather than by dpkg, so the
 * check also holds on a machine where they came from elsewhere. `browser` adds what the e2e tests
 * need on top of what the install needs.
 */
export function missingSystemPackages(options: { readonly browser: boolean }): SystemPackage[] {
  const missing: SystemPackage[] = [];
  if (!existsSync(markerFile) && !onPath('krb5-config')) {
    missing.push({ name: 'libkrb5-dev', why: 'code-server builds its kerberos native module against it' });
  }
  if (!existsSync(markerFile) && (!onPath('make') || !onPath('g++'))) {
    missing.push({ name: 'build-essential', why: 'node-gyp compiles code-server native modules' });
  }
  if (options.browser && !existsSync(chromiumPath)) {
    missing.push({ name: 'chromium', why: 'the e2e tests drive VS Code through Debian Chromium' });
  }
  return missing;
}

/** The one command a person can paste to fix what `missingSystemPackages` found. */
export function aptInstallCommand(packages: readonly SystemPackage[]): string {
  return `apt-get update && apt-get install -y ${packages.map((entry) => entry.name).join(' ')}`;
}

/** Throws an error that names the packages, why each is needed, and the command to install them. */
export function requireSystemPackages(options: { readonly browser: boolean }): void {
  const missing = missingSystemPackages(options);
  if (missing.length === 0) return;
  const lines = missing.map((entry) => `  - ${entry.name}: ${entry.why}`);
  throw new Error(`Missing system packages:\n${lines.join('\n')}\nInstall them with (as root):\n  ${aptInstallCommand(missing)}`);
}

/**
 * VS Code 1.100 depends on @vscode/ripgrep@1.15.11, whose postinstall downloads rg from GitHub and
 * fails without internet. It first looks for a cached tarball; we put our own rg (from the
 * extension's @vscode/ripgrep per-platform package) there, packed with `rg` at the root.
 */
function seedRipgrepCache(log: Log): void {
  if (process.platform !== 'linux') return;
  const triple = ({ x64: 'x86_64', arm64: 'aarch64' } as Record<string, string>)[process.arch];
  if (triple === undefined) return;
  const cacheFolder = join(process.env.TMPDIR ?? tmpdir(), 'vscode-ripgrep-cache-1.15.11');
  const tarball = join(cacheFolder, `ripgrep-v13.0.0-10-${triple}-unknown-linux-musl.tar.gz`);
  if (existsSync(tarball)) return;
  const rg = platformRipgrep();
  mkdirSync(cacheFolder, { recursive: true });
  const result = spawnSync('tar', ['-czf', tarball, '-C', dirname(rg), 'rg'], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`could not pack rg for the ripgrep cache: ${result.stderr}`);
  log(`seeded the ripgrep download cache at ${tarball}`);
}

/** The rg shipped by the extension's own @vscode/ripgrep, for this platform. */
export function platformRipgrep(): string {
  const binary = process.platform === 'win32' ? 'rg.exe' : 'rg';
  const name = `@vscode/ripgrep-${process.platform}-${process.arch}`;
  try {
    return createRequire(join(repoRoot, 'package.json')).resolve(`${name}/bin/${binary}`);
  } catch {
    throw new Error(`${name} is not installed: run \`npm install\` (it is an optional dependency of @vscode/ripgrep).`);
  }
}

function installedEntry(): string | undefined {
  if (!existsSync(markerFile) || readFileSync(markerFile, 'utf8').trim() !== CODE_SERVER_VERSION) return undefined;
  const entry = join(installDir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  return existsSync(entry) ? entry : undefined;
}

function tail(path: string, lines: number): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** The log's last line that says what npm is doing now (npm's own warnings never change). */
function lastMeaningfulLine(path: string): string {
  const lines = tail(path, 40)
    .split('\n')
    .map((line) => line.trim());
  return lines.filter((line) => line !== '' && !line.startsWith('npm warn')).at(-1) ?? '';
}

/** Runs npm, keeping its output in a log file and printing a heartbeat with its last line. */
async function runLoggedNpm(args: readonly string[], log: Log): Promise<void> {
  const output = openSync(installLog, 'w');
  const child = spawn('npm', [...args], {
    cwd: installDir,
    // npm_config_yes: the postinstall runs `npx node-gyp`, which otherwise waits for a "yes".
    // JOBS: node-gyp compiles with one make job unless told otherwise.
    env: { ...process.env, npm_config_yes: 'true', JOBS: 'max' },
    stdio: ['ignore', output, output],
  });
  const started = Date.now();
  const heartbeat = setInterval(() => {
    const last = lastMeaningfulLine(installLog).slice(0, 100);
    log(`  still installing code-server (${Math.round((Date.now() - started) / 1000)} s)${last ? `: ${last}` : ''}`);
  }, 15_000);
  try {
    const code = await new Promise<number | null>((done, fail) => {
      child.once('error', fail);
      child.once('exit', done);
    });
    if (code !== 0) {
      throw new Error(`npm ${args.join(' ')} failed (exit ${code}). Last lines of ${installLog}:\n${tail(installLog, 30)}`);
    }
  } finally {
    clearInterval(heartbeat);
    closeSync(output);
  }
}

/**
 * Installs code-server once and returns the path of its entry script (run it with this Node).
 * Idempotent: a marker file holds the installed version, and concurrent callers wait for each
 * other. The first install takes minutes (native modules are compiled); later calls are instant.
 */
export async function ensureCodeServer(log: Log = console.log): Promise<string> {
  const ready = installedEntry();
  if (ready !== undefined) return ready;
  return withLock(
    join(cacheRoot, 'code-server.lock'),
    async () => {
      const installedMeanwhile = installedEntry();
      if (installedMeanwhile !== undefined) return installedMeanwhile;
      requireSystemPackages({ browser: false });
      log(`Installing code-server ${CODE_SERVER_VERSION} into ${installDir} (first use only; this takes a few minutes)`);
      const started = Date.now();
      rmSync(installDir, { recursive: true, force: true });
      mkdirSync(installDir, { recursive: true });
      // A package.json of its own keeps npm from walking up into the extension's project.
      writeFileSync(join(installDir, 'package.json'), `${JSON.stringify({ name: 'zuno-code-server-cache', private: true }, null, 2)}\n`);
      seedRipgrepCache(log);
      // --unsafe-perm: npm 11 no longer knows the flag, but code-server's postinstall.sh refuses
      // to run as root unless npm passes it on (as npm_config_unsafe_perm). --foreground-scripts
      // puts the postinstall's output (native builds, the ripgrep step) in the log as it happens.
      await runLoggedNpm(
        ['install', '--unsafe-perm', '--foreground-scripts', '--no-audit', '--no-fund', `code-server@${CODE_SERVER_VERSION}`],
        log,
      );
      writeFileSync(markerFile, `${CODE_SERVER_VERSION}\n`);
      const entry = installedEntry();
      if (entry === undefined) throw new Error(`code-server installed, but its entry script is missing; see ${installLog}`);
      log(`code-server ${CODE_SERVER_VERSION} installed in ${Math.round((Date.now() - started) / 1000)} s`);
      return entry;
    },
    () => log('Waiting for another process that is installing code-server...'),
  );
}

/** Where one editor instance keeps its state. */
export interface EditorDirs {
  readonly userDataDir: string;
  readonly extensionsDir: string;
}

/**
 * Installs a .vsix into `dirs`. Do it before the server starts: a running server refuses to
 * reinstall an extension it has marked for removal.
 */
export async function installExtension(entry: string, vsix: string, dirs: EditorDirs): Promise<void> {
  const args = [entry, '--user-data-dir', dirs.userDataDir, '--extensions-dir', dirs.extensionsDir, '--install-extension', vsix, '--force'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((done, fail) => {
    child.once('error', fail);
    child.once('exit', done);
  });
  // code-server prints failures but can still exit 0; its success line is the reliable signal.
  if (code !== 0 || !/successfully installed/i.test(output)) {
    throw new Error(`installing ${vsix} failed (exit ${code}):\n${output}`);
  }
}

/**
 * Writes the user's settings.json: what is already there (say, settings a person changed in the
 * UI during an earlier `npm start`), then the harness defaults, then `settings`. Workspace trust
 * is turned off, or the folder opens in Restricted Mode and the extension never activates; the
 * other defaults keep first-run UI and update checks out of the way.
 */
export function writeUserSettings(userDataDir: string, settings: Readonly<Record<string, unknown>>): void {
  const folder = join(userDataDir, 'User');
  const file = join(folder, 'settings.json');
  mkdirSync(folder, { recursive: true });
  let existing: Record<string, unknown> = {};
  if (existsSync(file)) {
    try {
      existing = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch {
      // VS Code allows comments in settings.json; such a file is replaced rather than half-parsed.
    }
  }
  const all = {
    ...existing,
    'security.workspace.trust.enabled': false,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'update.mode': 'none',
    ...settings,
  };
  writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
}

/** True when nothing listens on 127.0.0.1:port. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}

/** `preferred` when free, else the next free port after it; with no preference, any free port. */
export async function freePort(preferred?: number): Promise<number> {
  if (preferred === undefined) {
    return new Promise((done, fail) => {
      const server = createServer();
      server.once('error', fail);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        const port = typeof address === 'object' && address !== null ? address.port : 0;
        server.close(() => done(port));
      });
    });
  }
  for (let port = preferred; port < preferred + 100; port++) {
    if (await portIsFree(port)) return port;
  }
  throw new Error(`no free port in ${preferred}..${preferred + 99}`);
}

export interface StartOptions extends EditorDirs {
  readonly entry: string;
  readonly port: number;
  /** The folder opened as the workspace. */
  readonly folder: string;
  /** code-server's stdout and stderr go here. */
  readonly logFile: string;
  /** Extra environment for the server and so for the extension host. */
  readonly env?: Readonly<Record<string, string>>;
  /** How long to wait for the server to answer HTTP. */
  readonly timeoutMs?: number;
}

export interface RunningServer {
  /** The URL that opens the workspace. */
  readonly url: string;
  readonly process: ChildProcess;
  /** Stops the server and everything it spawned (its process group). Safe to call twice. */
  stop(): Promise<void>;
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    // Negative pid: the whole group, so the extension host and its children go too.
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Starts code-server on 127.0.0.1 and resolves once it answers HTTP. */
export async function startCodeServer(options: StartOptions): Promise<RunningServer> {
  const output = openSync(options.logFile, 'a');
  const args = [
    options.entry,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${options.port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--user-data-dir',
    options.userDataDir,
    '--extensions-dir',
    options.extensionsDir,
    options.folder,
  ];
  // detached: a process group of its own, so stop() reaches the extension host and its children.
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: ['ignore', output, output],
    env: { ...process.env, ...options.env },
  });
  closeSync(output);
  const exited = new Promise<number | null>((done) => child.once('exit', done));
  // A detached server outlives its parent unless told otherwise: if this process ends without
  // calling stop() (an uncaught error, a test that timed out), take the server down with it.
  const killOnExit = (): void => signalGroup(child, 'SIGKILL');
  process.once('exit', killOnExit);
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    signalGroup(child, 'SIGTERM');
    const killer = setTimeout(() => signalGroup(child, 'SIGKILL'), 5_000);
    await exited;
    clearTimeout(killer);
    // The server is gone; make sure nothing it started outlives it.
    signalGroup(child, 'SIGKILL');
  };
  const base = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  for (;;) {
    if (exitCode !== undefined) {
      throw new Error(
        `code-server exited (${exitCode}) before it answered. Last lines of ${options.logFile}:\n${tail(options.logFile, 30)}`,
      );
    }
    try {
      const response = await fetch(`${base}/healthz`);
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`code-server did not answer on ${base} in time. Last lines of ${options.logFile}:\n${tail(options.logFile, 30)}`);
    }
    await new Promise((wake) => setTimeout(wake, 100));
  }
  return { url: `${base}/?folder=${encodeURIComponent(options.folder)}`, process: child, stop };
}
