/**
 * "Zuno: Select Model" and "Set Permission Mode", shared by the palette and the chat header's
 * pickers (issue 14 item 12), so both write the same settings in the same scopes. Select Model is
 * one list: the configured server's models, Set API Key when the server refuses without one, the
 * server named as down when it does not answer, and a typed name accepted in every case.
 */
import * as vscode from 'vscode';
import { PERMISSION_MODES, type PermissionMode, type ZunoConfig } from '../../core/config';
import type { ApiKeys } from './backend';
import type { ConfigSource } from './config-source';
import { availableChatModels } from './lm-provider';
import { listModelsAt, modelPickerView, typedItem, type ModelListing, type PickAction, type ServerProvider } from './model-listing';
import { DEFAULT_BASE_URLS, type ModelProviderName } from './model-setup';
import { SETTINGS_PREFIX } from './settings';

export interface PickerContext {
  readonly config: ConfigSource;
  readonly apiKeys: ApiKeys;
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

/** The mode is a workspace decision: written to the workspace settings unless a scope already sets it. */
export async function writePermissionMode(config: ConfigSource, mode: PermissionMode): Promise<void> {
  await config.write(`${SETTINGS_PREFIX}.permission.mode`, mode, 'workspace');
}

export async function pickPermissionMode(context: PickerContext): Promise<void> {
  const resolved = await context.config.settled();
  const current = resolved.ok ? resolved.config.permission.mode : undefined;
  const chosen = await vscode.window.showQuickPick(
    PERMISSION_MODES.map((mode) => ({ label: mode, description: mode === current ? '(current)' : '', detail: MODE_DESCRIPTIONS[mode] })),
    { title: 'Zuno: permission mode' },
  );
  if (chosen) await writePermissionMode(context.config, chosen.label);
}

/** The model is the user's: written to the user settings unless a scope already sets it. */
async function writeModel(context: PickerContext, provider: ModelProviderName, baseUrl: string | undefined, name: string): Promise<void> {
  await context.config.write(`${SETTINGS_PREFIX}.model.provider`, provider, 'user');
  if (baseUrl !== undefined) await context.config.write(`${SETTINGS_PREFIX}.model.baseUrl`, baseUrl, 'user');
  await context.config.write(`${SETTINGS_PREFIX}.model.name`, name, 'user');
}

interface ServerChoice {
  readonly provider: ModelProviderName;
  readonly baseUrl: string;
}

export async function selectModel(context: PickerContext): Promise<void> {
  const config = await context.config.settledConfig();
  let server: ServerChoice | undefined = { provider: config.model.provider, baseUrl: config.model.base_url };
  while (server) {
    if (server.provider === 'vscode-lm') {
      server = await pickLanguageModel(context);
      continue;
    }
    const { provider, baseUrl } = server;
    const current = config.model.provider === provider && config.model.base_url === baseUrl ? config.model.name : undefined;
    const action = await pickServerModel(context, config, provider, baseUrl, current);
    if (action === undefined) return;
    switch (action.kind) {
      case 'model':
        await writeModel(context, provider, baseUrl, action.name);
        return;
      case 'set-key':
        // Asked here rather than through Set API Key: the server picked may not be the configured one yet.
        if (!(await askKey(context, provider, baseUrl))) return;
        break;
      case 'change-server':
        server = await pickServer(config, server);
        break;
    }
  }
}

/** One quick pick: busy while the server is asked, then its models; what is typed is always offered. */
async function pickServerModel(
  context: PickerContext,
  config: ZunoConfig,
  provider: ServerProvider,
  baseUrl: string,
  current: string | undefined,
): Promise<PickAction | undefined> {
  const apiKey = await context.apiKeys.get({ ...config, model: { ...config.model, provider, base_url: baseUrl } });
  const picker = vscode.window.createQuickPick<vscode.QuickPickItem & { action: PickAction }>();
  picker.title = `Zuno: model at ${baseUrl}`;
  picker.placeholder = `Asking ${baseUrl} for its models…`;
  picker.busy = true;
  picker.matchOnDescription = true;
  let listing: ModelListing | undefined;
  const refresh = (): void => {
    if (listing === undefined) return;
    const view = modelPickerView(listing, baseUrl, current);
    const typed = typedItem(picker.value, listing);
    picker.placeholder = view.placeholder;
    // The typed entry comes last and always shows: typing "gpt" then Enter picks the first listed
    // match, and a name the list does not have is still one Enter away.
    picker.items = [...view.items.map((item) => ({ ...item })), ...(typed ? [{ ...typed, alwaysShow: true }] : [])];
  };
  picker.onDidChangeValue(refresh);
  const chosen = new Promise<PickAction | undefined>((resolve) => {
    picker.onDidAccept(() => {
      const item = picker.selectedItems[0] ?? picker.activeItems[0];
      const typed = picker.value.trim();
      resolve(item?.action ?? (typed ? { kind: 'model', name: typed } : undefined));
      picker.hide();
    });
    picker.onDidHide(() => resolve(undefined));
  });
  picker.show();
  void listModelsAt(fetch, provider, baseUrl, apiKey).then((result) => {
    listing = result;
    picker.busy = false;
    refresh();
  });
  try {
    return await chosen;
  } finally {
    picker.dispose();
  }
}

async function askKey(context: PickerContext, provider: ServerProvider, baseUrl: string): Promise<boolean> {
  const origin = new URL(baseUrl).origin;
  const value = await vscode.window.showInputBox({
    title: `Zuno: API key for ${origin}`,
    prompt: `The ${provider === 'openai' ? 'OpenAI-compatible' : 'Anthropic'} key, kept in VS Code's SecretStorage and sent only to ${origin}.`,
    password: true,
    ignoreFocusOut: true,
    validateInput: (text) => (text.trim() ? undefined : 'Paste the key, or press Escape to go without one'),
  });
  if (!value) return false;
  await context.apiKeys.set(provider, baseUrl, value.trim());
  return true;
}

async function pickServer(config: ZunoConfig, from: ServerChoice): Promise<ServerChoice | undefined> {
  const providerItem = await vscode.window.showQuickPick(
    (Object.keys(PROVIDER_LABELS) as ModelProviderName[]).map((provider) => ({
      label: provider,
      description: provider === from.provider ? '(current)' : '',
      detail: PROVIDER_LABELS[provider],
    })),
    { title: 'Zuno: model provider' },
  );
  if (!providerItem) return undefined;
  const provider = providerItem.label;
  if (provider === 'vscode-lm') return { provider, baseUrl: config.model.base_url };
  const baseUrl = await vscode.window.showInputBox({
    title: `Zuno: ${provider === 'openai' ? 'OpenAI-compatible' : 'Anthropic'} server`,
    prompt: 'The base URL of the server’s API',
    value: from.provider === provider ? from.baseUrl : DEFAULT_BASE_URLS[provider],
    validateInput: (value) =>
      URL.canParse(value) && /^https?:/.test(value) ? undefined : 'An http:// or https:// URL, e.g. http://127.0.0.1:11434/v1',
  });
  return baseUrl ? { provider, baseUrl } : undefined;
}

/** The models VS Code's Language Model API offers; returns a server to go to when the user asks for one. */
async function pickLanguageModel(context: PickerContext): Promise<ServerChoice | undefined> {
  const config = await context.config.settledConfig();
  const models = await availableChatModels();
  const changeServer = { label: 'Change server or provider…', id: undefined };
  const picked = await vscode.window.showQuickPick(
    [
      ...models.map((candidate) => ({
        label: candidate.name,
        description: candidate.id,
        detail: `${candidate.vendor} · ${candidate.family}`,
        id: candidate.id,
      })),
      changeServer,
    ],
    {
      title: 'Zuno: VS Code language model',
      placeHolder:
        models.length === 0
          ? 'VS Code offers no language model: install and sign in to one (e.g. GitHub Copilot Chat), or change the provider'
          : 'Pick a model',
    },
  );
  if (!picked) return undefined;
  if (picked.id === undefined) return pickServer(config, { provider: 'vscode-lm', baseUrl: config.model.base_url });
  await writeModel(context, 'vscode-lm', undefined, picked.id);
  return undefined;
}
