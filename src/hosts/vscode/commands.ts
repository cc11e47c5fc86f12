/**
 * The command handlers, one per entry of the command table in `manifest.ts`, registered by one
 * loop. The `Record<CommandId, …>` type makes a missing or an extra handler a compile error.
 */
import * as vscode from 'vscode';
import type { ZunoConfig } from '../../core/config';
import type { ToolRegistration } from '../../core/registry';
import type { CallEnvironment, Tool } from '../../core/tool';
import type { ApiKeys } from './backend';
import type { ChatController } from './chat-controller';
import { sessionSummary, type StoredSession } from './chat-history';
import type { ConfigSource } from './config-source';
import { addSelectionToChat, exportChat } from './composer-commands';
import { CHAT_VIEW_ID, COMMAND_IDS, type CommandId } from './manifest';
import { pickPermissionMode, selectModel } from './model-picker';
import { SETTINGS_PREFIX } from './settings';

export interface CommandContext {
  readonly controller: ChatController;
  readonly config: ConfigSource;
  readonly apiKeys: ApiKeys;
  readonly log: vscode.LogOutputChannel;
  /** The registered tools, for Toggle Tools (no store or ripgrep needed). */
  readonly registrations: () => readonly ToolRegistration[];
  /** Opens the store (Show History needs it). */
  readonly openStore: () => Promise<void>;
  readonly sessions: () => readonly StoredSession[];
  /** An environment for availability checks; undefined without a folder. */
  readonly environment: (config: ZunoConfig) => CallEnvironment | undefined;
  /** The MCP servers' tools, their servers started (the user asked for the list); none without a folder. */
  readonly mcpTools: () => Promise<readonly Tool[]>;
  /** "Zuno: MCP Servers" (mcp-servers.ts). */
  readonly mcpServers: () => Promise<void>;
  /** Approve or Deny in a proposal's diff editor title bar (proposal-title.ts). */
  readonly decideProposal: (approved: boolean) => Promise<void>;
}

async function focusChat(): Promise<void> {
  await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
}

async function toggleTools(context: CommandContext): Promise<void> {
  const config = await context.config.settledConfig();
  const environment = context.environment(config);
  const items = context
    .registrations()
    // Slots (edit, lsp, …) are offered only to agents whose allowlist names them; a switch cannot add them.
    .filter((registration) => registration.defaultSurface)
    .map(({ tool }) => {
      const unavailable = environment ? tool.unavailableReason(environment) : undefined;
      const summary = tool.description.split(/(?<=\.)\s/)[0] ?? '';
      return {
        label: tool.name,
        description: unavailable ? `(not available here: ${unavailable})` : '',
        detail: summary,
        picked: config.tools[tool.name] !== false,
      };
    });
  // MCP tools under their Zuno names (issue 11); the same `tools` switches apply to them.
  const mcpTools = await context.mcpTools().catch((error: unknown) => {
    context.log.warn(`Toggle Tools: the MCP tools could not be listed (${error instanceof Error ? error.message : String(error)})`);
    return [];
  });
  for (const tool of mcpTools) {
    const summary = tool.description.split('\n')[0] ?? '';
    items.push({ label: tool.name, description: '(MCP)', detail: summary, picked: config.tools[tool.name] !== false });
  }
  const chosen = await vscode.window.showQuickPick(items, {
    canPickMany: true,
    title: 'Zuno: tools the model is offered',
    placeHolder: 'Checked tools are offered to the model. This is availability, not permission (see zuno.permission.rules).',
  });
  if (!chosen) return;
  const enabled = new Set(chosen.map((item) => item.label));
  const key = `${SETTINGS_PREFIX}.tools`;
  const existing = vscode.workspace.getConfiguration().get<Record<string, boolean>>(key) ?? {};
  const next: Record<string, boolean> = { ...existing };
  for (const item of items) {
    if (!enabled.has(item.label)) next[item.label] = false;
    // An explicit `true` only where something else switches the tool off (e.g. .zuno/config.json).
    else if (config.tools[item.label] === false) next[item.label] = true;
    else delete next[item.label];
  }
  await context.config.write(key, next, 'workspace');
}

async function setApiKey(context: CommandContext): Promise<void> {
  const config = await context.config.settledConfig();
  if (config.model.provider === 'vscode-lm') {
    void vscode.window.showInformationMessage(
      'VS Code language models need no key in Zuno. To use a server that does, run “Zuno: Select Model” first.',
    );
    return;
  }
  const { provider, base_url: baseUrl } = config.model;
  const value = await vscode.window.showInputBox({
    title: `Zuno: API key for ${new URL(baseUrl).origin}`,
    prompt: `The ${provider === 'openai' ? 'OpenAI-compatible' : 'Anthropic'} key, kept in VS Code's SecretStorage and sent only to ${new URL(baseUrl).origin}. Leave empty to remove the stored key.`,
    password: true,
    ignoreFocusOut: true,
  });
  if (value === undefined) return;
  await context.apiKeys.set(provider, baseUrl, value.trim() || undefined);
  void vscode.window.showInformationMessage(
    value.trim() ? `Zuno: the key for ${new URL(baseUrl).origin} is stored.` : `Zuno: the key for ${new URL(baseUrl).origin} is removed.`,
  );
}

async function showHistory(context: CommandContext): Promise<void> {
  await context.openStore();
  const sessions = context.sessions().map(sessionSummary);
  if (sessions.length === 0) {
    void vscode.window.showInformationMessage('Zuno: no chats yet in this workspace.');
    return;
  }
  const picked = await vscode.window.showQuickPick(
    sessions.map((session) => ({
      label: session.parent === undefined ? session.title : `$(arrow-small-right) ${session.title}`,
      description:
        session.parent === undefined
          ? new Date(session.updatedAt).toLocaleString()
          : `${session.parent.agent} task · ${new Date(session.updatedAt).toLocaleString()}`,
      detail: session.id,
      id: session.id,
    })),
    { title: 'Zuno: chats in this workspace', matchOnDetail: true },
  );
  if (!picked) return;
  await focusChat();
  if (!(await context.controller.openSession(picked.id)))
    void vscode.window.showWarningMessage('Zuno is working in the current chat. Cancel it first, then open another one.');
}

function handlers(context: CommandContext): Record<CommandId, () => unknown> {
  return {
    'zuno.newChat': async () => {
      await focusChat();
      if (!context.controller.newChat())
        void vscode.window.showWarningMessage('Zuno is working in this chat. Cancel it first, then start a new chat.');
    },
    'zuno.cancel': () => context.controller.cancel(),
    'zuno.showHistory': () => showHistory(context),
    'zuno.toggleTools': () => toggleTools(context),
    'zuno.setPermissionMode': () => pickPermissionMode(context),
    'zuno.selectModel': () => selectModel(context),
    'zuno.setApiKey': () => setApiKey(context),
    'zuno.openToolLog': () => context.log.show(true),
    'zuno.compact': async () => {
      const refusal = await context.controller.compact();
      if (refusal) void vscode.window.showInformationMessage(`Zuno: ${refusal}`);
    },
    'zuno.mcpServers': () => context.mcpServers(),
    'zuno.addSelectionToChat': () => addSelectionToChat(context.controller),
    'zuno.exportChat': () => exportChat(context.controller),
    'zuno.approveProposal': () => context.decideProposal(true),
    'zuno.denyProposal': () => context.decideProposal(false),
  };
}

/** Registers every command; a failing command shows its error instead of failing silently. */
export function registerCommands(context: CommandContext): vscode.Disposable[] {
  const table = handlers(context);
  return COMMAND_IDS.map((id) =>
    vscode.commands.registerCommand(id, async () => {
      try {
        await table[id]();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        context.log.error(`${id} failed: ${message}`);
        void vscode.window.showErrorMessage(`Zuno: ${message}`);
      }
    }),
  );
}
