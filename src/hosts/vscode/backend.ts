/**
 * The runtime inside the editor: the same `createRuntime` + `runAgent` path as `zuno exec`, with
 * the editor's Host (approvals and questions in the chat view, commands mirrored to the Zuno
 * terminal) and, for `vscode-lm`, the editor's own model provider. Nothing heavy happens until
 * the first use: the store (sql.js) and ripgrep are opened when the chat view first asks for its
 * snapshot or a command needs them.
 */
import * as vscode from 'vscode';
import { createProvider, createRuntime, modelTuning, type Runtime } from '../../agent/runtime';
import { compactSession } from '../../agent/compaction';
import { forkBeforeUserMessage } from '../../agent/resend';
import { ProviderError, type ModelProvider } from '../../agent/provider';
import type { McpServerConfig, PermissionMode, ZunoConfig } from '../../core/config';
import type { McpClients } from '../../core/mcp';
import type { McpInputSource } from '../../hosts/node/mcp';
import { ConfigError } from '../../core/errors';
import type { ZunoEvent } from '../../core/events';
import type { Host } from '../../core/host';
import type { ImagePart } from '../../core/transcript';
import type { ToolRegistration } from '../../core/registry';
import { agentRunner, contextWindowFor, type AgentRequest, type AgentRunResult, type QueuedPrompt } from '../../agent/loop';
import { imageRefusal } from '../../agent/images';
import type { CallEnvironment, Tool } from '../../core/tool';
import { announceMigration, ensureStateDir, migrateStateDir, type ResolvedStateDir } from '../../store/relocate';
import type { ViewStatus } from '../../webview/protocol';
import { SEARCH_LIMIT, type HistoryBackend, type StoredSession } from './chat-history';
import type { ChatBackend } from './chat-controller';
import type { ConfigSource } from './config-source';
import { LanguageModelProvider, resolveChatModel } from './lm-provider';
import { EditorRewinds } from './rewinds';
import { writePermissionMode } from './model-picker';
import { WorkspaceFiles } from './workspace-files';
import { keyEnvironmentVariables, secretKeyFor, setupHint, type ModelProviderName } from './model-setup';

export const SESSION_STATE_KEY = 'zuno.session';

/** API keys in VS Code's SecretStorage only, per provider and server (see `secretKeyFor`). */
export class ApiKeys {
  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /**
   * The stored key; on first use, a key from ZUNO_API_KEY (or `model.api_key_env`) is moved into
   * SecretStorage, so `npm start` works without typing it, and it is never written elsewhere.
   */
  async get(config: ZunoConfig): Promise<string | undefined> {
    const { provider, base_url: baseUrl } = config.model;
    const key = secretKeyFor(provider, baseUrl);
    const stored = await this.secrets.get(key);
    if (stored) return stored;
    for (const variable of keyEnvironmentVariables(config)) {
      const value = this.env[variable];
      if (value) {
        await this.secrets.store(key, value);
        return value;
      }
    }
    return undefined;
  }

  async set(provider: ModelProviderName, baseUrl: string, value: string | undefined): Promise<void> {
    const key = secretKeyFor(provider, baseUrl);
    if (value) await this.secrets.store(key, value);
    else await this.secrets.delete(key);
  }
}

export interface BackendOptions {
  readonly workspaceRoot: string | undefined;
  /** Where this workspace's store is (issue 9), and the old in-workspace folder to move there first. */
  readonly stateLocation: () => ResolvedStateDir;
  readonly config: ConfigSource;
  readonly host: () => Host;
  readonly registrations: () => readonly ToolRegistration[];
  readonly apiKeys: ApiKeys;
  readonly workspaceState: vscode.Memento;
  readonly log: vscode.LogOutputChannel;
  /** Every runtime event, for the controller, the tool log and the status bar. */
  readonly onEvent: (event: ZunoEvent) => void;
  readonly configureModel: () => void;
  /** The status may read differently now (the set of vscode.lm models changed). */
  readonly statusChanged: () => void;
  /** MCP servers read live, their inputs, and the approval of the workspace file's servers (mcp-servers.ts). */
  readonly mcp?: {
    readonly servers: () => Readonly<Record<string, McpServerConfig>>;
    readonly inputs: McpInputSource;
    askPending(): Promise<void>;
  };
}

/**
 * The runtime with the environment and scheduler prompts run through. The scheduler outlives a
 * prompt so that it can compare each prompt's rules with the last one's (issue 8 §3).
 */
interface OpenRuntime {
  readonly runtime: Runtime;
  /** The agent loop bound to the runtime with the live scheduler and environment instead of its own. */
  readonly run: (request: AgentRequest) => Promise<AgentRunResult>;
}

const NO_FOLDER = 'Open a folder first: Zuno works inside a workspace folder (File › Open Folder…).';

export class EditorBackend implements ChatBackend, vscode.Disposable {
  private runtime: Promise<OpenRuntime> | undefined;
  private opened: Runtime | undefined;
  /** How many vscode.lm models exist, for the setup hint; refreshed in the background. */
  private languageModels: number | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  /** "Restore files to before this message" (issue 13), over this backend's runtime. */
  readonly rewinds: EditorRewinds;
  readonly mentions: WorkspaceFiles;

  constructor(private readonly options: BackendOptions) {
    this.disposables.push(vscode.lm.onDidChangeChatModels(() => this.countLanguageModels()));
    this.rewinds = new EditorRewinds(async () => (await this.ensureRuntime()).runtime, options.workspaceRoot);
    this.mentions = new WorkspaceFiles(options.workspaceRoot);
  }

  /** Opens the store and checks ripgrep, once (SPEC S4: a missing rg is a startup error, shown). */
  async open(): Promise<void> {
    await this.ensureRuntime();
  }

  private ensureRuntime(): Promise<OpenRuntime> {
    const root = this.options.workspaceRoot;
    if (root === undefined) return Promise.reject(new Error(NO_FOLDER));
    this.runtime ??= (async () => {
      const config = this.validConfig();
      const { stateDir: location, legacyDir } = this.options.stateLocation();
      // Before the store opens: a failed move fails the open, naming both folders, the old one untouched.
      const migration = legacyDir === undefined ? undefined : await migrateStateDir({ from: legacyDir, to: location });
      const stateDir = ensureStateDir(location);
      if (migration) {
        this.options.log.info(migration.notice);
        if (migration.warning) this.options.log.warn(migration.warning);
        void vscode.window.showInformationMessage(`Zuno: ${migration.notice}`);
      }
      const runtime = await createRuntime({
        config,
        workspaceRoot: root,
        stateDir,
        host: this.options.host(),
        registrations: this.options.registrations(),
        ...(this.options.mcp ? { mcpServers: this.options.mcp.servers, mcpInputs: this.options.mcp.inputs } : {}),
        // Read at every turn: turning checkpoints off (or on) in settings needs no reload.
        checkpointsEnabled: () =>
          this.options.config.current.ok ? this.options.config.current.config.checkpoints.enabled : config.checkpoints.enabled,
        // Delegated agents and council members use the configured provider, by model name.
        models: {
          forModel: (model) => {
            const current = this.validConfig();
            return this.provider(model === undefined ? current : { ...current, model: { ...current.model, name: model } });
          },
        },
      });
      runtime.events.on((event) => this.options.onEvent(event));
      if (migration) announceMigration(runtime.events, migration);
      this.opened = runtime;
      return this.liveScheduler(runtime, config);
    })();
    // A failed start (no rg, the state dir locked by another process) may be fixed and retried.
    this.runtime.catch(() => (this.runtime = undefined));
    return this.runtime;
  }

  /**
   * The scheduler reads the config live, so a deny rule typed into settings applies to the very
   * next call; a looser config waits for the next prompt (the scheduler's snapshot), except a
   * rule the user adds with "Allow like this". Should the settings become invalid, the last
   * valid config stays in force.
   */
  private liveScheduler(runtime: Runtime, initial: ZunoConfig): OpenRuntime {
    const source = this.options.config;
    let config = initial;
    const env: CallEnvironment = {
      // Background jobs, work state, delegation, the council and the state dir come with the runtime's environment.
      ...runtime.env,
      get config(): ZunoConfig {
        const current = source.current;
        if (current.ok) config = current.config;
        return config;
      },
    };
    const scheduler = runtime.schedulerFor(env);
    return { runtime, run: agentRunner({ store: runtime.store, scheduler, registry: runtime.registry, env, events: runtime.events }) };
  }

  imageRefusal(images: number): string | undefined {
    const resolved = this.options.config.current;
    // An invalid configuration is reported when the run starts, in its own words.
    return resolved.ok ? imageRefusal(resolved.config, images) : undefined;
  }

  private validConfig(): ZunoConfig {
    const resolved = this.options.config.current;
    if (!resolved.ok) throw new ConfigError(resolved.message);
    return resolved.config;
  }

  private store() {
    if (!this.opened) throw new Error('The Zuno store is not open yet.');
    return this.opened.store;
  }

  events(sessionId: string): readonly ZunoEvent[] {
    return this.store().events(sessionId);
  }

  callOutput(sessionId: string, callId: string): string | undefined {
    return this.store().getCall(sessionId, callId)?.output;
  }

  sessions(): readonly StoredSession[] {
    return this.store().listSessions();
  }

  /** The view's history search, rename and delete (issue 14 item 10), on the same store as `zuno sessions`. */
  readonly history: HistoryBackend = {
    search: (query) =>
      this.store()
        .searchSessions(query, { limit: SEARCH_LIMIT })
        .map((hit) => ({ sessionId: hit.sessionId, ...(hit.excerpts[0] ? { excerpt: hit.excerpts[0].text } : {}) })),
    rename: (sessionId, title) => this.store().renameSession(sessionId, title),
    delete: (sessionId) => this.store().deleteSession(sessionId),
  };

  hasSession(sessionId: string): boolean {
    return this.store().getSession(sessionId) !== undefined;
  }

  interrupted(sessionId: string): boolean {
    return this.store().getSession(sessionId)?.status === 'active';
  }

  /** The runtime's MCP clients, opening the runtime if needed; undefined without a folder. */
  async mcpClients(): Promise<McpClients | undefined> {
    if (this.options.workspaceRoot === undefined) return undefined;
    return (await this.ensureRuntime()).runtime.mcp;
  }

  /** The MCP tools as the model would be offered them, servers started first. */
  async mcpTools(): Promise<readonly Tool[]> {
    // Without a server nothing needs the store open (Toggle Tools works before any chat).
    if (this.options.workspaceRoot === undefined || Object.keys(this.options.mcp?.servers() ?? {}).length === 0) return [];
    const { runtime } = await this.ensureRuntime();
    await runtime.registry.prepare(AbortSignal.timeout(60_000), (level, text) =>
      this.options.log[level === 'error' ? 'error' : level === 'warning' ? 'warn' : 'info'](text),
    );
    return runtime.registry
      .names()
      .flatMap((name) => (name.startsWith('mcp__') ? [runtime.registry.get(name)].filter((tool) => tool !== undefined) : []));
  }

  async run(
    prompt: string,
    sessionId: string | undefined,
    signal: AbortSignal,
    takeQueued?: () => readonly QueuedPrompt[],
    images?: readonly ImagePart[],
  ): Promise<void> {
    const { runtime, run } = await this.ensureRuntime();
    // A server of .vscode/mcp.json starts only once the user allowed it (issue 11).
    await this.options.mcp?.askPending();
    const provider = await this.provider(this.validConfig());
    const result = await run({
      provider,
      prompt,
      signal,
      ...(sessionId !== undefined ? { sessionId } : {}),
      ...(takeQueued !== undefined ? { takeQueuedMessages: takeQueued } : {}),
      ...(images !== undefined ? { images } : {}),
    });
    const status = result.error instanceof ProviderError ? result.error.status : undefined;
    if (status === 401 || status === 403) {
      runtime.events.emit(result.sessionId, {
        type: 'notice',
        level: 'info',
        text: "In VS Code, API keys are set with “Zuno: Set API Key” (Command Palette); they are kept in VS Code's SecretStorage.",
      });
    }
  }

  async compact(sessionId: string, signal: AbortSignal): Promise<boolean> {
    const { runtime } = await this.ensureRuntime();
    const config = this.validConfig();
    const provider = await this.provider(config);
    const window = await contextWindowFor(provider, config.model.context_window, signal);
    return (await compactSession({ store: runtime.store, provider, events: runtime.events, sessionId, window, signal })) !== undefined;
  }

  private async provider(config: ZunoConfig): Promise<ModelProvider> {
    const { provider, name, base_url: baseUrl } = config.model;
    if (provider === 'vscode-lm') return new LanguageModelProvider(await resolveChatModel(name));
    const hint = setupHint(config, this.languageModels);
    if (hint) throw new ConfigError(hint);
    const key = await this.options.apiKeys.get(config);
    return createProvider({
      provider,
      baseUrl,
      model: name,
      apiKey: { key, envVar: undefined },
      retry: config.retry,
      idleTimeoutMs: config.model.idle_timeout_ms,
      ...modelTuning(config),
    });
  }

  editorAction(action: 'set-api-key' | 'open-settings'): void {
    const run =
      action === 'set-api-key'
        ? vscode.commands.executeCommand('zuno.setApiKey')
        : vscode.commands.executeCommand('workbench.action.openSettings', 'zuno');
    run.then(undefined, (error: unknown) => this.log(`${action} failed: ${error instanceof Error ? error.message : String(error)}`));
  }

  status(running: boolean): ViewStatus {
    if (this.options.workspaceRoot === undefined)
      return { permissionMode: 'strict', modelLabel: 'no model', setupHint: NO_FOLDER, running };
    const resolved = this.options.config.current;
    if (!resolved.ok)
      return {
        permissionMode: 'strict',
        modelLabel: 'configuration invalid',
        setupHint: `${resolved.message}\nFix it in Settings (search “zuno”) or in .zuno/config.json.`,
        running,
      };
    const { config } = resolved;
    const { provider, name, base_url: baseUrl } = config.model;
    if (provider === 'vscode-lm' && this.languageModels === undefined) this.countLanguageModels();
    const modelLabel =
      provider === 'vscode-lm' ? `VS Code model ${name ?? '(first available)'}` : name ? `${name} at ${baseUrl}` : 'no model';
    const hint = setupHint(config, this.languageModels);
    // In the words of the editor: the setting's own name, or why git could not be run.
    const checkpointsOff = !config.checkpoints.enabled
      ? 'Checkpoints are off (setting zuno.checkpoints.enabled): file changes from now on cannot be restored from the chat.'
      : this.opened?.checkpoints.off();
    return {
      permissionMode: config.permission.mode,
      modelLabel,
      ...(name !== undefined ? { modelName: name } : provider === 'vscode-lm' ? { modelName: 'first VS Code model' } : {}),
      ...(hint ? { setupHint: hint } : {}),
      running,
      ...(checkpointsOff !== undefined ? { checkpointsOff } : {}),
    };
  }

  private countLanguageModels(): void {
    vscode.lm.selectChatModels().then(
      (models) => {
        const changed = models.length !== this.languageModels;
        this.languageModels = models.length;
        if (changed) this.options.statusChanged();
      },
      () => undefined,
    );
  }

  configureModel(): void {
    this.options.configureModel();
  }

  async forkBefore(sessionId: string, ordinal: number): Promise<string> {
    const { runtime } = await this.ensureRuntime();
    if (this.options.workspaceRoot === undefined) throw new Error(NO_FOLDER);
    return forkBeforeUserMessage(runtime.store, sessionId, ordinal, this.options.workspaceRoot);
  }

  setPermissionMode(mode: PermissionMode): Promise<void> {
    return writePermissionMode(this.options.config, mode);
  }

  rememberSession(sessionId: string | undefined): void {
    void this.options.workspaceState.update(SESSION_STATE_KEY, sessionId);
  }

  log(message: string): void {
    this.options.log.warn(message);
  }

  /** Closes the store (flushing it) and releases the state dir's lock. */
  async close(): Promise<void> {
    const open = await this.runtime?.catch(() => undefined);
    this.runtime = undefined;
    this.opened = undefined;
    await open?.runtime.close();
  }

  dispose(): void {
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
  }
}
