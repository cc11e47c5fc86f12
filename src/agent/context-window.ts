/**
 * How many tokens a model's context holds (issue 10 item 1), from the most to the least
 * trustworthy source: `model.context_window` in the config; what the server says (`/v1/models`
 * entries' `context_length` from OpenRouter and LM Studio, `max_model_len` from vLLM, Ollama's
 * `/api/show`, `vscode.lm`'s `maxInputTokens`); a small table of well-known models; and last a
 * conservative 32k that is named as a guess wherever it is shown.
 */
import { z } from 'zod';
import { endpoint } from './provider';

export type ContextWindowSource = 'config' | 'server' | 'table' | 'default';

export interface ContextWindow {
  readonly tokens: number;
  readonly source: ContextWindowSource;
}

/** Small enough that a real model is rarely smaller, so the estimate errs towards compacting early. */
export const DEFAULT_CONTEXT_WINDOW = 32_768;

/**
 * Published windows of models people commonly point Zuno at, matched by prefix after any
 * `vendor/` part (OpenRouter ids) is dropped. Longest prefix wins. Conservative where a vendor
 * serves less than the model card says.
 */
const KNOWN_WINDOWS: readonly (readonly [string, number])[] = [
  ['gpt-5', 400_000],
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-4-turbo', 128_000],
  ['gpt-4', 8_192],
  ['gpt-3.5-turbo', 16_385],
  ['o1', 200_000],
  ['o3', 200_000],
  ['o4-mini', 200_000],
  ['claude-', 200_000],
  ['gemini-1.5', 1_048_576],
  ['gemini-2', 1_048_576],
  ['deepseek-chat', 65_536],
  ['deepseek-reasoner', 65_536],
  ['qwen2.5-coder', 32_768],
  ['qwen3-coder', 262_144],
  ['llama3.1', 131_072],
  ['llama3.2', 131_072],
  ['llama3.3', 131_072],
  ['mistral-large', 131_072],
  ['codestral', 262_144],
];

/** The table's window for a model name, if it knows the model. */
export function knownContextWindow(model: string): number | undefined {
  const name = model.toLowerCase().slice(model.lastIndexOf('/') + 1);
  let best: readonly [string, number] | undefined;
  for (const entry of KNOWN_WINDOWS) {
    if (name.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  return best?.[1];
}

/** Picks the window from the sources in order of trust. */
export function resolveContextWindow(
  configured: number | undefined,
  fromServer: number | undefined,
  model: string | undefined,
): ContextWindow {
  if (configured !== undefined) return { tokens: configured, source: 'config' };
  if (fromServer !== undefined) return { tokens: fromServer, source: 'server' };
  const known = model !== undefined ? knownContextWindow(model) : undefined;
  if (known !== undefined) return { tokens: known, source: 'table' };
  return { tokens: DEFAULT_CONTEXT_WINDOW, source: 'default' };
}

const positive = z.number().int().positive();
const modelEntrySchema = z.object({
  id: z.string(),
  context_length: positive.optional().catch(undefined),
  max_model_len: positive.optional().catch(undefined),
  // OpenRouter also states what its chosen provider serves, which may be less.
  top_provider: z
    .object({ context_length: positive.nullish().catch(undefined) })
    .optional()
    .catch(undefined),
});
const modelListSchema = z.object({ data: z.array(z.unknown()) });

const ollamaShowSchema = z.object({
  model_info: z.record(z.string(), z.unknown()).optional(),
  /** The Modelfile's parameters as text, e.g. `num_ctx 8192`: what the server really loads. */
  parameters: z.string().optional(),
});

/** The longest any discovery request may take: it must never hold a run up. */
const DISCOVERY_TIMEOUT_MS = 5000;

async function getJson(fetchFunction: typeof fetch, url: string, init: RequestInit, signal: AbortSignal): Promise<unknown> {
  try {
    const response = await fetchFunction(url, { ...init, signal: AbortSignal.any([signal, AbortSignal.timeout(DISCOVERY_TIMEOUT_MS)]) });
    if (!response.ok) return undefined;
    return await response.json();
  } catch {
    return undefined;
  }
}

/** `context_length` or `max_model_len` of the model's entry in GET /models. */
export async function modelsListWindow(
  fetchFunction: typeof fetch,
  baseUrl: string,
  model: string,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<number | undefined> {
  const list = modelListSchema.safeParse(await getJson(fetchFunction, endpoint(baseUrl, 'models'), { headers }, signal));
  if (!list.success) return undefined;
  for (const raw of list.data.data) {
    const entry = modelEntrySchema.safeParse(raw);
    if (!entry.success || entry.data.id !== model) continue;
    const sizes = [entry.data.context_length, entry.data.max_model_len, entry.data.top_provider?.context_length ?? undefined].filter(
      (size) => size !== undefined,
    );
    return sizes.length > 0 ? Math.min(...sizes) : undefined;
  }
  return undefined;
}

/**
 * Ollama's window for a model: `num_ctx` when its Modelfile sets one (that is what the server
 * loads, and its OpenAI endpoint silently truncates a longer prompt to it), otherwise the
 * model's trained `<arch>.context_length`. Asked only when `/api/version` answers like Ollama,
 * so other servers never see a POST they do not know.
 */
export async function ollamaWindow(
  fetchFunction: typeof fetch,
  baseUrl: string,
  model: string,
  signal: AbortSignal,
): Promise<number | undefined> {
  const root = baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const version = await getJson(fetchFunction, `${root}/api/version`, {}, signal);
  if (typeof version !== 'object' || version === null || !('version' in version)) return undefined;
  const shown = ollamaShowSchema.safeParse(
    await getJson(
      fetchFunction,
      `${root}/api/show`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model }) },
      signal,
    ),
  );
  if (!shown.success) return undefined;
  const numCtx = /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(shown.data.parameters ?? '')?.[1];
  if (numCtx !== undefined) return Number(numCtx);
  for (const [key, value] of Object.entries(shown.data.model_info ?? {})) {
    const size = positive.safeParse(value);
    if (key.endsWith('.context_length') && size.success) return size.data;
  }
  return undefined;
}

/** Whether a base URL points at this machine, where a server's small window is the user's to change. */
export function isLocalBaseUrl(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname;
    return host === 'localhost' || host === '[::1]' || host.startsWith('127.') || host === '0.0.0.0';
  } catch {
    return false;
  }
}
