/**
 * Anthropic Messages with tools, streamed. Tool calls are `tool_use` blocks in the assistant turn;
 * their results go back as `tool_result` blocks in the next user turn, in call order.
 */
import { z } from 'zod';
import type { ReasoningEffort } from '../core/config';
import type { ThinkingBlock, TranscriptMessage, TranscriptToolCall } from '../core/transcript';
import {
  connectionError,
  DEFAULT_IDLE_TIMEOUT_MS,
  endpoint,
  freshCallId,
  isAbortError,
  jsonSchemaForModel,
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
  type TokenUsage,
  type ToolDefinition,
} from './provider';
import { isLocalBaseUrl } from './context-window';
import { readServerSentEvents } from './sse';

export const ANTHROPIC_VERSION = '2023-06-01';
/** Used when model.provider is "anthropic" and no base URL was given anywhere. */
export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com/v1';
/** The API requires a bound; 8192 is what every current Claude model accepts. */
const MAX_OUTPUT_TOKENS = 8192;

/** Extended-thinking budgets for model.reasoning_effort (the API's minimum is 1024). */
const THINKING_BUDGETS: Readonly<Record<ReasoningEffort, number>> = { low: 2048, medium: 8192, high: 24_576 };

/** `max_tokens` and `thinking` for the configured limit and effort: the budget must stay below `max_tokens`, with room for the answer. */
export function outputSettings(
  maxOutputTokens: number | undefined,
  effort: ReasoningEffort | undefined,
): { max_tokens: number; thinking?: { type: 'enabled'; budget_tokens: number } } {
  const limit = maxOutputTokens ?? MAX_OUTPUT_TOKENS;
  if (effort === undefined) return { max_tokens: limit };
  const budget = THINKING_BUDGETS[effort];
  return { max_tokens: Math.max(limit, budget + 4096), thinking: { type: 'enabled', budget_tokens: budget } };
}

type ContentBlock = (
  | ThinkingBlock
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string }
) & { cache_control?: typeof EPHEMERAL };

interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: ContentBlock[];
}

/** The model's arguments as an object; the API refuses anything else in `tool_use.input`. */
function inputObject(argumentsJson: string): unknown {
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/**
 * The transcript in Messages form. System messages join the top-level `system`; consecutive
 * turns of one role are merged, so tool results and a following user note share one user turn
 * with the results first, as the API requires.
 */
export function toAnthropicRequest(
  system: string,
  messages: readonly TranscriptMessage[],
): { system: string; messages: AnthropicMessage[] } {
  const systemParts = system ? [system] : [];
  const wire: AnthropicMessage[] = [];
  const push = (role: AnthropicMessage['role'], blocks: ContentBlock[]): void => {
    if (blocks.length === 0) return;
    const last = wire[wire.length - 1];
    if (last?.role === role) last.content.push(...blocks);
    else wire.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        systemParts.push(message.content);
        break;
      case 'user':
        // Images first, as Anthropic advises, then the text.
        push('user', [
          ...(message.images ?? []).map((image): ContentBlock => ({
            type: 'image',
            source: { type: 'base64', media_type: image.mediaType, data: image.data },
          })),
          ...(message.content ? [{ type: 'text' as const, text: message.content }] : []),
        ]);
        break;
      case 'assistant':
        push('assistant', [
          // Unchanged, signatures included, and first: the API verifies them on tool-result turns.
          ...(message.thinking ?? []).map((block): ContentBlock => ({ ...block })),
          ...(message.content ? [{ type: 'text' as const, text: message.content }] : []),
          ...(message.toolCalls ?? []).map((call) => ({
            type: 'tool_use' as const,
            id: call.id,
            name: call.name,
            input: inputObject(call.arguments),
          })),
        ]);
        break;
      case 'tool':
        push('user', [{ type: 'tool_result', tool_use_id: message.callId, content: message.content || '(no output)' }]);
        break;
    }
  }
  return { system: systemParts.join('\n\n'), messages: wire };
}

export function toAnthropicTools(tools: readonly ToolDefinition[]): Record<string, unknown>[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: jsonSchemaForModel(tool.inputSchema) }));
}

const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * Prompt caching (issue 10 item 5): the API caches the prefix up to each block marked with
 * `cache_control`, and allows four marks. The system prompt and the tools take two (they change
 * only between runs); the last two user turns take the others, so each step reads what the
 * step before wrote and a long session pays for its prefix once. Thinking blocks cannot be
 * marked, and are never last in a user turn anyway.
 */
export function withMessageBreakpoints(messages: readonly AnthropicMessage[]): AnthropicMessage[] {
  const marked = new Set<number>();
  for (let index = messages.length - 1; index >= 0 && marked.size < 2; index--) {
    if (messages[index]?.role === 'user') marked.add(index);
  }
  return messages.map((message, index) => {
    if (!marked.has(index)) return message;
    const blocks = [...message.content];
    const last = blocks.at(-1);
    if (last) blocks[blocks.length - 1] = { ...last, cache_control: EPHEMERAL };
    return { ...message, content: blocks };
  });
}

const count = z.number().int().nonnegative().nullish().catch(undefined);
/** Anthropic's usage: `input_tokens` excludes the cached part, which comes as cache reads and writes. */
const usageSchema = z
  .object({ input_tokens: count, output_tokens: count, cache_read_input_tokens: count, cache_creation_input_tokens: count })
  .nullish()
  .catch(undefined);
type AnthropicUsage = NonNullable<z.infer<typeof usageSchema>>;

const streamEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message_start'), message: z.object({ usage: usageSchema }).nullish().catch(undefined) }),
  z.object({
    type: z.literal('content_block_start'),
    index: z.number().int(),
    content_block: z.object({
      type: z.string(),
      text: z.string().optional(),
      id: z.string().optional(),
      name: z.string().optional(),
      thinking: z.string().optional(),
      signature: z.string().optional(),
      data: z.string().optional(),
    }),
  }),
  z.object({
    type: z.literal('content_block_delta'),
    index: z.number().int(),
    delta: z.object({
      type: z.string(),
      text: z.string().optional(),
      partial_json: z.string().optional(),
      thinking: z.string().optional(),
      signature: z.string().optional(),
    }),
  }),
  z.object({ type: z.literal('content_block_stop'), index: z.number().int() }),
  // Its usage is cumulative: it restates (or first states) the counts of message_start.
  z.object({ type: z.literal('message_delta'), delta: z.object({ stop_reason: z.string().nullish() }), usage: usageSchema }),
  z.object({ type: z.literal('message_stop') }),
  z.object({ type: z.literal('ping') }),
  z.object({ type: z.literal('error'), error: z.object({ type: z.string(), message: z.string() }) }),
]);

/** Errors the API reports inside a stream that are worth a retry. */
const TRANSIENT_STREAM_ERRORS = new Set(['overloaded_error', 'api_error', 'rate_limit_error']);

/** The counts of message_start updated by those message_delta restates; the latest value of each field wins. */
function mergeUsage(known: AnthropicUsage | undefined, update: AnthropicUsage | null | undefined): AnthropicUsage | undefined {
  if (!update) return known;
  const merged: AnthropicUsage = { ...known };
  for (const key of ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'] as const) {
    const value = update[key];
    if (value !== undefined && value !== null) merged[key] = value;
  }
  return merged;
}

function toTokenUsage(usage: AnthropicUsage | undefined): TokenUsage | undefined {
  if (!usage || (usage.input_tokens == null && usage.output_tokens == null)) return undefined;
  const cachedTokens = usage.cache_read_input_tokens ?? 0;
  const cacheWriteTokens = usage.cache_creation_input_tokens ?? 0;
  return {
    inputTokens: (usage.input_tokens ?? 0) + cachedTokens + cacheWriteTokens,
    outputTokens: usage.output_tokens ?? 0,
    ...(cachedTokens > 0 ? { cachedTokens } : {}),
    ...(cacheWriteTokens > 0 ? { cacheWriteTokens } : {}),
  };
}

interface ToolUseBlock {
  id: string;
  name: string;
  json: string;
}

/** Anthropic's model list states no window, so the table of well-known models answers for Claude. */
export class AnthropicProvider implements ModelProvider {
  readonly label: string;
  readonly model: string;
  readonly local: boolean;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: HttpProviderOptions) {
    this.label = `anthropic ${options.model} at ${options.baseUrl}`;
    this.model = options.model;
    this.local = isLocalBaseUrl(options.baseUrl);
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  stream(request: ModelRequest, onDelta: (text: string) => void): Promise<ModelResponse> {
    const { idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS, baseUrl } = this.options;
    return withRetries(this.options.retry, request.signal, onDelta, (guardedDelta) =>
      withIdleTimeout(idleTimeoutMs, baseUrl, request.signal, (signal, alive) => this.attempt(request, signal, alive, guardedDelta)),
    );
  }

  private headers(): Record<string, string> {
    const key = this.options.apiKey.key;
    return { 'anthropic-version': ANTHROPIC_VERSION, ...(key ? { 'x-api-key': key } : {}) };
  }

  private async attempt(
    request: ModelRequest,
    signal: AbortSignal,
    alive: () => void,
    onDelta: (text: string) => void,
  ): Promise<ModelResponse> {
    const { baseUrl, model } = this.options;
    const { system, messages } = toAnthropicRequest(request.system, request.messages);
    const tools = toAnthropicTools(request.tools);
    const body = {
      model,
      ...outputSettings(this.options.maxOutputTokens, this.options.reasoningEffort),
      stream: true,
      messages: withMessageBreakpoints(messages),
      ...(system ? { system: [{ type: 'text', text: system, cache_control: EPHEMERAL }] } : {}),
      ...(tools.length > 0
        ? { tools: tools.map((tool, index) => (index === tools.length - 1 ? { ...tool, cache_control: EPHEMERAL } : tool)) }
        : {}),
    };
    const response = await postForStream(
      this.fetch,
      endpoint(baseUrl, 'messages'),
      { headers: this.headers(), body, signal },
      { baseUrl, model, apiKey: this.options.apiKey, listModels: () => this.listModels(request.signal) },
    );
    alive();

    let text = '';
    let stopReason: string | undefined;
    let stopped = false;
    let usage: AnthropicUsage | undefined;
    const toolUses = new Map<number, ToolUseBlock>();
    const thinking = new Map<
      number,
      { type: 'thinking'; thinking: string; signature: string } | { type: 'redacted_thinking'; data: string }
    >();
    try {
      for await (const event of readServerSentEvents(response.body)) {
        alive();
        let json: unknown;
        try {
          json = JSON.parse(event.data);
        } catch {
          throw new ProviderError(`The model server at ${baseUrl} sent a stream event that is not JSON: ${event.data.slice(0, 200)}`);
        }
        const parsed = streamEventSchema.safeParse(json);
        // Event types added to the API later are skipped, as its versioning policy asks.
        if (!parsed.success) continue;
        const data = parsed.data;
        if (data.type === 'message_start') {
          usage = mergeUsage(usage, data.message?.usage);
        } else if (data.type === 'content_block_start' && data.content_block.type === 'tool_use') {
          toolUses.set(data.index, { id: data.content_block.id || freshCallId(), name: data.content_block.name ?? '', json: '' });
        } else if (data.type === 'content_block_start' && data.content_block.type === 'thinking') {
          thinking.set(data.index, {
            type: 'thinking',
            thinking: data.content_block.thinking ?? '',
            signature: data.content_block.signature ?? '',
          });
        } else if (data.type === 'content_block_start' && data.content_block.type === 'redacted_thinking') {
          thinking.set(data.index, { type: 'redacted_thinking', data: data.content_block.data ?? '' });
        } else if (data.type === 'content_block_delta' && (data.delta.type === 'thinking_delta' || data.delta.type === 'signature_delta')) {
          const block = thinking.get(data.index);
          if (block?.type === 'thinking') {
            block.thinking += data.delta.thinking ?? '';
            block.signature += data.delta.signature ?? '';
          }
        } else if (data.type === 'content_block_start' && data.content_block.type === 'text' && data.content_block.text) {
          text += data.content_block.text;
          onDelta(data.content_block.text);
        } else if (data.type === 'content_block_delta' && data.delta.type === 'text_delta' && data.delta.text) {
          text += data.delta.text;
          onDelta(data.delta.text);
        } else if (data.type === 'content_block_delta' && data.delta.type === 'input_json_delta') {
          const block = toolUses.get(data.index);
          if (block) block.json += data.delta.partial_json ?? '';
        } else if (data.type === 'message_delta') {
          stopReason = data.delta.stop_reason ?? stopReason;
          usage = mergeUsage(usage, data.usage);
        } else if (data.type === 'message_stop') {
          stopped = true;
          break;
        } else if (data.type === 'error') {
          throw new ProviderError(`The model server at ${baseUrl} reported ${data.error.type} mid-answer: ${data.error.message}`, {
            transient: TRANSIENT_STREAM_ERRORS.has(data.error.type),
            contextOverflow: saysContextOverflow(data.error.message),
          });
        }
      }
    } catch (error) {
      if (isAbortError(error) || error instanceof ProviderError) throw error;
      throw connectionError(error, baseUrl);
    }
    if (!stopped) {
      throw new ProviderError(`The model server at ${baseUrl} closed the stream before the answer was complete.`, { transient: true });
    }
    const toolCalls: TranscriptToolCall[] = [...toolUses.entries()]
      .sort(([left], [right]) => left - right)
      .map(([, block]) => ({ id: block.id, name: block.name, arguments: block.json || '{}' }));
    const tokens = toTokenUsage(usage);
    const blocks: ThinkingBlock[] = [...thinking.entries()].sort(([left], [right]) => left - right).map(([, block]) => block);
    const reasoning = blocks.flatMap((block) => (block.type === 'thinking' ? [block.thinking] : [])).join('\n\n');
    return {
      ...(blocks.length > 0 ? { thinking: blocks } : {}),
      ...(reasoning ? { reasoning } : {}),
      text,
      toolCalls,
      stopReason:
        toolCalls.length > 0 ? 'tool_calls' : stopReason === 'end_turn' ? 'end' : stopReason === 'max_tokens' ? 'length' : 'other',
      ...(tokens ? { usage: tokens } : {}),
    };
  }

  private listModels(signal: AbortSignal): Promise<readonly string[] | undefined> {
    return listServerModels(this.fetch, this.options.baseUrl, this.headers(), signal);
  }
}
