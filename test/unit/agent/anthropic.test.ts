// The Anthropic Messages provider against a scripted 127.0.0.1 server (SPEC §9 "Models").
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { AnthropicProvider, ANTHROPIC_VERSION } from '../../../src/agent/anthropic';
import { ProviderError, type ApiKeySource, type ModelRequest } from '../../../src/agent/provider';
import type { TranscriptMessage } from '../../../src/core/transcript';
import { startScriptedAnthropic, type ScriptedAnthropicServer } from '../../support/scripted-anthropic';

const servers: ScriptedAnthropicServer[] = [];
after(async () => {
  for (const server of servers) await server.close();
});

function provider(
  baseUrl: string,
  apiKey: ApiKeySource = { key: 'sk-ant-test', envVar: 'ANTHROPIC_API_KEY' },
  model = 'claude-scripted',
): AnthropicProvider {
  return new AnthropicProvider({ baseUrl, model, apiKey, retry: { attempts: 2, baseDelayMs: 1 } });
}

const tools = [
  { name: 'read', description: 'Read a file.', inputSchema: { $schema: 'x', type: 'object', properties: { path: { type: 'string' } } } },
];

function request(messages: readonly TranscriptMessage[]): ModelRequest {
  return { system: 'You are a test.', messages, tools, signal: new AbortController().signal };
}

test('§9 models: Anthropic text_delta and input_json_delta events become text and tool calls', async () => {
  const server = await startScriptedAnthropic({
    script: [
      {
        text: 'Reading two files.',
        toolCalls: [
          { id: 'toolu_1', name: 'read', arguments: { path: 'a.txt' } },
          { id: 'toolu_2', name: 'read', arguments: { path: 'b.txt' } },
        ],
      },
    ],
  });
  servers.push(server);
  const deltas: string[] = [];
  const answer = await provider(server.baseUrl).stream(request([{ role: 'user', content: 'go' }]), (text) => deltas.push(text));
  assert.equal(answer.text, 'Reading two files.');
  assert.ok(deltas.length > 1);
  assert.deepEqual(answer.toolCalls, [
    { id: 'toolu_1', name: 'read', arguments: '{"path":"a.txt"}' },
    { id: 'toolu_2', name: 'read', arguments: '{"path":"b.txt"}' },
  ]);
  assert.equal(answer.stopReason, 'tool_calls');
  const recorded = server.requests[0];
  assert.equal(recorded?.headers['x-api-key'], 'sk-ant-test');
  assert.equal(recorded?.headers['anthropic-version'], ANTHROPIC_VERSION);
  assert.deepEqual(recorded?.body.system, [{ type: 'text', text: 'You are a test.', cache_control: { type: 'ephemeral' } }]);
  assert.equal(recorded?.body.stream, true);
  assert.ok((recorded?.body.max_tokens ?? 0) > 0);
  assert.deepEqual(recorded?.body.tools, [
    {
      name: 'read',
      description: 'Read a file.',
      input_schema: { type: 'object', properties: { path: { type: 'string' } } },
      cache_control: { type: 'ephemeral' },
    },
  ]);
  assert.deepEqual(server.violations, []);
});

test('§9 models: Anthropic tool results go back as tool_result blocks, in call order, first in the next user turn', async () => {
  const server = await startScriptedAnthropic({ script: [{ text: 'All read.' }] });
  servers.push(server);
  const transcript: TranscriptMessage[] = [
    { role: 'user', content: 'read both' },
    {
      role: 'assistant',
      content: 'On it.',
      toolCalls: [
        { id: 't1', name: 'read', arguments: '{"path":"a"}' },
        { id: 't2', name: 'read', arguments: 'not json' },
      ],
    },
    { role: 'tool', callId: 't1', toolName: 'read', content: 'A' },
    { role: 'tool', callId: 't2', toolName: 'read', content: '' },
    { role: 'user', content: 'RECOVERY NOTICE: …' },
    { role: 'system', content: 'Extra rule.' },
  ];
  const answer = await provider(server.baseUrl).stream(request(transcript), () => undefined);
  assert.equal(answer.stopReason, 'end');
  const body = server.requests[0]?.body;
  assert.deepEqual(body?.system, [{ type: 'text', text: 'You are a test.\n\nExtra rule.', cache_control: { type: 'ephemeral' } }]);
  assert.deepEqual(body?.messages.slice(1), [
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'On it.' },
        { type: 'tool_use', id: 't1', name: 'read', input: { path: 'a' } },
        // Malformed arguments cannot be sent back as input; an empty object stands in.
        { type: 'tool_use', id: 't2', name: 'read', input: {} },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 't1', content: 'A' },
        { type: 'tool_result', tool_use_id: 't2', content: '(no output)' },
        // The last user turn carries a cache breakpoint (issue 10 item 5).
        { type: 'text', text: 'RECOVERY NOTICE: …', cache_control: { type: 'ephemeral' } },
      ],
    },
  ]);
  assert.deepEqual(server.violations, []);
});

test('§9 models: Anthropic 401 names the key variable; an unknown model lists the available ones', async () => {
  const server = await startScriptedAnthropic({
    script: [{ error: { status: 401, message: 'invalid x-api-key' } }, { error: { status: 404, message: 'model: claude-nope' } }],
    models: ['claude-sonnet-4-5', 'claude-haiku-4-5'],
  });
  servers.push(server);
  const unauthorized = await provider(server.baseUrl, { key: 'wrong', envVar: 'ANTHROPIC_API_KEY' })
    .stream(request([{ role: 'user', content: 'hi' }]), () => undefined)
    .catch((failure: unknown) => failure);
  assert.ok(unauthorized instanceof ProviderError);
  assert.match(unauthorized.message, /HTTP 401: invalid x-api-key\)\. Check the key in the environment variable ANTHROPIC_API_KEY\./);

  const unknown = await provider(server.baseUrl, undefined, 'claude-nope')
    .stream(request([{ role: 'user', content: 'hi' }]), () => undefined)
    .catch((failure: unknown) => failure);
  assert.ok(unknown instanceof ProviderError);
  assert.match(unknown.message, /The model "claude-nope" is not available .* Available models: claude-sonnet-4-5, claude-haiku-4-5\./);
});

test('issue 10 item 1: usage comes from message_start and message_delta; cache reads and writes count as input and are reported apart', async () => {
  const server = await startScriptedAnthropic({ script: [{ text: 'A cached answer.' }], cache: { read: 40, write: 10 } });
  servers.push(server);
  const answer = await provider(server.baseUrl).stream(request([{ role: 'user', content: 'hi' }]), () => undefined);
  const total = Math.ceil(JSON.stringify(server.requests[0]?.body).length / 4);
  assert.deepEqual(answer.usage, {
    inputTokens: total,
    outputTokens: Math.ceil('A cached answer.'.length / 4),
    cachedTokens: 40,
    cacheWriteTokens: 10,
  });
  assert.deepEqual(server.violations, []);
});
