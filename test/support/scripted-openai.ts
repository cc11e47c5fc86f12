/**
 * A scripted OpenAI-compatible Chat Completions server for tests: a real HTTP server on
 * 127.0.0.1 that streams real SSE (`chat.completion.chunk` objects, tool-call arguments split
 * across several chunks and network writes, keep-alive comments, `data: [DONE]`).
 *
 * Usage:
 *
 *   const server = await startScriptedOpenAI({
 *     script: [
 *       { toolCalls: [{ name: 'read', arguments: { path: 'a.txt' } }] },
 *       (request) => ({ text: `saw: ${lastToolResult(request)}` }),
 *     ],
 *   });
 *   // point the client at server.baseUrl (ends in /v1)
 *   ...
 *   assert.deepEqual(server.violations, []);   // the pairing check, see below
 *   await server.close();
 *
 * - `script` is a list of steps, one per POST /v1/chat/completions, in order. A step is a
 *   ScriptedReply or a function of the recorded request returning one (to answer based on the
 *   last tool result). `script` may also be one function `(request, index) => reply`.
 * - A reply streams `text` and/or `toolCalls` (ids are generated when omitted), or answers with
 *   an HTTP error (`error: {status, message}`, e.g. 401 or 404), or `stall: true` streams its
 *   text and then never finishes (for cancellation tests).
 * - `requests` records every request (path, headers, parsed body), in arrival order.
 * - EVERY chat request is checked for pairing: each assistant tool call has exactly one
 *   `role: "tool"` result with its id, in call order, before any other message. Problems are
 *   collected in `violations` (with the request number) rather than thrown, because the server
 *   cannot fail the test itself: assert `violations` is empty at the end of each test.
 *   A request arriving after the script ran out is a violation too. A request with such a problem
 *   is also refused with HTTP 400, as OpenAI refuses it ("messages with role 'tool' must be a
 *   response to a preceding message with 'tool_calls'"), so a client cannot get past it.
 * - With `enforceWindow` (and `contextWindow`), a request whose prompt tokens (the body's length
 *   / 4, or `usage(request)`) exceed the window is refused with HTTP 400 and OpenAI's
 *   `context_length_exceeded` code; `refusedAsTooLong` lists those requests' chat numbers.
 * - GET /v1/models lists `models` (default: the one model `scripted-model`), each with
 *   `context_length: contextWindow` when that option is set (as OpenRouter and LM Studio do).
 * - Usage like OpenAI's: a request with `stream_options: {include_usage: true}` gets a last
 *   chunk with `choices: []` and `usage` (prompt tokens = the request body's length / 4, or
 *   `usage(request)` when given). With `rejectStreamOptions`, such a request is refused with
 *   HTTP 400 naming the parameter, as older Azure API versions and some proxies do.
 * - A request for an o-series or gpt-5 model (`o1`, `o3-mini`, `openai/o4-mini`, `gpt-5`) that
 *   carries `max_tokens` is refused with HTTP 400 and OpenAI's `unsupported_parameter` wording
 *   ("Use 'max_completion_tokens' instead"), as the real API refuses it.
 * - A user message's content may be a list of parts, as the API allows: `{type: "text", text}` or
 *   `{type: "image_url", image_url: {url: "data:image/png;base64,…"}}` (png, jpeg, gif or webp,
 *   valid base64). Any other part, or a malformed data URL, is refused with HTTP 400 as OpenAI
 *   refuses it; with `images: false` (a model without vision) every image part is refused.
 *   `imagesSeen` lists the media types of the images each chat request carried.
 * - With `apiKey`, every request (GET /v1/models included) without `Authorization: Bearer <that
 *   key>` is refused with HTTP 401 and OpenAI's `invalid_api_key` body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback-server';

export interface ScriptedToolCall {
  readonly id?: string;
  readonly name: string;
  /** An object is sent as its JSON text; a string is sent as is (to script malformed JSON). */
  readonly arguments: string | Readonly<Record<string, unknown>>;
}

export type ScriptedReply =
  | {
      readonly text?: string;
      readonly toolCalls?: readonly ScriptedToolCall[];
      /** Streamed first as `reasoning_content` deltas (OpenAI-compatible), or as a signed thinking block (Anthropic). */
      readonly reasoning?: string;
      /** Stream the text, then keep the response open until the client goes away. */
      readonly stall?: boolean;
    }
  | { readonly error: { readonly status: number; readonly message: string; readonly headers?: Readonly<Record<string, string>> } };

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  /** The parsed JSON body; `undefined` for GET. */
  readonly body: ChatRequestBody | undefined;
}

export interface ChatMessage {
  readonly role: string;
  readonly content?: string | null;
  readonly tool_calls?: readonly {
    readonly id: string;
    readonly type: string;
    readonly function: { readonly name: string; readonly arguments: string };
  }[];
  readonly tool_call_id?: string;
}

export interface ChatRequestBody {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly tools?: readonly {
    readonly type: string;
    readonly function: { readonly name: string; readonly description: string; readonly parameters: unknown };
  }[];
  readonly stream?: boolean;
  readonly stream_options?: { readonly include_usage?: boolean };
}

/** The usage chunk's counts, in OpenAI's field names. */
export interface ScriptedUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly cached_tokens?: number;
}

export type ScriptStep = ScriptedReply | ((request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>);

export interface ScriptedOpenAIOptions {
  readonly script: readonly ScriptStep[] | ((request: RecordedRequest, index: number) => ScriptedReply | Promise<ScriptedReply>);
  /** What GET /v1/models lists. */
  readonly models?: readonly string[];
  /** Stated as every listed model's `context_length`. */
  readonly contextWindow?: number;
  /** Refuse requests over `contextWindow` with `context_length_exceeded`, as OpenAI does. */
  readonly enforceWindow?: boolean;
  /** Refuse `stream_options` with HTTP 400, like servers that do not know it. */
  readonly rejectStreamOptions?: boolean;
  /** The usage reported for a request; by default body length / 4 in, answer length / 4 out. */
  readonly usage?: (request: RecordedRequest, index: number) => ScriptedUsage;
  /** The only key accepted; without it any key (or none) is. */
  readonly apiKey?: string;
  /** False: the model has no vision, and image parts are refused as OpenAI refuses them. */
  readonly images?: boolean;
}

export interface ScriptedOpenAIServer {
  /** `http://127.0.0.1:PORT/v1` */
  readonly baseUrl: string;
  /** Every request, including GET /v1/models. */
  readonly requests: RecordedRequest[];
  /** Only the chat requests, in order. */
  readonly chatRequests: () => RecordedRequest[];
  /** Pairing and script problems, one line each; must be empty at the end of a test. */
  readonly violations: string[];
  /** The chat numbers (1-based) of requests refused as longer than the window (`enforceWindow`). */
  readonly refusedAsTooLong: number[];
  /** Per chat request that got past the checks, the media types of its images, in order. */
  readonly imagesSeen: string[][];
  readonly close: () => Promise<void>;
}

const DATA_URL = /^data:(image\/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/]+={0,2})$/;

/** Checks a request's user content parts as the API does: the media types of its images, or why it is refused. */
export function imageParts(messages: readonly ChatMessage[], acceptsImages: boolean): { types: string[] } | { refusal: string } {
  const types: string[] = [];
  for (const message of messages) {
    // The API allows a list of parts where ChatMessage says string; checked at run time.
    const content: unknown = message.content;
    if (!Array.isArray(content)) continue;
    if (message.role !== 'user') return { refusal: `Invalid value for 'content': ${message.role} messages take a string here.` };
    for (const part of content as unknown[]) {
      const typed = part as { type?: unknown; text?: unknown; image_url?: { url?: unknown } };
      if (typed.type === 'text' && typeof typed.text === 'string') continue;
      if (typed.type !== 'image_url')
        return { refusal: `Invalid value: '${String(typed.type)}'. Supported values are: 'text' and 'image_url'.` };
      if (!acceptsImages) return { refusal: 'Invalid content type. image_url is only supported by certain models.' };
      const url = typed.image_url?.url;
      const match = typeof url === 'string' ? DATA_URL.exec(url) : null;
      if (match === null)
        return { refusal: "Invalid image URL: 'image_url.url' must be a URL or a base64 data URL of a png, jpeg, gif or webp image." };
      types.push(match[1] ?? '');
    }
  }
  return { types };
}

/** Checks one request's transcript: every tool call answered exactly once, in order, before anything else. */
export function pairingViolations(messages: readonly ChatMessage[]): string[] {
  const problems: string[] = [];
  let pending: string[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'tool') {
      const expected = pending.shift();
      if (expected === undefined) problems.push(`message ${index}: tool result ${message.tool_call_id} answers no pending tool call`);
      else if (message.tool_call_id !== expected) {
        problems.push(`message ${index}: tool result ${message.tool_call_id} arrived where the result of ${expected} was due (call order)`);
      }
      return;
    }
    if (pending.length > 0) problems.push(`message ${index} (${message.role}): tool calls ${pending.join(', ')} have no result`);
    pending = (message.role === 'assistant' ? (message.tool_calls ?? []) : []).map((call) => call.id);
    const unique = new Set(pending);
    if (unique.size !== pending.length) problems.push(`message ${index}: duplicate tool call ids ${pending.join(', ')}`);
  });
  if (pending.length > 0) problems.push(`end of request: tool calls ${pending.join(', ')} have no result`);
  return problems;
}

/** The content of the last `role: "tool"` message, for replies that react to a result. */
export function lastToolResult(request: RecordedRequest): string {
  const messages = request.body?.messages ?? [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === 'tool') return message.content ?? '';
  }
  return '';
}

/** Every tool result of a request, keyed by call id. */
export function toolResults(request: RecordedRequest): Map<string, string> {
  const results = new Map<string, string>();
  for (const message of request.body?.messages ?? []) {
    if (message.role === 'tool' && message.tool_call_id) results.set(message.tool_call_id, message.content ?? '');
  }
  return results;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** Pieces of about `size` characters; arguments arrive in several fragments, like real servers send them. */
function pieces(text: string, count: number): string[] {
  if (text.length === 0) return [''];
  const size = Math.max(1, Math.ceil(text.length / count));
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += size) parts.push(text.slice(start, start + size));
  return parts;
}

const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Writes one SSE event in two network writes, split mid-line, so clients must reassemble lines. */
async function writeEvent(response: ServerResponse, data: unknown): Promise<void> {
  const line = `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
  const middle = Math.floor(line.length / 2);
  response.write(line.slice(0, middle));
  await nextTick();
  response.write(line.slice(middle));
}

let callCounter = 0;

async function streamReply(
  response: ServerResponse,
  reply: Exclude<ScriptedReply, { error: unknown }>,
  model: string,
  usage: ScriptedUsage | undefined,
): Promise<void> {
  const id = `chatcmpl-${Date.now()}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: unknown, finishReason: string | null = null): unknown => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  response.write(': scripted server keep-alive\r\n\r\n');
  await writeEvent(response, chunk({ role: 'assistant', content: '' }));
  for (const part of pieces(reply.reasoning ?? '', 3)) {
    if (part) await writeEvent(response, chunk({ reasoning_content: part }));
  }
  for (const part of pieces(reply.text ?? '', 3)) {
    if (part) await writeEvent(response, chunk({ content: part }));
  }
  if (reply.stall) return;
  const calls = reply.toolCalls ?? [];
  for (const [index, call] of calls.entries()) {
    const callId = call.id ?? `call_scripted_${++callCounter}`;
    const argumentsText = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    await writeEvent(
      response,
      chunk({ tool_calls: [{ index, id: callId, type: 'function', function: { name: call.name, arguments: '' } }] }),
    );
    for (const part of pieces(argumentsText, 3)) {
      await writeEvent(response, chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  }
  await writeEvent(response, chunk({}, calls.length > 0 ? 'tool_calls' : 'stop'));
  if (usage) {
    const { prompt_tokens, completion_tokens, cached_tokens = 0 } = usage;
    await writeEvent(response, {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [],
      usage: {
        prompt_tokens,
        completion_tokens,
        total_tokens: prompt_tokens + completion_tokens,
        prompt_tokens_details: { cached_tokens },
      },
    });
  }
  await writeEvent(response, '[DONE]');
  response.end();
}

export async function startScriptedOpenAI(options: ScriptedOpenAIOptions): Promise<ScriptedOpenAIServer> {
  const requests: RecordedRequest[] = [];
  const violations: string[] = [];
  const refusedAsTooLong: number[] = [];
  const imagesSeen: string[][] = [];
  const models = options.models ?? ['scripted-model'];
  let chatCount = 0;

  const replyFor = async (request: RecordedRequest, index: number): Promise<ScriptedReply> => {
    if (typeof options.script === 'function') return options.script(request, index);
    const step = options.script[index];
    if (step === undefined) {
      violations.push(`chat request ${index + 1} arrived after the script (${options.script.length} steps) ran out`);
      return { text: 'The script has ended.' };
    }
    return typeof step === 'function' ? step(request) : step;
  };

  const handle = async (incoming: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = new URL(incoming.url ?? '/', 'http://127.0.0.1').pathname;
    const raw = await readBody(incoming);
    const body = raw ? (JSON.parse(raw) as ChatRequestBody) : undefined;
    const recorded: RecordedRequest = { method: incoming.method ?? 'GET', path, headers: incoming.headers, body };
    requests.push(recorded);
    const authorization = incoming.headers.authorization;
    if (options.apiKey !== undefined && authorization !== `Bearer ${options.apiKey}`) {
      response.writeHead(401, { 'content-type': 'application/json' });
      const message =
        authorization === undefined
          ? "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
          : 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.';
      response.end(JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }));
      return;
    }
    if (incoming.method === 'GET' && path === '/v1/models') {
      response.writeHead(200, { 'content-type': 'application/json' });
      const window = options.contextWindow !== undefined ? { context_length: options.contextWindow } : {};
      response.end(
        JSON.stringify({ object: 'list', data: models.map((model) => ({ id: model, object: 'model', owned_by: 'scripted', ...window })) }),
      );
      return;
    }
    if (incoming.method !== 'POST' || path !== '/v1/chat/completions' || !body) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `No route for ${incoming.method} ${path}`, type: 'invalid_request_error' } }));
      return;
    }
    const wantsUsage = body.stream_options?.include_usage === true;
    if (wantsUsage && options.rejectStreamOptions) {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error: {
            message: 'Unrecognized request argument supplied: stream_options',
            type: 'invalid_request_error',
            param: null,
            code: null,
          },
        }),
      );
      return;
    }
    if ('max_tokens' in body && /(^|\/)(o\d+(-|$)|gpt-5)/i.test(body.model)) {
      response.writeHead(400, { 'content-type': 'application/json' });
      const message = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";
      response.end(
        JSON.stringify({ error: { message, type: 'invalid_request_error', param: 'max_tokens', code: 'unsupported_parameter' } }),
      );
      return;
    }
    const images = imageParts(body.messages, options.images ?? true);
    if ('refusal' in images) {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: images.refusal, type: 'invalid_request_error', param: 'messages', code: null } }));
      return;
    }
    imagesSeen.push(images.types);
    const index = chatCount++;
    const problems = pairingViolations(body.messages);
    for (const problem of problems) violations.push(`chat request ${index + 1}: ${problem}`);
    if (problems.length > 0) {
      response.writeHead(400, { 'content-type': 'application/json' });
      const message = `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls', and every tool call needs one (${problems.join('; ')}).`;
      response.end(JSON.stringify({ error: { message, type: 'invalid_request_error', param: 'messages', code: null } }));
      return;
    }
    const promptTokens = options.usage?.(recorded, index).prompt_tokens ?? Math.ceil(raw.length / 4);
    if (options.enforceWindow && options.contextWindow !== undefined && promptTokens > options.contextWindow) {
      refusedAsTooLong.push(index + 1);
      response.writeHead(400, { 'content-type': 'application/json' });
      const message = `This model's maximum context length is ${options.contextWindow} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`;
      response.end(
        JSON.stringify({ error: { message, type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } }),
      );
      return;
    }
    const reply = await replyFor(recorded, index);
    if ('error' in reply) {
      response.writeHead(reply.error.status, { 'content-type': 'application/json', ...reply.error.headers });
      response.end(JSON.stringify({ error: { message: reply.error.message, type: 'scripted_error', code: reply.error.status } }));
      return;
    }
    const answerLength =
      (reply.text ?? '').length +
      (reply.toolCalls ?? []).reduce((sum, call) => sum + JSON.stringify(call.arguments).length + call.name.length, 0);
    const usage = wantsUsage
      ? (options.usage?.(recorded, index) ?? { prompt_tokens: Math.ceil(raw.length / 4), completion_tokens: Math.ceil(answerLength / 4) })
      : undefined;
    await streamReply(response, reply, body.model, usage);
  };

  const server = await listenOnLoopback(handle, violations);
  return {
    baseUrl: server.baseUrl,
    requests,
    chatRequests: () => requests.filter((request) => request.method === 'POST'),
    violations,
    refusedAsTooLong,
    imagesSeen,
    close: server.close,
  };
}
