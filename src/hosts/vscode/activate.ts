/**
 * Wires the extension together. Activation is lazy (the Chat view or a command) and light: it
 * reads the settings, registers the view, the commands, the proposal file system and the status
 * bar. The store (sql.js) and ripgrep are opened on first use, by the backend.
 */
import * as vscode from 'vscode';
import { realpathSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ZunoEvent } from '../../core/events';
import { DEFAULT_ENVIRONMENT_POLICY, environmentPolicy } from '../../core/environment';
import type { Host } from '../../core/host';
import type { ToolRegistration } from '../../core/registry';
import { EditorMcp, showMcpServers } from './mcp-servers';
import { builtinToolRegistrations } from '../../tools/index';
import { ApprovalBroker } from './approval-state';
import { ApiKeys, EditorBackend, SESSION_STATE_KEY } from './backend';
import { ChatController } from './chat-controller';
import { ChatViewProvider } from './chat-view';
import { registerCommands } from './commands';
import { ConfigSource } from './config-source';
import { createVscodeHost } from './host';
import { createLanguageFeatures } from './language-features';
import { CHAT_VIEW_ID, RUNNING_CONTEXT_KEY } from './manifest';
import { EditorApprovals, PROPOSAL_SCHEME, ProposalFileSystem } from './proposals';
import { ProposalTitleActions } from './proposal-title';
import { QuestionBroker } from './question-state';
import { CHECKPOINT_SCHEME } from './rewinds';
import { SETTINGS_PREFIX, STATE_DIR_SETTING, stateRootSetting } from './settings';
import { resolveStateDir, type ResolvedStateDir } from '../../store/relocate';
import { ZunoStatusBar } from './status-bar';
import { SandboxStatusItem } from './sandbox-status';
import { MirrorTerminal } from './terminal';
import { MirroredProcessRunner } from './terminal-mirror';
import { toolLogLine } from './tool-log';

/** Settings read once, when the store and ripgrep are opened: changing them needs a reload. */
const RESTART_SETTINGS = [`${SETTINGS_PREFIX}.ripgrep.path`, STATE_DIR_SETTING];

/** The extension's parts, with one lifetime: the extension's. */
export class ZunoExtension implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly backend: EditorBackend;
  private readonly controller: ChatController;

  constructor(context: vscode.ExtensionContext) {
    const log = vscode.window.createOutputChannel('Zuno', { log: true });
    this.disposables.push(log);
    const folder = vscode.workspace.workspaceFolders?.[0];
    // Tools check containment against the real path of the root, symlinks resolved.
    const workspaceRoot = folder ? realpathSync.native(folder.uri.fsPath) : undefined;

    const config = new ConfigSource(folder, (message) => {
      log.error(message);
      const [headline = '', ...problems] = message.split('\n');
      void vscode.window.showErrorMessage(`${headline} ${problems.join(' · ')}`, 'Open Settings').then((choice) => {
        const key = /\b(zuno\.[\w.]+)/.exec(message)?.[1];
        if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', key ?? SETTINGS_PREFIX);
      });
    });
    this.disposables.push(config);

    const proposals = new ProposalFileSystem();
    this.disposables.push(proposals, vscode.workspace.registerFileSystemProvider(PROPOSAL_SCHEME, proposals, { isCaseSensitive: true }));

    // The brokers and the backend talk to the controller, which is built from them below; these
    // closures only run after activation, when it exists.
    const post = (message: Parameters<ChatController['post']>[0]): void => controller.post(message);
    const approvals = new ApprovalBroker(new EditorApprovals(proposals, post, (rule) => config.appendRule(rule)), workspaceRoot ?? '/');
    const questions = new QuestionBroker(post);
    const proposalTitle = new ProposalTitleActions(approvals);
    this.disposables.push(proposalTitle);

    let runner: MirroredProcessRunner | undefined;
    const terminal = new MirrorTerminal(() => runner?.interrupt() ?? false);
    this.disposables.push(terminal);

    const registrations = (): readonly ToolRegistration[] => builtinToolRegistrations();
    const statusBar = new ZunoStatusBar();
    const sandboxStatus = new SandboxStatusItem();
    this.disposables.push(statusBar, sandboxStatus);

    const onEvent = (event: ZunoEvent): void => {
      const line = toolLogLine(event);
      if (line) log.info(line);
      controller.onEvent(event);
    };

    // The same folder `zuno exec` uses for this workspace (issue 9), unless the User setting
    // zuno.stateDir moves every workspace's state elsewhere. Read once, hence RESTART_SETTINGS.
    let location: ResolvedStateDir | undefined;
    const stateLocation = (): ResolvedStateDir => {
      if (workspaceRoot === undefined) throw new Error('Open a folder first: Zuno keeps its state per workspace folder.');
      const root = stateRootSetting(vscode.workspace.getConfiguration().inspect(STATE_DIR_SETTING)?.globalValue, homedir());
      return (location ??= resolveStateDir({ workspaceRoot, ...(root !== undefined ? { root } : {}) }));
    };

    // Created on first use and shared: the runtime's tools and the availability checks of
    // Toggle Tools see the same host. ripgrep.path is read here, hence RESTART_SETTINGS.
    let host: Host | undefined;
    const getHost = (): Host =>
      (host ??= createVscodeHost({
        // Without a folder nothing runs; spills then have nowhere better to go than the temp dir.
        stateDir: workspaceRoot === undefined ? join(tmpdir(), 'zuno') : stateLocation().stateDir,
        approvals,
        questions,
        languageFeatures: createLanguageFeatures(),
        ...(config.current.ok && config.current.config.ripgrep.path ? { ripgrepPath: config.current.config.ripgrep.path } : {}),
        mirror: (inner) => (runner = new MirroredProcessRunner(inner, () => terminal.sink())),
        // An invalid config passes nothing through on purpose: the default drop applies.
        environmentPolicy: () => (config.current.ok ? environmentPolicy(config.current.config) : DEFAULT_ENVIRONMENT_POLICY),
      }));

    const apiKeys = new ApiKeys(context.secrets);
    const mcp =
      workspaceRoot === undefined
        ? undefined
        : new EditorMcp({ workspaceRoot, stateDir: () => stateLocation().stateDir, config, secrets: context.secrets, log });
    if (mcp) this.disposables.push(mcp);
    this.backend = new EditorBackend({
      ...(mcp ? { mcp: { servers: () => mcp.servers(), inputs: mcp.inputs, askPending: () => mcp.askPending() } } : {}),
      workspaceRoot,
      stateLocation,
      config,
      host: getHost,
      registrations,
      apiKeys,
      workspaceState: context.workspaceState,
      log,
      onEvent,
      configureModel: () => void vscode.commands.executeCommand('zuno.selectModel'),
      statusChanged: () => controller.refreshStatus(),
    });
    this.disposables.push(this.backend);

    const controller = new ChatController(this.backend, approvals, questions, context.workspaceState.get<string>(SESSION_STATE_KEY));
    this.controller = controller;
    const updateStatus = (): void => {
      const current = config.current;
      statusBar.update(current.ok ? current.config.permission.mode : undefined, controller.runningCalls);
      // Once the host exists (first use), so activation itself never spawns the bwrap probe.
      if (host && current.ok) void sandboxStatus.refresh(host, current.config);
      void vscode.commands.executeCommand('setContext', RUNNING_CONTEXT_KEY, controller.running);
    };
    controller.onDidChange(updateStatus);
    updateStatus();

    this.disposables.push(
      config.onDidChange(() => controller.refreshStatus()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        const changed = RESTART_SETTINGS.filter((key) => event.affectsConfiguration(key));
        if (changed.length === 0) return;
        void vscode.window
          .showInformationMessage(`Zuno: ${changed.join(', ')} takes effect after a window reload.`, 'Reload Window')
          .then((choice) => {
            if (choice) void vscode.commands.executeCommand('workbench.action.reloadWindow');
          });
      }),
      vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, new ChatViewProvider(context.extensionUri, controller)),
      vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, this.backend.rewinds),
      ...registerCommands({
        controller,
        config,
        apiKeys,
        log,
        registrations,
        openStore: () => this.backend.open(),
        sessions: () => this.backend.sessions(),
        environment: (current) => (workspaceRoot === undefined ? undefined : { host: getHost(), config: current, workspaceRoot }),
        mcpTools: () => this.backend.mcpTools(),
        mcpServers: async () => {
          if (!mcp) throw new Error('Open a folder first: MCP servers belong to a workspace.');
          await showMcpServers({ mcp, config, clients: () => this.backend.mcpClients(), stateDir: () => stateLocation().stateDir });
        },
        decideProposal: (approved) => proposalTitle.decide(approved),
      }),
    );
  }

  /** Stops the running turn and closes the store, releasing the state dir for the next window. */
  async shutdown(): Promise<void> {
    this.controller.cancel();
    await this.backend.close();
  }

  dispose(): void {
    for (const disposable of this.disposables.splice(0).reverse()) disposable.dispose();
  }
}
