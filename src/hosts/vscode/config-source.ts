/**
 * Reads Zuno's configuration in the editor and keeps it current. Sources, lowest precedence
 * first (README, "Configuration"):
 *
 *   schema defaults < ZUNO_BASE_URL / ZUNO_MODEL < .zuno/config.json
 *     < User settings < Workspace settings < Workspace Folder settings
 *
 * Settings win over the file because they are what the editor's own commands write (Toggle
 * Tools, Set Permission Mode, Select Model, "Allow like this"); a command whose effect a file
 * silently overrode would be a lie. Rules and hooks add up across sources instead (see
 * settings.ts). Only values set explicitly count: `inspect()`, never `get()`, whose contributed
 * defaults would mask the file.
 */
import * as vscode from 'vscode';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PermissionRule, ZunoConfig } from '../../core/config';
import { resolveConfig, SETTINGS_PREFIX, settingDefinitions, type ConfigLayer, type ResolvedConfig } from './settings';
import { sameSettingValue, whenHolds } from './settle';

export const CONFIG_FILE = join('.zuno', 'config.json');

/** How long a write waits for the extension host to see it before reading what it has. */
const WRITE_SETTLE_MS = 3000;

type ScopeValue = 'globalValue' | 'workspaceValue' | 'workspaceFolderValue';

function readFileLayer(workspaceRoot: string): ConfigLayer | { problem: string } | undefined {
  const path = join(workspaceRoot, CONFIG_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return { problem: `${path} could not be read: ${error instanceof Error ? error.message : String(error)}` };
  }
  try {
    return { kind: 'file', source: path, raw: JSON.parse(text) as unknown };
  } catch (error) {
    return { problem: `${path} is not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function settingsLayer(source: string, scope: ScopeValue, resource: vscode.Uri | undefined): ConfigLayer {
  const configuration = vscode.workspace.getConfiguration(undefined, resource);
  const values: Record<string, unknown> = {};
  for (const definition of settingDefinitions()) {
    const value = configuration.inspect(definition.key)?.[scope];
    if (value !== undefined) values[definition.key] = value;
  }
  return { kind: 'settings', source, values };
}

/** `npm start` and scripts pass the model the same way as to `zuno exec`; any setting beats them. */
function environmentLayer(env: NodeJS.ProcessEnv): ConfigLayer {
  const values: Record<string, unknown> = {};
  if (env.ZUNO_BASE_URL) values[`${SETTINGS_PREFIX}.model.baseUrl`] = env.ZUNO_BASE_URL;
  if (env.ZUNO_MODEL) values[`${SETTINGS_PREFIX}.model.name`] = env.ZUNO_MODEL;
  return { kind: 'settings', source: 'environment ZUNO_BASE_URL/ZUNO_MODEL', values };
}

export class ConfigSource implements vscode.Disposable {
  private resolved: ResolvedConfig;
  private readonly emitter = new vscode.EventEmitter<ResolvedConfig>();
  private readonly disposables: vscode.Disposable[] = [];
  private lastReported: string | undefined;
  /** The writes in flight, in order; `settled()` waits for them. */
  private writes: Promise<void> = Promise.resolve();
  /** Fires with the new config (or its problems) whenever a source changes. */
  readonly onDidChange = this.emitter.event;

  constructor(
    private readonly workspaceFolder: vscode.WorkspaceFolder | undefined,
    private readonly report: (message: string) => void,
  ) {
    this.resolved = this.read();
    this.disposables.push(
      this.emitter,
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(SETTINGS_PREFIX)) this.reload();
      }),
    );
    if (workspaceFolder) {
      const watcher = vscode.workspace.createFileSystemWatcher(
        new vscode.RelativePattern(workspaceFolder, CONFIG_FILE.split('\\').join('/')),
      );
      this.disposables.push(
        watcher,
        watcher.onDidCreate(() => this.reload()),
        watcher.onDidChange(() => this.reload()),
        watcher.onDidDelete(() => this.reload()),
      );
    }
    this.reportProblems();
  }

  get current(): ResolvedConfig {
    return this.resolved;
  }

  private read(): ResolvedConfig {
    const layers: ConfigLayer[] = [environmentLayer(process.env)];
    if (this.workspaceFolder) {
      const file = readFileLayer(this.workspaceFolder.uri.fsPath);
      if (file && 'problem' in file) return { ok: false, message: `Invalid Zuno configuration:\n${file.problem}` };
      if (file) layers.push(file);
    }
    const resource = this.workspaceFolder?.uri;
    layers.push(settingsLayer('User settings', 'globalValue', resource), settingsLayer('Workspace settings', 'workspaceValue', resource));
    // In a single-folder window the folder's settings are the workspace settings; counting them
    // twice would list each rule twice.
    if (vscode.workspace.workspaceFile !== undefined && resource)
      layers.push(settingsLayer('Workspace Folder settings', 'workspaceFolderValue', resource));
    return resolveConfig(layers);
  }

  reload(): void {
    this.resolved = this.read();
    this.reportProblems();
    this.emitter.fire(this.resolved);
  }

  /** One notification per distinct problem, naming each key; fixed problems are forgotten. */
  private reportProblems(): void {
    const message = this.resolved.ok ? undefined : this.resolved.message;
    if (message !== undefined && message !== this.lastReported) this.report(message);
    this.lastReported = message;
  }

  /**
   * The config once every write begun so far has taken effect. A command that reads the config
   * to show it (Toggle Tools' checkboxes, the current mode) reads it through this, so that one
   * run right after a write does not show the value from before it.
   */
  async settled(): Promise<ResolvedConfig> {
    await this.writes;
    return this.resolved;
  }

  /** `settled()` for a command that needs a valid config: its problems are the error otherwise. */
  async settledConfig(): Promise<ZunoConfig> {
    const resolved = await this.settled();
    if (!resolved.ok) throw new Error(`Fix the configuration first:\n${resolved.message}`);
    return resolved.config;
  }

  /**
   * Writes a setting where it takes effect: into the most specific scope that already sets it,
   * else the workspace (with a folder open) or the user settings. Resolves once the extension
   * host reads the new value back (or after WRITE_SETTLE_MS), with the config reloaded.
   */
  write(key: string, value: unknown, fallback: 'workspace' | 'user'): Promise<void> {
    return this.enqueue(() => this.writeNow(key, value, fallback));
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    const done = this.writes.then(work);
    // A failed write is reported to its caller; later writes and settled() still go on.
    this.writes = done.catch(() => undefined);
    return done;
  }

  private async updateAndSettle(key: string, value: unknown, target: vscode.ConfigurationTarget, scope: ScopeValue): Promise<void> {
    const resource = this.workspaceFolder?.uri;
    await vscode.workspace.getConfiguration(undefined, resource).update(key, value, target);
    await whenHolds(
      () => sameSettingValue(vscode.workspace.getConfiguration(undefined, resource).inspect(key)?.[scope], value),
      (listener) => vscode.workspace.onDidChangeConfiguration(listener),
      WRITE_SETTLE_MS,
    );
  }

  private async writeNow(key: string, value: unknown, fallback: 'workspace' | 'user'): Promise<void> {
    const resource = this.workspaceFolder?.uri;
    const inspected = vscode.workspace.getConfiguration(undefined, resource).inspect(key);
    let target: vscode.ConfigurationTarget;
    let scope: ScopeValue;
    if (inspected?.workspaceFolderValue !== undefined && vscode.workspace.workspaceFile !== undefined) {
      target = vscode.ConfigurationTarget.WorkspaceFolder;
      scope = 'workspaceFolderValue';
    } else if (
      inspected?.workspaceValue !== undefined ||
      (inspected?.globalValue === undefined && fallback === 'workspace' && this.workspaceFolder)
    ) {
      target = vscode.ConfigurationTarget.Workspace;
      scope = 'workspaceValue';
    } else {
      target = vscode.ConfigurationTarget.Global;
      scope = 'globalValue';
    }
    await this.updateAndSettle(key, value, target, scope);
    this.reload();
  }

  /** "Allow like this": appends a rule to the workspace's visible rule list (user settings without a folder). */
  appendRule(rule: PermissionRule): Promise<void> {
    return this.enqueue(async () => {
      const key = `${SETTINGS_PREFIX}.permission.rules`;
      const inspected = vscode.workspace.getConfiguration(undefined, this.workspaceFolder?.uri).inspect<unknown[]>(key);
      const [target, scope] = this.workspaceFolder
        ? ([vscode.ConfigurationTarget.Workspace, 'workspaceValue'] as const)
        : ([vscode.ConfigurationTarget.Global, 'globalValue'] as const);
      const existing = inspected?.[scope] ?? [];
      const already = existing.some((entry) => JSON.stringify(entry) === JSON.stringify(rule));
      if (!already) await this.updateAndSettle(key, [...existing, rule], target, scope);
      this.reload();
    });
  }

  dispose(): void {
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
  }
}
