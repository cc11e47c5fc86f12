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
import type { PermissionRule } from '../../core/config';
import { resolveConfig, SETTINGS_PREFIX, settingDefinitions, type ConfigLayer, type ResolvedConfig } from './settings';

export const CONFIG_FILE = join('.zuno', 'config.json');

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
   * Writes a setting where it takes effect: into the most specific scope that already sets it,
   * else the workspace (with a folder open) or the user settings.
   */
  async write(key: string, value: unknown, fallback: 'workspace' | 'user'): Promise<void> {
    const configuration = vscode.workspace.getConfiguration(undefined, this.workspaceFolder?.uri);
    const inspected = configuration.inspect(key);
    let target: vscode.ConfigurationTarget;
    if (inspected?.workspaceFolderValue !== undefined && vscode.workspace.workspaceFile !== undefined)
      target = vscode.ConfigurationTarget.WorkspaceFolder;
    else if (inspected?.workspaceValue !== undefined) target = vscode.ConfigurationTarget.Workspace;
    else if (inspected?.globalValue !== undefined) target = vscode.ConfigurationTarget.Global;
    else
      target = fallback === 'workspace' && this.workspaceFolder ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await configuration.update(key, value, target);
    // The change event may arrive after `update` resolves (a remote extension host): read now,
    // so whoever wrote the setting sees it at once.
    this.reload();
  }

  /** "Allow like this": appends a rule to the workspace's visible rule list (user settings without a folder). */
  async appendRule(rule: PermissionRule): Promise<void> {
    const key = `${SETTINGS_PREFIX}.permission.rules`;
    const configuration = vscode.workspace.getConfiguration(undefined, this.workspaceFolder?.uri);
    const inspected = configuration.inspect<unknown[]>(key);
    const target = this.workspaceFolder ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    const existing = (target === vscode.ConfigurationTarget.Workspace ? inspected?.workspaceValue : inspected?.globalValue) ?? [];
    const already = existing.some((entry) => JSON.stringify(entry) === JSON.stringify(rule));
    if (!already) await configuration.update(key, [...existing, rule], target);
    this.reload();
  }

  dispose(): void {
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
  }
}
