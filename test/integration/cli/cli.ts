/**
 * Black-box helpers: build the real CLI bundle once, run `node <bundle> …` as a child process in
 * a real temporary workspace, and read its `--json` event lines.
 *
 * The bundle is built with the project's own `esbuild.mjs` and then copied to a private folder
 * inside `dist/`, because other builds may rewrite `dist/cli.js` while these tests run. It stays
 * inside `dist/` so that it finds `node_modules` (the bundled ripgrep) the way `dist/cli.js` does.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { ZunoEvent } from '../../../src/core/events';
import { resolveStateDir } from '../../../src/store/relocate';
import { startScriptedOpenAI, type ScriptedOpenAIServer, type ScriptStep } from '../../support/scripted-openai';

const repository = join(__dirname, '..', '..', '..');

let bundle: string | undefined;

/** Builds once per test file (in a `before` hook) and removes the private copy afterwards. */
export function useBuiltCli(): void {
  before(() => {
    // Serialised with other builds in this tree, so two never write dist/ at once.
    execFileSync('flock', ['/tmp/zuno-build.lock', process.execPath, 'esbuild.mjs'], { cwd: repository, stdio: 'inherit' });
    const folder = join(repository, 'dist', `.cli-test-${process.pid}`);
    mkdirSync(folder, { recursive: true });
    copyFileSync(join(repository, 'dist', 'cli.js'), join(folder, 'cli.js'));
    // The wasm files the bundle loads from beside itself: sql.js and the bash grammar (shell permissions).
    for (const name of ['sql-wasm.wasm', 'tree-sitter.wasm', 'tree-sitter-bash.wasm'])
      copyFileSync(join(repository, 'dist', name), join(folder, name));
    bundle = join(folder, 'cli.js');
  });
  after(() => {
    if (bundle) rmSync(join(bundle, '..'), { recursive: true, force: true });
  });
}

export function builtCli(): string {
  if (!bundle) throw new Error('Call useBuiltCli() at the top of the test file.');
  return bundle;
}

/** A fresh workspace (symlinks resolved), removed when the test file ends. */
export function temporaryWorkspace(files: Readonly<Record<string, string>> = {}): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-cli-')));
  after(() => rmSync(root, { recursive: true, force: true }));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout parsed as JSON lines (for `--json` runs). */
  readonly events: ZunoEvent[];
}

let stateHome: string | undefined;

/**
 * The per-user folder the children keep their state in (issue 9: outside the workspace), one per
 * test process, so that tests never write into the real ~/.local/state.
 */
export function testStateHome(): string {
  if (stateHome === undefined) {
    const created = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-state-home-')));
    process.on('exit', () => rmSync(created, { recursive: true, force: true }));
    stateHome = created;
  }
  return stateHome;
}

/**
 * The environment a child gets: no ZUNO_* or API key variables leak in from the test's own, and
 * the per-user state folder (XDG_STATE_HOME on Linux, LOCALAPPDATA on Windows, HOME on macOS)
 * is a temporary one.
 */
export function childEnvironment(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('ZUNO_') && !key.endsWith('_API_KEY')) environment[key] = value;
  }
  const home = testStateHome();
  const state = { XDG_STATE_HOME: home, LOCALAPPDATA: home, ...(process.platform === 'darwin' ? { HOME: home } : {}) };
  return { ...environment, ...state, ...extra };
}

/** The state dir `zuno` picks by default for `workspace` in the children's environment (issue 9). */
export function workspaceStateDir(workspace: string): string {
  const env = childEnvironment();
  return resolveStateDir({ workspaceRoot: workspace, env, home: env.HOME ?? homedir() }).stateDir;
}

export function parseEventLines(stdout: string): ZunoEvent[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ZunoEvent);
}

/** Starts `node <bundle> …args`; stdin is closed at once, so the child has no terminal. */
export function startZuno(args: readonly string[], options: { cwd: string; env?: Readonly<Record<string, string>> }): ChildProcess {
  const child = spawn(process.execPath, [builtCli(), ...args], {
    cwd: options.cwd,
    env: childEnvironment(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin?.end();
  return child;
}

/** Runs `zuno …args` to completion. */
export function runZuno(args: readonly string[], options: { cwd: string; env?: Readonly<Record<string, string>> }): Promise<CliRun> {
  const child = startZuno(args, options);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      let events: ZunoEvent[] = [];
      try {
        events = parseEventLines(stdout);
      } catch {
        // Not a --json run: stdout is plain text.
      }
      resolve({ code, signal, stdout, stderr, events });
    });
  });
}

/** Events of one type, narrowed. */
export function eventsOf<T extends ZunoEvent['type']>(events: readonly ZunoEvent[], type: T): Extract<ZunoEvent, { type: T }>[] {
  return events.filter((event): event is Extract<ZunoEvent, { type: T }> => event.type === type);
}

/** The flags every exec test passes: the scripted server, a model name, JSON output. */
export function execArgs(baseUrl: string, workspace: string, ...rest: string[]): string[] {
  return ['exec', '--workspace', workspace, '--base-url', baseUrl, '--model', 'scripted-model', '--json', ...rest];
}

/**
 * Scripted OpenAI-compatible servers for one test file, all closed after the file's tests:
 * `const scripted = useScriptedServers();` then `await scripted([...steps])`.
 */
export function useScriptedServers(): (script: readonly ScriptStep[], models?: readonly string[]) => Promise<ScriptedOpenAIServer> {
  const servers: ScriptedOpenAIServer[] = [];
  after(async () => {
    for (const server of servers) await server.close();
  });
  return async (script, models) => {
    const server = await startScriptedOpenAI({ script, ...(models ? { models } : {}) });
    servers.push(server);
    return server;
  };
}
