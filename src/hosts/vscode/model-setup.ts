/**
 * Choosing a model in the editor, with no `vscode` import: where API keys are kept, what the
 * first-run hint says, and how the "Select Model" picker asks a server for its models.
 */
import type { ZunoConfig } from '../../core/config';
import { ANTHROPIC_VERSION } from '../../agent/anthropic';
import { endpoint } from '../../agent/provider';

export type ModelProviderName = ZunoConfig['model']['provider'];

export const DEFAULT_BASE_URLS: Readonly<Record<Exclude<ModelProviderName, 'vscode-lm'>, string>> = {
  openai: 'http://127.0.0.1:11434/v1',
  anthropic: 'https://api.anthropic.com/v1',
};

/**
 * The SecretStorage entry for a provider's key, per server origin: a key entered for one server
 * is never sent to another, even if a workspace setting points `zuno.model.baseUrl` elsewhere.
 */
export function secretKeyFor(provider: ModelProviderName, baseUrl: string): string {
  let origin: string;
  try {
    origin = new URL(baseUrl).origin;
  } catch {
    origin = baseUrl;
  }
  return `zuno.apiKey.${provider}.${origin}`;
}

/** Environment variables a key is taken from on first use (then it lives in SecretStorage only). */
export function keyEnvironmentVariables(config: ZunoConfig): string[] {
  return [...(config.model.api_key_env ? [config.model.api_key_env] : []), 'ZUNO_API_KEY'];
}

const SELECT_MODEL = '“Zuno: Select Model” (Command Palette)';

/**
 * What the sidebar says when no model is set up: exactly what to do. `undefined` when a model
 * is configured (a server that turns out unreachable is reported by the run itself, naming it).
 */
export function setupHint(config: ZunoConfig, vscodeModels: number | undefined): string | undefined {
  const { provider, name, base_url: baseUrl } = config.model;
  if (provider === 'vscode-lm') {
    if (vscodeModels === 0) {
      return `No VS Code language model is available. Install and sign in to an extension that provides one (for example GitHub Copilot Chat), or run ${SELECT_MODEL} to use an OpenAI-compatible or Anthropic server instead.`;
    }
    return undefined;
  }
  if (name) return undefined;
  if (provider === 'anthropic') {
    return `No model is set. Run ${SELECT_MODEL} and pick an Anthropic model (or set zuno.model.name), then “Zuno: Set API Key” for ${baseUrl}.`;
  }
  return (
    `No model is set. Run ${SELECT_MODEL} to pick one, or set zuno.model.name. Zuno talks to an OpenAI-compatible server at ${baseUrl}` +
    (baseUrl === DEFAULT_BASE_URLS.openai ? ' (a local Ollama: `ollama pull qwen2.5-coder:7b`, then select it)' : '') +
    '; change it with zuno.model.baseUrl. A hosted API also needs “Zuno: Set API Key”.'
  );
}

/** The request that lists a server's models (both protocols answer `{data: [{id}]}`). */
export function modelListRequest(
  provider: Exclude<ModelProviderName, 'vscode-lm'>,
  baseUrl: string,
  apiKey: string | undefined,
): { url: string; headers: Record<string, string> } {
  const headers: Record<string, string> =
    provider === 'anthropic'
      ? { 'anthropic-version': ANTHROPIC_VERSION, ...(apiKey ? { 'x-api-key': apiKey } : {}) }
      : apiKey
        ? { authorization: `Bearer ${apiKey}` }
        : {};
  return { url: endpoint(baseUrl, 'models'), headers };
}
