/**
 * What every command resolves first, from flags then files: the workspace, the config file and the
 * state dir (issue 9: outside the workspace unless --state-dir says otherwise).
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseConfig, type ZunoConfig } from '../core/config';
import { ConfigError, StartupError } from '../core/errors';
import { prepareStateDir, type MigrationResult } from '../store/relocate';
import { Store } from '../store/store';
import { errorMessage, type CliProcess } from './process';

export function resolveWorkspace(flag: string | undefined, cwd: string): string {
  const path = resolve(cwd, flag ?? '.');
  if (!existsSync(path) || !statSync(path).isDirectory()) {
    throw new StartupError(`The workspace ${path} is not a directory. Pass an existing directory with --workspace DIR.`);
  }
  // Tools check containment against real paths, so the root must be one too.
  return realpathSync(path);
}

export interface LoadedConfig {
  readonly config: ZunoConfig;
  /** The file as written, to tell a value that was set from a default. */
  readonly raw: unknown;
}

export function loadConfig(flag: string | undefined, workspace: string, cwd: string): LoadedConfig {
  const path = flag !== undefined ? resolve(cwd, flag) : join(workspace, '.zuno', 'config.json');
  if (!existsSync(path)) {
    if (flag !== undefined) throw new StartupError(`The config file ${path} does not exist. Check the path given with --config.`);
    return { config: parseConfig({}), raw: {} };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`Invalid config ${path}: it is not valid JSON (${errorMessage(error)}).`);
  }
  return { config: parseConfig(raw, `config ${path}`), raw };
}

/**
 * `--state-dir`, else the per-user directory of this workspace (issue 9), which the editor finds
 * too. The first open moves an old `<workspace>/.zuno/state` there and says so on stderr.
 */
export async function stateDirFor(
  flag: string | undefined,
  workspace: string,
  io: CliProcess,
): Promise<{ stateDir: string; migration?: MigrationResult }> {
  const prepared = await prepareStateDir({
    workspaceRoot: workspace,
    env: io.env,
    ...(flag !== undefined ? { explicit: resolve(io.cwd, flag) } : {}),
  });
  if (prepared.migration) {
    io.stderr.write(`zuno: ${prepared.migration.notice}\n`);
    if (prepared.migration.warning) io.stderr.write(`zuno: ${prepared.migration.warning}\n`);
  }
  return prepared;
}

/**
 * The store of the workspace a command names (--workspace, --state-dir), with its warnings on
 * stderr. A writable open takes the session locks it writes under; a read-only one takes none.
 */
export async function openCommandStore(
  command: { readonly workspace?: string; readonly stateDir?: string },
  io: CliProcess,
  readOnly: boolean,
): Promise<{ workspace: string; stateDir: string; store: Store }> {
  const workspace = resolveWorkspace(command.workspace, io.cwd);
  const { stateDir } = await stateDirFor(command.stateDir, workspace, io);
  const store = await Store.open({ stateDir, readOnly, onWarning: (message) => void io.stderr.write(`zuno: ${message}\n`) });
  return { workspace, stateDir, store };
}
