/**
 * OpenAI-compatible Chat Completions with function tools, streamed (SSE). Only the common core
 * of the protocol is used, no vendor fields, so the same code talks to Ollama, LM Studio, vLLM,
 * the llama.cpp server, OpenRouter and OpenAI.
 */
import { z } from 'zod';
import type { TranscriptMessage, TranscriptToolCall } from '../core/transcript';
import {
  connectionError,
  DEFAULT_IDLE_TIMEOUT_MS,
  endpoint,
  freshCallId,
  jsonSchemaForModel,
  isAbortError,
  ProviderError,
  listServerModels,
  postForStream,
  saysContextOverflow,
  withIdleTimeout,
  withRetries,
  type HttpProviderOptions,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type StopReason,
  type TokenUsage,
  type ToolDefinition,
} from './provider';
import { isLocalBaseUrl, modelsListWindow, ollamaWindow } from './context-window';
import { readServerSentEvents } from './sse';

type OpenAIContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

type OpenAIMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | OpenAIContentPart[] }
  | {
      role: 'assistant';
      content: string;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/** The transcript in Chat Completions form: tool results as `role: "tool"` messages, in call order. */
export function toOpenAIMessages(system: string, messages: readonly TranscriptMessage[]): OpenAIMessage[] {
  const wire: OpenAIMessage[] = system ? [{ role: 'system', content: system }] : [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        wire.push({ role: 'system', content: message.content });
        break;
      case 'user':
        // Images as data URLs in `image_url` parts; a message without images stays a plain string, which every server takes.
        wire.push({
          role: 'user',
          content: message.images?.length
            ? [
                { type: 'text', text: message.content },
                ...message.images.map((image) => ({
                  type: 'image_url' as const,
                  image_url: { url: `data:${image.mediaType};base64,${image.data}` },
                })),
              ]
            : message.content,
        });
        break;
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        wire.push({
          role: 'assistant',
          // An empty string rather than null: some servers' chat templates fail on a null content.
          content: message.content,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        });
        break;
      }
      case 'tool':
        wire.push({ role: 'tool', tool_call_id: message.callId, content: message.content });
        break;
    }
  }
  return wire;
}

export function toOpenAITools(tools: readonly ToolDefinition[]): unknown[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: jsonSchemaForModel(tool.inputSchema) },
  }));
}

const toolCallSchema = z.object({
  index: z.number().int().nullish(),
  id: z.string().nullish(),
  function: z
    .object({
      name: z.string().nullish(),
      // Normally a JSON string; a few servers send the object itself.
      arguments: z.unknown().optional(),
    })
    .nullish(),
});

const messageSchema = z.object({
  content: z.string().nullish(),
  /** A reasoning model's thoughts: DeepSeek and vLLM say `reasoning_content`, OpenRouter and Ollama `reasoning`. */
  reasoning_content: z.string().nullish().catch(undefined),
  reasoning: z.string().nullish().catch(undefined),
  tool_calls: z.array(toolCallSchema).nullish(),
});

const usageSchema = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  prompt_tokens_details: z.object({ cached_tokens: z.number().int().nonnegative().nullish() }).nullish(),
});

const chunkSchema = z.object({
  choices: z
    .array(
      z.object({
        delta: messageSchema.nullish(),
        /** Present when a server ignored `stream: true` and answered in one piece. */
        message: messageSchema.nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  /** On the last chunk (with `stream_options.include_usage`, `choices` is empty there), or on a non-streamed answer. */
  usage: usageSchema.nullish().catch(undefined),
  error: z.unknown().optional(),
});

interface PartialCall {
  id: string | undefined;
  name: string;
  arguments: string;
}

function argumentsText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Accumulates streamed fragments into one answer. */
class AnswerBuilder {
  text = '';
  reasoning = '';
  finishReason: string | undefined;
  usage: TokenUsage | undefined;
  private readonly calls = new Map<number, PartialCall>();

  constructor(private readonly onDelta: (text: string) => void) {}

  add(raw: string, baseUrl: string): void {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      throw new ProviderError(`The model server at ${baseUrl} sent a stream event that is not JSON: ${raw.slice(0, 200)}`);
    }
    const parsed = chunkSchema.safeParse(json);
    if (!parsed.success) {
      throw new ProviderError(`The model server at ${baseUrl} sent an unexpected stream event: ${raw.slice(0, 200)}`);
    }
    if (parsed.data.error !== undefined) {
      const said = JSON.stringify(parsed.data.error);
      // Not retried: what servers report this way (context too long, content filtered) would recur.
      throw new ProviderError(`The model server at ${baseUrl} reported an error mid-answer: ${said.slice(0, 500)}`, {
        contextOverflow: saysContextOverflow(said),
      });
    }
    const usage = parsed.data.usage;
    if (usage) {
      const cached = usage.prompt_tokens_details?.cached_tokens;
      this.usage = { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens, ...(cached ? { cachedTokens: cached } : {}) };
    }
    for (const choice of parsed.data.choices ?? []) {
      const part = choice.delta ?? choice.message;
      const thought = part?.reasoning_content ?? part?.reasoning;
      if (thought) this.reasoning += thought;
      if (part?.content) {
        this.text += part.content;
        this.onDelta(part.content);
      }
      for (const fragment of part?.tool_calls ?? []) this.addCallFragment(fragment);
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
  }

  private addCallFragment(fragment: z.infer<typeof toolCallSchema>): void {
    const call = this.callFor(fragment);
    if (fragment.id && !call.id) call.id = fragment.id;
    if (fragment.function?.name) call.name += fragment.function.name;
    call.arguments += argumentsText(fragment.function?.arguments);
  }

  /**
   * `index` says which call a fragment continues. Without it (some servers), a new id starts a
   * new call and a fragment with neither continues the last one.
   */
  private callFor(fragment: z.infer<typeof toolCallSchema>): PartialCall {
    let index = fragment.index;
    if (index === undefined || index === null) {
      const last = this.calls.size === 0 ? -1 : Math.max(...this.calls.keys());
      const known = [...this.calls.entries()].find(([, call]) => fragment.id && call.id === fragment.id);
      index = known ? known[0] : fragment.id || last === -1 ? last + 1 : last;
    }
    const call = this.calls.get(index) ?? { id: undefined, name: '', arguments: '' };
    this.calls.set(index, call);
    return call;
  }

  finish(): ModelResponse {
    const toolCalls: TranscriptToolCall[] = [...this.calls.entries()]
      .sort(([left], [right]) => left - right)
      .map(([, call]) => ({ id: call.id ?? freshCallId(), name: call.name, arguments: call.arguments || '{}' }));
    const stopReason: StopReason =
      toolCalls.length > 0 ? 'tool_calls' : this.finishReason === 'stop' ? 'end' : this.finishReason === 'length' ? 'length' : 'other';
    return {
      text: this.text,
      toolCalls,
      stopReason,
      ...(this.usage ? { usage: this.usage } : {}),
      ...(this.reasoning ? { reasoning: this.reasoning } : {}),
    };
  }
}

/**
 * OpenAI's reasoning models (o1, o3, o4-mini, gpt-5, also behind a vendor prefix such as
 * `openai/o3`) refuse `max_tokens` and want `max_completion_tokens`; other servers know only `max_tokens`.
 */
export function wantsMaxCompletionTokens(model: string): boolean {
  return /(^|\/)(o\d+(-|$)|gpt-5)/i.test(model);
}

/** A server that refuses `max_tokens` names the field it wants instead (OpenAI: "Use 'max_completion_tokens' instead"). */
function rejectsMaxTokens(error: unknown): boolean {
  return (
    error instanceof ProviderError &&
    error.status === 400 &&
    /max_tokens/.test(error.message) &&
    /max_completion_tokens/.test(error.message)
  );
}

/** A server that refuses `stream_options` says so in a 400 naming it (older Azure API versions, some proxies). */
function rejectsStreamOptions(error: unknown): boolean {
  return error instanceof ProviderError && error.status === 400 && /stream_options|include_usage/i.test(error.message);
}

export class OpenAIProvider implements ModelProvider {
  readonly label: string;
  readonly model: string;
  readonly local: boolean;
  private readonly fetch: typeof fetch;
  /** Cleared for good once the server refuses `stream_options`; its answers then carry no usage, and the loop estimates. */
  private askForUsage = true;
  /** Which name the output limit goes under; switched for good when the server refuses `max_tokens`. */
  private limitField: 'max_tokens' | 'max_completion_tokens';
  private window: Promise<number | undefined> | undefined;

  constructor(private readonly options: HttpProviderOptions) {
    this.label = `openai-compatible ${options.model} at ${options.baseUrl}`;
    this.model = options.model;
    this.local = isLocalBaseUrl(options.baseUrl);
    this.fetch = options.fetch ?? globalThis.fetch;
    this.limitField = wantsMaxCompletionTokens(options.model) ? 'max_completion_tokens' : 'max_tokens';
  }

  /** `/v1/models` first (OpenRouter, LM Studio, vLLM), then Ollama's `/api/show`; asked once per provider. */
  serverContextWindow(signal: AbortSignal): Promise<number | undefined> {
    this.window ??= (async () => {
      const { baseUrl, model } = this.options;
      return (
        (await modelsListWindow(this.fetch, baseUrl, model, this.headers(), signal)) ??
        (await ollamaWindow(this.fetch, baseUrl, model, signal))
      );
    })();
    return this.window;
  }

  stream(request: ModelRequest, onDelta: (text: string) => void): Promise<ModelResponse> {
    const { idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS, baseUrl } = this.options;
    return withRetries(this.options.retry, request.signal, onDelta, (guardedDelta) =>
      withIdleTimeout(idleTimeoutMs, baseUrl, request.signal, (signal, alive) => this.attempt(request, signal, alive, guardedDelta)),
    );
  }

  private headers(): Record<string, string> {
    const key = this.options.apiKey.key;
    return key ? { authorization: `Bearer ${key}` } : {};
  }

  private async attempt(
    request: ModelRequest,
    signal: AbortSignal,
    alive: () => void,
    onDelta: (text: string) => void,
  ): Promise<ModelResponse> {
    const { baseUrl, model } = this.options;
    const post = (withUsage: boolean) =>
      postForStream(
        this.fetch,
        endpoint(baseUrl, 'chat/completions'),
        {
          headers: this.headers(),
          body: {
            model,
            messages: toOpenAIMessages(request.system, request.messages),
            stream: true,
            // The usage chunk is how the loop learns the transcript's real size (issue 10 item 1).
            ...(withUsage ? { stream_options: { include_usage: true } } : {}),
            ...(request.tools.length > 0 ? { tools: toOpenAITools(request.tools) } : {}),
            // Only when configured: servers that do not know a field may refuse it.
            ...(this.options.maxOutputTokens !== undefined ? { [this.limitField]: this.options.maxOutputTokens } : {}),
            ...(this.options.reasoningEffort !== undefined ? { reasoning_effort: this.options.reasoningEffort } : {}),
          },
          signal,
        },
        { baseUrl, model, apiKey: this.options.apiKey, listModels: () => this.listModels(request.signal) },
      );
    let response: Awaited<ReturnType<typeof post>>;
    try {
      response = await post(this.askForUsage);
    } catch (error) {
      if (this.askForUsage && rejectsStreamOptions(error)) this.askForUsage = false;
      else if (this.limitField === 'max_tokens' && rejectsMaxTokens(error)) this.limitField = 'max_completion_tokens';
      else throw error;
      response = await post(this.askForUsage);
    }
    alive();
    const answer = new AnswerBuilder(onDelta);
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      answer.add(await response.text(), baseUrl);
      return answer.finish();
    }
    let done = false;
    try {
      for await (const event of readServerSentEvents(response.body)) {
        alive();
        if (event.data === '[DONE]') {
          done = true;
          break;
        }
        answer.add(event.data, baseUrl);
      }
    } catch (error) {
      if (isAbortError(error) || error instanceof ProviderError) throw error;
      throw connectionError(error, baseUrl);
    }
    if (!done && answer.finishReason === undefined) {
      throw new ProviderError(`The model server at ${baseUrl} closed the stream before the answer was complete.`, { transient: true });
    }
    return answer.finish();
  }

  /** GET /models, for a helpful message when the model is unknown. Cheap, bounded, best effort. */
  private listModels(signal: AbortSignal): Promise<readonly string[] | undefined> {
    return listServerModels(this.fetch, this.options.baseUrl, this.headers(), signal);
  }
}
