/**
 * A scripted Anthropic Messages server for tests: a real HTTP server on 127.0.0.1 streaming the
 * real event sequence (message_start, content_block_start, content_block_delta with text_delta
 * or input_json_delta split across several events, content_block_stop, message_delta,
 * message_stop, with a ping in between).
 *
 *   const server = await startScriptedAnthropic({ script: [{ toolCalls: [...] }, { text: 'done' }] });
 *   // point the client at server.baseUrl (ends in /v1); POST /v1/messages
 *   assert.deepEqual(server.violations, []);
 *   await server.close();
 *
 * Replies are the same ScriptedReply shapes as the OpenAI server's (text, toolCalls, error).
 * Every request is checked: each tool_use in an assistant turn must be answered by a
 * tool_result with its id, in call order, at the start of the very next user turn; the
 * x-api-key and anthropic-version headers must be present; `system` must be top-level.
 * A reply's `reasoning` streams as a thinking block with a signature (thinking_delta, then
 * signature_delta). Like the API, the server refuses (HTTP 400) a request whose thinking block
 * was changed or lost its signature, and, when `thinking` is enabled, one whose last assistant
 * turn with tool calls no longer starts with the thinking block it was sent with.
 * Prompt caching as the API does it, when `simulateCache` is set: the prefix up to each block
 * marked `cache_control` (tools, then system, then messages) is written on first sight and read
 * on later requests; more than four marks are refused with HTTP 400.
 * Usage comes as the API sends it: `message_start` carries the input tokens (body length / 4,
 * split into uncached, cache-read and cache-write parts when `cache` is given) and
 * `message_delta` the cumulative output tokens.
 * Image blocks are checked as the API checks them: `source` must be `{type: "base64", media_type:
 * image/png|jpeg|gif|webp, data: <base64>}`, only in user turns; otherwise HTTP 400. `imagesSeen`
 * lists each accepted request's image media types.
 * With `apiKey`, every request (GET /v1/models included) whose `x-api-key` is missing or differs
 * is refused with HTTP 401 and the API's `authentication_error` body, as the real API refuses it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback-server';
import type { ScriptedReply } from './scripted-openai';

interface Block {
  readonly type: string;
  readonly id?: string;
  readonly tool_use_id?: string;
  readonly text?: string;
  readonly thinking?: string;
  readonly signature?: string;
  readonly content?: unknown;
  readonly input?: unknown;
  readonly name?: string;
  readonly cache_control?: { readonly type: string };
  readonly source?: { readonly type?: unknown; readonly media_type?: unknown; readonly data?: unknown };
}

export interface AnthropicRequestBody {
  readonly model: string;
  readonly system?: string | readonly Block[];
  readonly max_tokens: number;
  readonly thinking?: { readonly type: string; readonly budget_tokens?: number };
  readonly stream?: boolean;
  readonly messages: readonly { readonly role: string; readonly content: string | readonly Block[] }[];
  readonly tools?: readonly { readonly name: string; readonly description: string; readonly input_schema: unknown }[];
}

export interface RecordedAnthropicRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: AnthropicRequestBody;
}

export interface ScriptedAnthropicServer {
  readonly baseUrl: string;
  readonly requests: RecordedAnthropicRequest[];
  readonly violations: string[];
  /** Per accepted request, the media types of its image blocks, in order. */
  readonly imagesSeen: string[][];
  readonly close: () => Promise<void>;
}

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** The request's image media types, or the API's reason to refuse one. */
export function anthropicImages(body: AnthropicRequestBody): { types: string[] } | { refusal: string } {
  const types: string[] = [];
  for (const [index, message] of body.messages.entries()) {
    for (const block of blocksOf(message.content)) {
      if (block.type !== 'image') continue;
      if (message.role !== 'user') return { refusal: `messages.${index}: image blocks are only allowed in user turns` };
      const source = block.source;
      if (source?.type !== 'base64') return { refusal: `messages.${index}: image source type must be base64` };
      if (typeof source.media_type !== 'string' || !IMAGE_TYPES.has(source.media_type))
        return { refusal: `messages.${index}: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'` };
      if (typeof source.data !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(source.data))
        return { refusal: `messages.${index}: image data is not valid base64` };
      types.push(source.media_type);
    }
  }
  return { types };
}

const blocksOf = (content: string | readonly Block[]): readonly Block[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : content;

export function anthropicPairingViolations(body: AnthropicRequestBody): string[] {
  const problems: string[] = [];
  body.messages.forEach((message, index) => {
    const blocks = blocksOf(message.content);
    if (message.role === 'system')
      problems.push(`message ${index}: a system message in messages; it belongs in the top-level system field`);
    const previous = body.messages[index - 1];
    if (previous?.role === message.role) problems.push(`message ${index}: two ${message.role} turns in a row`);
    const asked =
      previous?.role === 'assistant'
        ? blocksOf(previous.content)
            .filter((block) => block.type === 'tool_use')
            .map((block) => block.id)
        : [];
    const answered = blocks.filter((block) => block.type === 'tool_result').map((block) => block.tool_use_id);
    if (message.role === 'user' && JSON.stringify(answered) !== JSON.stringify(asked)) {
      problems.push(`message ${index}: tool results [${answered.join(', ')}] do not answer tool calls [${asked.join(', ')}] in order`);
    }
    const firstOther = blocks.findIndex((block) => block.type !== 'tool_result');
    if (firstOther !== -1 && blocks.slice(firstOther).some((block) => block.type === 'tool_result')) {
      problems.push(`message ${index}: a tool_result after other content; results must come first`);
    }
  });
  const last = body.messages[body.messages.length - 1];
  if (last?.role === 'assistant' && blocksOf(last.content).some((block) => block.type === 'tool_use')) {
    problems.push('end of request: the last assistant turn has tool calls without results');
  }
  return problems;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function writeEvent(response: ServerResponse, type: string, data: Record<string, unknown>): void {
  response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

function thirds(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += size) parts.push(text.slice(start, start + size));
  return parts;
}

let callCounter = 0;

/** The input tokens of a request as the scripted server reports them. */
export interface ScriptedAnthropicUsage {
  readonly input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation_input_tokens: number;
}

/** The prefix (tools, system, messages, in the API's cache order) up to each block marked `cache_control`, as text. */
export function cacheBreakpoints(body: AnthropicRequestBody): string[] {
  const strip = (value: unknown): unknown =>
    JSON.parse(JSON.stringify(value, (key, item: unknown) => (key === 'cache_control' ? undefined : item)));
  const sequence: { readonly part: unknown; readonly marked: boolean }[] = [
    ...(body.tools ?? []).map((tool) => ({ part: strip(tool), marked: 'cache_control' in tool })),
    ...blocksOf(body.system ?? []).map((block) => ({ part: strip(block), marked: block.cache_control !== undefined })),
    ...body.messages.flatMap((message) =>
      blocksOf(message.content).map((block) => ({ part: [message.role, strip(block)], marked: block.cache_control !== undefined })),
    ),
  ];
  const prefixes: string[] = [];
  sequence.forEach((item, index) => {
    if (item.marked) prefixes.push(JSON.stringify(sequence.slice(0, index + 1).map((entry) => entry.part)));
  });
  return prefixes;
}

/** Reads: the longest marked prefix seen before; writes: the rest up to the longest marked prefix. */
function simulatedCacheUsage(body: AnthropicRequestBody, total: number, cached: Set<string>): ScriptedAnthropicUsage {
  const prefixes = cacheBreakpoints(body);
  const tokens = (prefix: string): number => Math.min(total, Math.ceil(prefix.length / 4));
  const read = Math.max(0, ...prefixes.filter((prefix) => cached.has(prefix)).map(tokens));
  const longest = Math.max(0, ...prefixes.map(tokens));
  for (const prefix of prefixes) cached.add(prefix);
  const write = Math.max(0, longest - read);
  return { input_tokens: total - read - write, cache_read_input_tokens: read, cache_creation_input_tokens: write };
}

/** What the server signed: signature → thinking text, and each signed answer's tool_use ids → its signature. */
interface Signed {
  readonly thoughts: Map<string, string>;
  readonly byToolUse: Map<string, string>;
}

/** The API's checks on thinking blocks: unchanged and signed, and present on the tool-result turn when thinking is on. */
export function thinkingViolations(body: AnthropicRequestBody, signed: Signed): string[] {
  const problems: string[] = [];
  body.messages.forEach((message, index) => {
    for (const block of blocksOf(message.content)) {
      if (block.type !== 'thinking') continue;
      if (!block.signature) problems.push(`messages.${index}: a thinking block without its signature`);
      else if (signed.thoughts.get(block.signature) !== block.thinking)
        problems.push(`messages.${index}: Invalid \`signature\` in \`thinking\` block`);
    }
  });
  const lastAssistant = body.messages.map((message) => message.role).lastIndexOf('assistant');
  const last = body.messages[lastAssistant];
  if (body.thinking?.type === 'enabled' && last) {
    const blocks = blocksOf(last.content);
    const toolUse = blocks.find((block) => block.type === 'tool_use');
    const signature = toolUse?.id !== undefined ? signed.byToolUse.get(toolUse.id) : undefined;
    if (signature !== undefined && blocks[0]?.type !== 'thinking') {
      problems.push(
        `messages.${lastAssistant}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${blocks[0]?.type ?? 'nothing'}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block`,
      );
    }
  }
  return problems;
}

function streamReply(
  response: ServerResponse,
  reply: Exclude<ScriptedReply, { error: unknown }>,
  model: string,
  usage: ScriptedAnthropicUsage,
  signed: Signed,
): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  writeEvent(response, 'message_start', {
    message: {
      id: `msg_${Date.now()}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  let answerLength = (reply.text ?? '').length;
  let index = 0;
  let signature: string | undefined;
  if (reply.reasoning) {
    signature = `sig-${signed.thoughts.size + 1}-${Buffer.from(reply.reasoning).toString('base64').slice(0, 16)}`;
    signed.thoughts.set(signature, reply.reasoning);
    writeEvent(response, 'content_block_start', { index, content_block: { type: 'thinking', thinking: '' } });
    for (const part of thirds(reply.reasoning))
      writeEvent(response, 'content_block_delta', { index, delta: { type: 'thinking_delta', thinking: part } });
    writeEvent(response, 'content_block_delta', { index, delta: { type: 'signature_delta', signature } });
    writeEvent(response, 'content_block_stop', { index });
    index++;
  }
  if (reply.text) {
    writeEvent(response, 'content_block_start', { index, content_block: { type: 'text', text: '' } });
    writeEvent(response, 'ping', {});
    for (const part of thirds(reply.text))
      writeEvent(response, 'content_block_delta', { index, delta: { type: 'text_delta', text: part } });
    writeEvent(response, 'content_block_stop', { index });
    index++;
  }
  const calls = reply.toolCalls ?? [];
  for (const call of calls) {
    const id = call.id ?? `toolu_scripted_${++callCounter}`;
    if (signature !== undefined) signed.byToolUse.set(id, signature);
    const json = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    answerLength += call.name.length + json.length;
    writeEvent(response, 'content_block_start', { index, content_block: { type: 'tool_use', id, name: call.name, input: {} } });
    for (const part of thirds(json))
      writeEvent(response, 'content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part } });
    writeEvent(response, 'content_block_stop', { index });
    index++;
  }
  writeEvent(response, 'message_delta', {
    delta: { stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: Math.max(1, Math.ceil(answerLength / 4)) },
  });
  writeEvent(response, 'message_stop', {});
  response.end();
}

export async function startScriptedAnthropic(options: {
  readonly script: readonly (ScriptedReply | ((request: RecordedAnthropicRequest) => ScriptedReply))[];
  readonly models?: readonly string[];
  /** Splits each request's input tokens: this many are reported as cache reads, and this many as cache writes. */
  readonly cache?: { readonly read: number; readonly write: number };
  /** Reports cache reads and writes from the request's own `cache_control` breakpoints (see above). */
  readonly simulateCache?: boolean;
  /** The only key accepted; without it any key is. */
  readonly apiKey?: string;
}): Promise<ScriptedAnthropicServer> {
  const requests: RecordedAnthropicRequest[] = [];
  const violations: string[] = [];
  const imagesSeen: string[][] = [];
  const signed: Signed = { thoughts: new Map(), byToolUse: new Map() };
  const cached = new Set<string>();
  const usageFor = (raw: string): ScriptedAnthropicUsage => {
    const total = Math.ceil(raw.length / 4);
    if (options.simulateCache) return simulatedCacheUsage(JSON.parse(raw) as AnthropicRequestBody, total, cached);
    const read = Math.min(options.cache?.read ?? 0, total);
    const write = Math.min(options.cache?.write ?? 0, total - read);
    return { input_tokens: total - read - write, cache_read_input_tokens: read, cache_creation_input_tokens: write };
  };
  const handle = async (incoming: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = new URL(incoming.url ?? '/', 'http://127.0.0.1').pathname;
    const raw = await readBody(incoming);
    const key = incoming.headers['x-api-key'];
    if (options.apiKey !== undefined && key !== options.apiKey) {
      response.writeHead(401, { 'content-type': 'application/json' });
      const message = key === undefined ? 'x-api-key header is required' : 'invalid x-api-key';
      response.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message } }));
      return;
    }
    if (incoming.method === 'GET' && path === '/v1/models') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: (options.models ?? ['claude-scripted']).map((id) => ({ id, type: 'model' })), has_more: false }));
      return;
    }
    if (incoming.method !== 'POST' || path !== '/v1/messages') {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `No route for ${path}` } }));
      return;
    }
    const body = JSON.parse(raw) as AnthropicRequestBody;
    const recorded: RecordedAnthropicRequest = { path, headers: incoming.headers, body };
    requests.push(recorded);
    const number = requests.length;
    for (const problem of anthropicPairingViolations(body)) violations.push(`request ${number}: ${problem}`);
    if (!incoming.headers['anthropic-version']) violations.push(`request ${number}: no anthropic-version header`);
    const images = anthropicImages(body);
    if ('refusal' in images) {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: images.refusal } }));
      return;
    }
    imagesSeen.push(images.types);
    const marks = cacheBreakpoints(body).length;
    if (marks > 4) {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          type: 'error',
          error: { type: 'invalid_request_error', message: `A maximum of 4 blocks with cache_control may be provided. Found ${marks}.` },
        }),
      );
      return;
    }
    const thinkingProblems = thinkingViolations(body, signed);
    if (thinkingProblems.length > 0) {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: thinkingProblems.join('; ') } }));
      return;
    }
    const step = options.script[number - 1];
    if (step === undefined) {
      violations.push(`request ${number} arrived after the script ran out`);
      streamReply(response, { text: 'The script has ended.' }, body.model, usageFor(raw), signed);
      return;
    }
    const reply = typeof step === 'function' ? step(recorded) : step;
    if ('error' in reply) {
      response.writeHead(reply.error.status, { 'content-type': 'application/json', ...reply.error.headers });
      const type = reply.error.status === 401 ? 'authentication_error' : reply.error.status === 404 ? 'not_found_error' : 'api_error';
      response.end(JSON.stringify({ type: 'error', error: { type, message: reply.error.message } }));
      return;
    }
    streamReply(response, reply, body.model, usageFor(raw), signed);
  };
  const server = await listenOnLoopback(handle, violations);
  return {
    baseUrl: server.baseUrl,
    requests,
    violations,
    imagesSeen,
    close: server.close,
  };
}
