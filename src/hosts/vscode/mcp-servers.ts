/**
 * MCP in the editor (issue 11): the servers the runtime sees (settings and `.vscode/mcp.json`),
 * the approval of the workspace file's servers, `${input:ID}` from SecretStorage, and the
 * "Zuno: MCP Servers" command (state, tool count and trust of each server; restart, enable or
 * disable, trust, approve, and review changed tools as a diff of their definitions). Starting,
 * enabling, trusting and accepting are the user's acts: only these commands and prompts do them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { McpServerConfig, ZunoConfig } from '../../core/config';
import { acceptAndKeep, pinVerdict, type McpClients, type McpToolDefinition } from '../../core/mcp';
import { WORKSPACE_MCP_FILE, type WorkspaceMcpServer } from '../../core/mcp-workspace';
import type { McpInputSource } from '../../hosts/node/mcp';
import { createMcpPinStore } from '../../hosts/node/mcp-pins';
import { createWorkspaceMcpDecisionStore, loadWorkspaceMcp, type WorkspaceMcp } from '../../hosts/node/mcp-workspace';
import type { ConfigSource } from './config-source';
import { SETTINGS_PREFIX } from './settings';

const INPUT_SECRET_PREFIX = 'zuno.mcp.input.';

export interface EditorMcpOptions {
  readonly workspaceRoot: string;
  readonly stateDir: () => string;
  readonly config: ConfigSource;
  readonly secrets: vscode.SecretStorage;
  readonly log: vscode.LogOutputChannel;
}

/** The servers of settings and of the approved `.vscode/mcp.json` entries, kept current. */
export class EditorMcp implements vscode.Disposable {
  private workspace: WorkspaceMcp | undefined;
  private loaded = false;
  /** Pending definitions already asked about in this window, so a "Not now" is not asked again at each prompt. */
  private readonly asked = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly options: EditorMcpOptions) {
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(options.workspaceRoot, WORKSPACE_MCP_FILE));
    const reload = (): void => {
      this.loaded = false;
    };
    this.disposables.push(
      watcher,
      watcher.onDidCreate(reload),
      watcher.onDidChange(reload),
      watcher.onDidDelete(reload),
      options.config.onDidChange(reload),
    );
  }

  private config(): ZunoConfig | undefined {
    const current = this.options.config.current;
    return current.ok ? current.config : undefined;
  }

  /** The file against the user's decisions; read again after the file, the settings or a decision changed. */
  standing(): WorkspaceMcp | undefined {
    const config = this.config();
    if (!this.loaded && config) {
      this.workspace = loadWorkspaceMcp(this.options.workspaceRoot, this.options.stateDir(), config);
      this.loaded = true;
      for (const problem of this.workspace?.problems ?? []) this.options.log.warn(`MCP: ${problem}`);
    }
    return this.workspace;
  }

  /** What the runtime starts: settings and `.zuno/config.json` first, then the approved file servers. */
  servers(): Readonly<Record<string, McpServerConfig>> {
    const configured = this.config()?.mcp.servers ?? {};
    return { ...(this.standing()?.standing.approved ?? {}), ...configured };
  }

  /** `${input:ID}`: SecretStorage, asked once (masked when the file says `password`) and kept there. */
  readonly inputs: McpInputSource = {
    get: async (id) => {
      const key = `${INPUT_SECRET_PREFIX}${id}`;
      const stored = await this.options.secrets.get(key);
      if (stored !== undefined) return stored;
      const input = this.standing()?.file.inputs.find((candidate) => candidate.id === id);
      const value = await vscode.window.showInputBox({
        title: `Zuno: MCP input "${id}"`,
        prompt: `${input?.description ?? id} (for ${WORKSPACE_MCP_FILE}; kept in VS Code's SecretStorage)`,
        password: input?.password ?? true,
        ignoreFocusOut: true,
      });
      if (value === undefined || value === '') return undefined;
      await this.options.secrets.store(key, value);
      return value;
    },
    where: (id) => `enter it when Zuno asks, or clear and set it again from "Zuno: MCP Servers" (input "${id}")`,
  };

  /** Asks about each server of the file that is not decided, once per definition and window. Before a prompt runs. */
  async askPending(): Promise<void> {
    for (const entry of this.standing()?.standing.pending ?? []) {
      if (this.asked.has(entry.hash)) continue;
      this.asked.add(entry.hash);
      const changed = entry.changed ? ' Its definition changed since you decided.' : '';
      const choice = await vscode.window.showWarningMessage(
        `This workspace's ${WORKSPACE_MCP_FILE} defines the MCP server "${entry.name}": ${entry.summary}.${changed} Start it? Only allow servers you trust to run on this machine.`,
        { modal: true },
        'Allow',
        "Don't Allow",
      );
      if (choice === undefined) continue;
      this.decide(entry, choice === 'Allow', false);
    }
  }

  decide(entry: WorkspaceMcpServer, approved: boolean, trust: boolean): void {
    createWorkspaceMcpDecisionStore(this.options.stateDir()).decide(entry.name, { hash: entry.hash, approved, trust: approved && trust });
    this.loaded = false;
  }

  dispose(): void {
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
  }
}

export interface McpServersContext {
  readonly mcp: EditorMcp;
  readonly config: ConfigSource;
  /** The runtime's clients, opened on demand (starting the store and ripgrep as any first use). */
  readonly clients: () => Promise<McpClients | undefined>;
  readonly stateDir: () => string;
}

interface ServerItem extends vscode.QuickPickItem {
  readonly server: string;
}

type ServerRow =
  | { readonly kind: 'configured'; readonly name: string; readonly entry: McpServerConfig; readonly fromFile?: WorkspaceMcpServer }
  | { readonly kind: 'unapproved'; readonly name: string; readonly fromFile: WorkspaceMcpServer; readonly declined: boolean };

function rows(context: McpServersContext): ServerRow[] {
  const standing = context.mcp.standing()?.standing;
  const fileEntry = (name: string): WorkspaceMcpServer | undefined =>
    context.mcp.standing()?.file.servers.find((entry) => entry.name === name);
  const configured = context.config.current.ok ? context.config.current.config.mcp.servers : {};
  const result: ServerRow[] = [];
  for (const [name, entry] of Object.entries(context.mcp.servers())) {
    const fromFile = Object.hasOwn(configured, name) ? undefined : fileEntry(name);
    result.push({ kind: 'configured', name, entry, ...(fromFile ? { fromFile } : {}) });
  }
  for (const entry of standing?.pending ?? []) result.push({ kind: 'unapproved', name: entry.name, fromFile: entry, declined: false });
  for (const entry of standing?.declined ?? []) result.push({ kind: 'unapproved', name: entry.name, fromFile: entry, declined: true });
  return result;
}

/** A tool whose definition differs from its pin, or that is new since the server was approved. */
async function changedTools(context: McpServersContext, clients: McpClients, server: string): Promise<McpToolDefinition[]> {
  const pins = await createMcpPinStore(context.stateDir()).load();
  if (pins[server] === undefined) return [];
  const definitions = await clients.tools(server, AbortSignal.timeout(30_000));
  return definitions.filter((definition) => pinVerdict(pins, server, definition) !== 'pinned');
}

/** The pinned and the current definition side by side in VS Code's diff editor, then a modal to accept. */
async function reviewChanged(context: McpServersContext, clients: McpClients, server: string): Promise<void> {
  const store = createMcpPinStore(context.stateDir());
  const changed = await changedTools(context, clients, server);
  if (changed.length === 0) {
    void vscode.window.showInformationMessage(`Zuno: every tool of MCP server "${server}" matches what was approved.`);
    return;
  }
  const kept = (await store.loadDefinitions())[server] ?? {};
  const folder = join(context.stateDir(), 'mcp-review', server.replace(/[^\w.-]/g, '_'));
  mkdirSync(folder, { recursive: true });
  for (const definition of changed) {
    const file = definition.name.replace(/[^\w.-]/g, '_');
    const before = join(folder, `${file}.approved.json`);
    const after = join(folder, `${file}.current.json`);
    const approved = kept[definition.name];
    writeFileSync(
      before,
      `${approved ? JSON.stringify(approved, null, 2) : '// not approved before: a new tool, or approved before Zuno kept definitions'}\n`,
    );
    writeFileSync(after, `${JSON.stringify(definition, null, 2)}\n`);
    await vscode.commands.executeCommand(
      'vscode.diff',
      vscode.Uri.file(before),
      vscode.Uri.file(after),
      `MCP ${server}/${definition.name}: approved ↔ now`,
    );
    const choice = await vscode.window.showWarningMessage(
      `Accept the new definition of "${definition.name}" (MCP server "${server}")? Until then it is withheld from the model.`,
      { modal: true },
      'Accept',
    );
    if (choice === 'Accept') await acceptAndKeep(store, await store.load(), server, [definition], definition.name);
  }
}

/** Writes `zuno.mcp.servers.<name>` with `change` applied (settings win over `.zuno/config.json`, name by name). */
async function updateSetting(
  context: McpServersContext,
  name: string,
  entry: McpServerConfig,
  change: Partial<Pick<McpServerConfig, 'enabled' | 'trust'>>,
): Promise<void> {
  const key = `${SETTINGS_PREFIX}.mcp.servers`;
  const existing = vscode.workspace.getConfiguration().inspect<Record<string, unknown>>(key)?.workspaceValue ?? {};
  await context.config.write(key, { ...existing, [name]: { ...entry, ...change } }, 'workspace');
}

/** "Zuno: MCP Servers". */
export async function showMcpServers(context: McpServersContext): Promise<void> {
  const clients = await context.clients();
  const all = rows(context);
  if (all.length === 0) {
    void vscode.window.showInformationMessage(`Zuno: no MCP servers. Add them in Settings (zuno.mcp.servers) or in ${WORKSPACE_MCP_FILE}.`);
    return;
  }
  const items: ServerItem[] = await Promise.all(
    all.map(async (row) => {
      if (row.kind === 'unapproved') {
        return {
          server: row.name,
          label: row.name,
          description: `${row.declined ? 'declined' : 'not approved'} · from ${WORKSPACE_MCP_FILE}`,
          detail: row.fromFile.summary,
        };
      }
      const status = clients?.status(row.name);
      let tools = '';
      if (clients && row.entry.enabled) {
        const listed = await clients.tools(row.name, AbortSignal.timeout(30_000)).catch(() => undefined);
        tools = listed ? ` · ${listed.length} tool${listed.length === 1 ? '' : 's'}` : '';
      }
      const origin = row.fromFile ? ` · from ${WORKSPACE_MCP_FILE}` : '';
      const state = clients?.status(row.name).state ?? (row.entry.enabled ? 'stopped' : 'disabled');
      return {
        server: row.name,
        label: row.name,
        description: `${state}${tools} · ${row.entry.trust ? 'trusted' : 'untrusted'}${origin}`,
        ...(status?.reason ? { detail: status.reason } : {}),
      };
    }),
  );
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Zuno: MCP servers',
    placeHolder: 'Pick a server to restart, enable or disable, trust, approve, or review changed tools',
  });
  if (!picked) return;
  const row = all.find((candidate) => candidate.name === picked.server);
  if (!row) return;

  if (row.kind === 'unapproved') {
    const choice = await vscode.window.showQuickPick(['Approve (start it, untrusted)', 'Decline'], {
      title: `MCP server "${row.name}": ${row.fromFile.summary}`,
    });
    if (choice) context.mcp.decide(row.fromFile, choice.startsWith('Approve'), false);
    return;
  }
  const actions = [
    ...(row.entry.enabled ? ['Restart', 'Disable', 'Review changed tools'] : ['Enable']),
    row.entry.trust ? 'Untrust (annotations shown, not obeyed)' : 'Trust (obey its annotations, e.g. read-only tools run without asking)',
  ];
  const action = await vscode.window.showQuickPick(actions, { title: `MCP server "${row.name}"` });
  if (!action) return;
  if (action === 'Restart') await clients?.restart(row.name);
  else if (action === 'Review changed tools') {
    if (clients) await reviewChanged(context, clients, row.name);
  } else {
    const enabled = action === 'Enable' ? true : action === 'Disable' ? false : row.entry.enabled;
    const trust = action.startsWith('Trust') ? true : action.startsWith('Untrust') ? false : row.entry.trust;
    // A server of the workspace file keeps its state in the user's decision record; others in settings.
    if (row.fromFile) context.mcp.decide(row.fromFile, enabled, trust);
    else await updateSetting(context, row.name, row.entry, { enabled, trust });
    await clients?.restart(row.name);
  }
}
