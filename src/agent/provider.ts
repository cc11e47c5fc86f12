/**
 * The model side of the agent loop. A provider translates the provider-neutral transcript into
 * one wire protocol (OpenAI Chat Completions, Anthropic Messages, vscode.lm), streams the answer
 * back, and turns every failure into a ProviderError whose message says what to do next.
 *
 * A model request has no side effects, so a transient failure (HTTP 429/5xx, a dropped
 * connection) is retried after a backoff, a bounded number of times, as long as nothing of the
 * answer has been shown yet.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { JsonSchema } from '../core/tool';
import type { ReasoningEffort } from '../core/config';
import type { ThinkingBlock, TranscriptMessage, TranscriptToolCall } from '../core/transcript';

/** A tool as the model is offered it. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
}

export interface ModelRequest {
  /** The system prompt; providers put it where their protocol wants it. */
  readonly system: string;
  readonly messages: readonly TranscriptMessage[];
  readonly tools: readonly ToolDefinition[];
  readonly signal: AbortSignal;
}

/** `tool_calls`: the model wants tools run; `end`: it is done; `length`: it ran out of output tokens. */
export type StopReason = 'end' | 'tool_calls' | 'length' | 'other';

/** Tokens one request used, as the server counted them (issue 10 item 1). */
export interface TokenUsage {
  /** Every prompt token, cached ones included: what counts against the context window. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Prompt tokens read from the server's cache (OpenAI `cached_tokens`, Anthropic `cache_read_input_tokens`). */
  readonly cachedTokens?: number;
  /** Prompt tokens written to the cache (Anthropic `cache_creation_input_tokens`). */
  readonly cacheWriteTokens?: number;
}

export interface ModelResponse {
  readonly text: string;
  readonly toolCalls: readonly TranscriptToolCall[];
  readonly stopReason: StopReason;
  /** Absent when the server did not report usage; the loop then estimates it. */
  readonly usage?: TokenUsage;
  /** The model's reasoning text, when it streams one (issue 10 item 4). */
  readonly reasoning?: string;
  /** Anthropic thinking blocks with their signatures, to be sent back unchanged. */
  readonly thinking?: readonly ThinkingBlock[];
}

export interface ModelProvider {
  /** For people: e.g. `openai-compatible gpt-4o at https://api.openai.com/v1`. */
  readonly label: string;
  /** The model's name as the server knows it, for the table of well-known context windows. */
  readonly model?: string;
  /** Streams one answer. `onDelta` receives text as it arrives. Rejects with ProviderError. */
  stream(request: ModelRequest, onDelta: (text: string) => void): Promise<ModelResponse>;
  /**
   * The context window in tokens as the server states it, or undefined when it does not say.
   * Best effort and bounded: a failure is undefined, never an error.
   */
  serverContextWindow?(signal: AbortSignal): Promise<number | undefined>;
  /** True for a model server on this machine, whose too-small window deserves a warning (Ollama truncates silently). */
  readonly local?: boolean;
}

/** A model request failed. The message is for people and names what to fix. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';

  /** True when trying again later may succeed (429, 5xx, a dropped connection). */
  readonly transient: boolean;
  readonly status: number | undefined;
  /** How long the server asked us to wait (Retry-After), when it said. */
  readonly retryAfterMs: number | undefined;
  /** The server refused the request as longer than the model's context (issue 10 item 2): compacting may help. */
  readonly contextOverflow: boolean;

  constructor(message: string, details: { transient?: boolean; status?: number; retryAfterMs?: number; contextOverflow?: boolean } = {}) {
    super(message);
    this.transient = details.transient ?? false;
    this.status = details.status;
    this.retryAfterMs = details.retryAfterMs;
    this.contextOverflow = details.contextOverflow ?? false;
  }
}

/** Where the key comes from, so a rejected key can be explained. */
export interface ApiKeySource {
  readonly key: string | undefined;
  /** The environment variable that was read (or should be set). */
  readonly envVar: string | undefined;
}

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly attempts: number;
  readonly baseDelayMs: number;
}

export interface HttpProviderOptions {
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey: ApiKeySource;
  readonly retry: RetryPolicy;
  /** How long a stream may go without a complete event before the attempt fails (model.idle_timeout_ms). */
  readonly idleTimeoutMs?: number;
  /** model.max_output_tokens, when set (not 0). */
  readonly maxOutputTokens?: number;
  /** model.reasoning_effort, when set. */
  readonly reasoningEffort?: ReasoningEffort;
  /** Replaceable for tests; the global fetch otherwise. */
  readonly fetch?: typeof fetch;
}

/** model.idle_timeout_ms's default: long enough for a slow local model's first token. */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

/** The longest wait honoured from a Retry-After header, so a hostile value cannot stall a run. */
const MAX_RETRY_AFTER_MS = 30_000;

/** `http://host:1234/v1/` + `chat/completions` → `http://host:1234/v1/chat/completions`. */
export function endpoint(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path}`;
}

/**
 * POSTs a streaming request and returns a response that is OK and has a body. Failures come back
 * as ProviderErrors that name the server: connection problems, HTTP errors (with the server's
 * words and, for an unknown model, the models it offers), and an empty body.
 */
export async function postForStream(
  fetchFunction: typeof fetch,
  url: string,
  request: { readonly headers: Readonly<Record<string, string>>; readonly body: unknown; readonly signal: AbortSignal },
  context: StatusContext,
): Promise<Response & { readonly body: ReadableStream<Uint8Array> }> {
  let response: Response;
  try {
    response = await fetchFunction(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...request.headers },
      body: JSON.stringify(request.body),
      signal: request.signal,
    });
  } catch (error) {
    if (isAbortError(error)) throw error;
    throw connectionError(error, context.baseUrl);
  }
  if (!response.ok) throw await statusError(response, context);
  if (!response.body) throw new ProviderError(`The model server at ${context.baseUrl} sent an empty response.`, { transient: true });
  return response as Response & { readonly body: ReadableStream<Uint8Array> };
}

// Lenient per entry: one odd entry must not hide the models the server does offer.
const modelListSchema = z.object({ data: z.array(z.unknown()) });
const modelEntrySchema = z.object({ id: z.string() });

/** GET /models (OpenAI and Anthropic share its shape), for a helpful "unknown model" message. Bounded, best effort. */
export async function listServerModels(
  fetchFunction: typeof fetch,
  baseUrl: string,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<readonly string[] | undefined> {
  const response = await fetchFunction(endpoint(baseUrl, 'models'), {
    headers,
    signal: AbortSignal.any([signal, AbortSignal.timeout(5000)]),
  });
  if (!response.ok) return undefined;
  const parsed = modelListSchema.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) return undefined;
  return parsed.data.data.flatMap((entry) => {
    const model = modelEntrySchema.safeParse(entry);
    return model.success ? [model.data.id] : [];
  });
}

/** An id for a tool call whose server sent none. */
export function freshCallId(): string {
  return `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
}

/** The tool's JSON Schema without `$schema`, which some servers reject inside a tool definition. */
export function jsonSchemaForModel(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** Says how to provide a key, naming the variable when one is configured. */
export function apiKeyHint(source: ApiKeySource): string {
  if (source.envVar && !source.key) {
    return `The environment variable ${source.envVar} is empty or not set: export ${source.envVar}=<your key> and try again.`;
  }
  if (source.envVar) return `Check the key in the environment variable ${source.envVar}.`;
  if (source.key) return 'Check that the API key is right and allowed to use this model.';
  return 'No API key was sent: put the key in an environment variable and name it with --api-key-env VAR (or model.api_key_env in the config), or set ZUNO_API_KEY.';
}

function errorCode(error: unknown): string | undefined {
  for (let current: unknown = error; typeof current === 'object' && current !== null;) {
    if ('code' in current && typeof current.code === 'string') return current.code;
    current = 'cause' in current ? current.cause : undefined;
  }
  return undefined;
}

export function isAbortError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'name' in error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/** Turns a failed fetch (no HTTP answer at all) into a ProviderError naming the base URL. */
export function connectionError(error: unknown, baseUrl: string): ProviderError {
  const code = errorCode(error);
  if (code === 'ECONNREFUSED') {
    return new ProviderError(
      `Cannot connect to the model server at ${baseUrl}: connection refused. Is the server running? ` +
        'Start it, or point Zuno elsewhere with --base-url URL (or model.base_url in the config).',
    );
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new ProviderError(
      `Cannot resolve the host of the model server at ${baseUrl} (${code}). Check the URL given with --base-url or model.base_url.`,
      { transient: code === 'EAI_AGAIN' },
    );
  }
  const detail = error instanceof Error ? (code ? `${error.message} (${code})` : error.message) : String(error);
  return new ProviderError(`The connection to the model server at ${baseUrl} failed: ${detail}.`, { transient: true });
}

/** The server's own explanation from an error body: `{error: {message}}`, `{error: "…"}`, `{message}` or text. */
export function serverMessage(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null) {
      const error = 'error' in parsed ? parsed.error : parsed;
      if (typeof error === 'string') return error;
      if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') return error.message;
      if ('message' in parsed && typeof parsed.message === 'string') return parsed.message;
    }
  } catch {
    // Not JSON: fall through to the raw text.
  }
  const text = body.trim();
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

export interface StatusContext {
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey: ApiKeySource;
  /** Lists the models the server offers, for a helpful "unknown model" message; undefined when it cannot. */
  readonly listModels?: () => Promise<readonly string[] | undefined>;
}

/**
 * How servers say a prompt is longer than the context: OpenAI's `context_length_exceeded` code,
 * Anthropic's "prompt is too long", vLLM's and llama.cpp's "maximum context length" and
 * "exceeds the context", OpenRouter's "context length".
 */
const CONTEXT_OVERFLOW =
  /context_length_exceeded|prompt is too long|context[ _-]?(length|window|size)|maximum context|exceeds? the (available )?context|too many tokens|request too large/i;

/** Whether an error body (or a mid-stream error's text) says the prompt was over the window. */
export function saysContextOverflow(text: string): boolean {
  return CONTEXT_OVERFLOW.test(text);
}

/** Turns an HTTP error response into a ProviderError that says what to do next. */
export async function statusError(response: Response, context: StatusContext): Promise<ProviderError> {
  const status = response.status;
  const body = await response.text().catch(() => '');
  const said = serverMessage(body);
  const quoted = said ? `: ${said}` : '';
  if (status === 401 || status === 403) {
    return new ProviderError(
      `The model server at ${context.baseUrl} rejected the request as unauthorized (HTTP ${status}${quoted}). ${apiKeyHint(context.apiKey)}`,
      { status },
    );
  }
  if ((status === 400 || status === 413) && saysContextOverflow(body)) {
    return new ProviderError(
      `The model server at ${context.baseUrl} refused the request as longer than the model's context (HTTP ${status}${quoted}).`,
      {
        status,
        contextOverflow: true,
      },
    );
  }
  const mentionsModel = /model/i.test(said);
  if (status === 404 || (status === 400 && mentionsModel && /not found|does not exist|unknown|invalid/i.test(said))) {
    const available = await context.listModels?.().catch(() => undefined);
    if (available && available.length > 0 && !available.includes(context.model)) {
      const shown = available.slice(0, 20).join(', ') + (available.length > 20 ? `, … (${available.length} in all)` : '');
      return new ProviderError(
        `The model "${context.model}" is not available at ${context.baseUrl} (HTTP ${status}${quoted}). ` +
          `Available models: ${shown}. Choose one with --model NAME (or model.name in the config).`,
        { status },
      );
    }
    if (status === 404 && !mentionsModel && available?.includes(context.model)) {
      return new ProviderError(
        `The model server at ${context.baseUrl} answered HTTP 404${quoted}. The model exists, so the base URL is probably wrong: ` +
          'OpenAI-compatible servers usually want it to end in /v1 (for example http://127.0.0.1:11434/v1).',
        { status },
      );
    }
    return new ProviderError(
      `The model "${context.model}" was not found at ${context.baseUrl} (HTTP ${status}${quoted}). ` +
        'Check the model name (--model or model.name) and the base URL (--base-url or model.base_url).',
      { status },
    );
  }
  if (status === 408 || status === 409 || status === 429 || status >= 500) {
    const retryAfter = retryAfterMs(response.headers.get('retry-after'));
    return new ProviderError(`The model server at ${context.baseUrl} answered HTTP ${status}${quoted}.`, {
      transient: true,
      status,
      ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
    });
  }
  return new ProviderError(`The model server at ${context.baseUrl} rejected the request (HTTP ${status}${quoted}).`, { status });
}

/** Milliseconds from a Retry-After header (seconds or an HTTP date), bounded. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs one attempt under an idle timeout: `run` gets a signal that aborts after `idleTimeoutMs`
 * without a call to `alive`, and calls `alive` when the headers arrive and on every complete
 * event. Bytes alone do not count, so a server that trickles a byte every few seconds but never
 * finishes an event is stopped too. The stall becomes a transient ProviderError, which
 * withRetries may retry: nothing of a stalled answer reached the caller unless deltas did.
 */
export async function withIdleTimeout<T>(
  idleTimeoutMs: number,
  baseUrl: string,
  signal: AbortSignal,
  run: (signal: AbortSignal, alive: () => void) => Promise<T>,
): Promise<T> {
  const idle = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const alive = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), idleTimeoutMs);
  };
  alive();
  try {
    return await run(AbortSignal.any([signal, idle.signal]), alive);
  } catch (error) {
    if (idle.signal.aborted && !signal.aborted) {
      throw new ProviderError(
        `The model server at ${baseUrl} sent no complete stream event for ${formatSeconds(idleTimeoutMs)} (model.idle_timeout_ms), so the request was abandoned. ` +
          'The server may be overloaded or stuck; if the model is just slow to start, raise model.idle_timeout_ms.',
        { transient: true },
      );
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/**
 * Runs one streamed request with bounded retries. `attempt` receives a guarded `onDelta`; once
 * any text has reached the caller, a failure is final, because a retry would show it twice.
 */
export async function withRetries<T>(
  policy: RetryPolicy,
  signal: AbortSignal,
  onDelta: (text: string) => void,
  attempt: (onDelta: (text: string) => void) => Promise<T>,
): Promise<T> {
  const attempts = Math.max(1, policy.attempts);
  for (let number = 1; ; number++) {
    let delivered = false;
    try {
      return await attempt((text) => {
        delivered = true;
        onDelta(text);
      });
    } catch (error) {
      if (signal.aborted || !(error instanceof ProviderError)) throw error;
      if (!error.transient || delivered || number >= attempts) {
        if (!error.transient || number === 1) throw error;
        const gaveUp = `${error.message} Gave up after ${number} attempts; try again later.`;
        throw new ProviderError(gaveUp, error.status !== undefined ? { status: error.status } : {});
      }
      const backoff = policy.baseDelayMs * 2 ** (number - 1);
      await sleep(Math.max(error.retryAfterMs ?? 0, backoff), signal);
    }
  }
}
