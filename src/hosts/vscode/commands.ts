/**
 * The command handlers, one per entry of the command table in `manifest.ts`, registered by one
 * loop. The `Record<CommandId, …>` type makes a missing or an extra handler a compile error.
 */
import * as vscode from 'vscode';
import { PERMISSION_MODES, type PermissionMode, type ZunoConfig } from '../../core/config';
import type { ToolRegistration } from '../../core/registry';
import type { CallEnvironment, Tool } from '../../core/tool';
import type { ApiKeys } from './backend';
import type { ChatController } from './chat-controller';
import { sessionSummary, type StoredSession } from './chat-history';
import type { ConfigSource } from './config-source';
import { availableChatModels } from './lm-provider';
import { addSelectionToChat, exportChat } from './composer-commands';
import { CHAT_VIEW_ID, COMMAND_IDS, type CommandId } from './manifest';
import { listServerModels } from '../../agent/provider';
import { DEFAULT_BASE_URLS, modelListRequest, secretKeyFor, type ModelProviderName } from './model-setup';
import { SETTINGS_PREFIX } from './settings';

export interface CommandContext {
  readonly controller: ChatController;
  readonly config: ConfigSource;
  readonly apiKeys: ApiKeys;
  readonly secrets: vscode.SecretStorage;
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

const MODE_DESCRIPTIONS: Readonly<Record<PermissionMode, string>> = {
  strict: 'Every side-effecting call asks for a fresh approval, unless a visible allow rule covers it.',
  'auto-edit': 'File edits inside the workspace and plan/todo/goal updates run without asking; commands and other effects still ask.',
  auto: 'Nothing asks. Deny rules and hooks still apply.',
};

const PROVIDER_LABELS: Readonly<Record<ModelProviderName, string>> = {
  openai: 'OpenAI-compatible server (Ollama, LM Studio, vLLM, llama.cpp, OpenRouter, OpenAI)',
  anthropic: 'Anthropic Messages',
  'vscode-lm': 'VS Code Language Model (models other extensions provide, e.g. Copilot)',
};

function currentConfig(context: CommandContext): ZunoConfig {
  const resolved = context.config.current;
  if (!resolved.ok) throw new Error(`Fix the configuration first:\n${resolved.message}`);
  return resolved.config;
}

async function focusChat(): Promise<void> {
  await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
}

async function toggleTools(context: CommandContext): Promise<void> {
  const config = currentConfig(context);
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

async function setPermissionMode(context: CommandContext): Promise<void> {
  const current = context.config.current.ok ? context.config.current.config.permission.mode : undefined;
  const chosen = await vscode.window.showQuickPick(
    PERMISSION_MODES.map((mode) => ({ label: mode, description: mode === current ? '(current)' : '', detail: MODE_DESCRIPTIONS[mode] })),
    { title: 'Zuno: permission mode' },
  );
  if (chosen) await context.config.write(`${SETTINGS_PREFIX}.permission.mode`, chosen.label, 'workspace');
}

async function fetchModelIds(
  provider: Exclude<ModelProviderName, 'vscode-lm'>,
  baseUrl: string,
  apiKey: string | undefined,
): Promise<string[]> {
  const { headers } = modelListRequest(provider, baseUrl, apiKey);
  try {
    const ids = await listServerModels(fetch, baseUrl, headers, AbortSignal.timeout(5000));
    return [...(ids ?? [])].sort((left, right) => left.localeCompare(right));
  } catch {
    // Unreachable or not listing: the user types the name instead.
    return [];
  }
}

async function selectModel(context: CommandContext): Promise<void> {
  const config = currentConfig(context);
  const providerItem = await vscode.window.showQuickPick(
    (Object.keys(PROVIDER_LABELS) as ModelProviderName[]).map((provider) => ({
      label: provider,
      description: provider === config.model.provider ? '(current)' : '',
      detail: PROVIDER_LABELS[provider],
    })),
    { title: 'Zuno: model provider' },
  );
  if (!providerItem) return;
  const provider = providerItem.label;
  if (provider === 'vscode-lm') {
    const models = await availableChatModels();
    if (models.length === 0) {
      void vscode.window.showWarningMessage(
        'VS Code offers no language model. Install and sign in to an extension that provides one (for example GitHub Copilot Chat).',
      );
      return;
    }
    const model = await vscode.window.showQuickPick(
      models.map((candidate) => ({
        label: candidate.name,
        description: candidate.id,
        detail: `${candidate.vendor} · ${candidate.family}`,
        id: candidate.id,
      })),
      { title: 'Zuno: VS Code language model' },
    );
    if (!model) return;
    await context.config.write(`${SETTINGS_PREFIX}.model.provider`, provider, 'user');
    await context.config.write(`${SETTINGS_PREFIX}.model.name`, model.id, 'user');
    return;
  }
  const baseUrl = await vscode.window.showInputBox({
    title: `Zuno: ${provider === 'openai' ? 'OpenAI-compatible' : 'Anthropic'} server`,
    prompt: 'The base URL of the server’s API',
    value: config.model.provider === provider ? config.model.base_url : DEFAULT_BASE_URLS[provider],
    validateInput: (value) =>
      URL.canParse(value) && /^https?:/.test(value) ? undefined : 'An http:// or https:// URL, e.g. http://127.0.0.1:11434/v1',
  });
  if (!baseUrl) return;
  const apiKey = await context.secrets.get(secretKeyFor(provider, baseUrl));
  const ids = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Asking ${baseUrl} for its models…` },
    () => fetchModelIds(provider, baseUrl, apiKey),
  );
  let name: string | undefined;
  const typeName = 'Type a model name…';
  if (ids.length > 0) {
    const picked = await vscode.window.showQuickPick([...ids.map((id) => ({ label: id })), { label: typeName }], {
      title: `Zuno: model at ${baseUrl}`,
    });
    if (!picked) return;
    name = picked.label === typeName ? undefined : picked.label;
  }
  name ??= await vscode.window.showInputBox({
    title: `Zuno: model at ${baseUrl}`,
    prompt:
      ids.length === 0 ? 'The server did not list its models (unreachable, or it needs a key): type the model name.' : 'The model name',
    value: config.model.name ?? '',
    validateInput: (value) => (value.trim() ? undefined : 'A model name, e.g. qwen2.5-coder:7b'),
  });
  if (!name) return;
  await context.config.write(`${SETTINGS_PREFIX}.model.provider`, provider, 'user');
  await context.config.write(`${SETTINGS_PREFIX}.model.baseUrl`, baseUrl, 'user');
  await context.config.write(`${SETTINGS_PREFIX}.model.name`, name.trim(), 'user');
  if (!apiKey && !baseUrl.startsWith('http://127.0.0.1') && !baseUrl.startsWith('http://localhost')) {
    const choice = await vscode.window.showInformationMessage(`Does ${baseUrl} need an API key?`, 'Set API Key');
    if (choice) await vscode.commands.executeCommand('zuno.setApiKey');
  }
}

async function setApiKey(context: CommandContext): Promise<void> {
  const config = currentConfig(context);
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
    'zuno.setPermissionMode': () => setPermissionMode(context),
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
