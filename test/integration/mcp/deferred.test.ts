// Deferred MCP tools (issue 11, "Many tools"): beyond the budget of mcp.max_offered_tools and
// mcp.max_offered_schema_tokens, MCP tools are not sent with every request; mcp_tools finds them
// and enables them for the session. Real scheduler, real scripted stdio server with 80 tools.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ZunoConfigInput } from '../../../src/core/config';
import { EventBus } from '../../../src/core/events';
import { McpToolSource } from '../../../src/core/mcp';
import { ToolRegistry } from '../../../src/core/registry';
import { Scheduler, type ToolCallRequest } from '../../../src/core/scheduler';
import { NodeMcpClients } from '../../../src/hosts/node/mcp';
import { createMcpPinStore } from '../../../src/hosts/node/mcp-pins';
import { mcpToolsTool } from '../../../src/tools/mcp_tools';
import { readTool } from '../../../src/tools/read';
import { MemoryLedger } from '../../support/memory-ledger';
import { ScriptedApprovals, temporaryDirectory, testEnvironment } from '../../unit/core/fixtures';

const scriptedServer = join(__dirname, '..', '..', 'support', 'scripted-mcp-server.mjs');

/** `count` tools named tool_00…; tool_42 is the one a model would look for. */
function manyTools(count: number, descriptionLength = 40): unknown[] {
  return Array.from({ length: count }, (_, index) => {
    const name = `tool_${String(index).padStart(2, '0')}`;
    const description =
      index === 42 ? 'Create a calendar invitation for a meeting.' : `Does chore number ${index}. `.padEnd(descriptionLength, '.');
    return { name, description, inputSchema: { type: 'object', properties: { note: { type: 'string' } } } };
  });
}

async function harness(
  tools: readonly unknown[],
  config: ZunoConfigInput['mcp'] & object,
  approvals = new ScriptedApprovals(() => ({ approved: false, reason: 'test denies' })),
) {
  const folder = temporaryDirectory('zuno-mcp-deferred-');
  const toolsFile = join(folder, 'tools.json');
  writeFileSync(toolsFile, JSON.stringify(tools));
  const server = { command: process.execPath, args: [scriptedServer], env: { SCRIPTED_MCP_TOOLS: toolsFile } };
  const env = testEnvironment({ mcp: { ...config, servers: { many: server } } }, approvals);
  const clients = new NodeMcpClients({
    servers: env.config.mcp.servers,
    workspaceRoot: env.workspaceRoot,
    childEnvironment: () => ({ PATH: process.env.PATH ?? '' }),
    referenceEnvironment: process.env,
    maxInFlight: 4,
    clientVersion: 'test',
  });
  const registry: ToolRegistry = new ToolRegistry(
    [
      { tool: readTool, defaultSurface: true },
      { tool: mcpToolsTool((): ToolRegistry => registry), defaultSurface: true },
    ],
    [new McpToolSource({ clients, servers: env.config.mcp.servers, pins: createMcpPinStore(env.stateDir) })],
  );
  await registry.prepare(new AbortController().signal, () => undefined);
  const scheduler = new Scheduler({ registry, ledger: new MemoryLedger(), events: new EventBus(), env });
  const run = (session: string, calls: readonly ToolCallRequest[]) =>
    scheduler.runTurn(session, calls, { signal: new AbortController().signal });
  return { env, registry, run, approvals, close: () => clients.close() };
}

const call = (id: string, name: string, args: unknown): ToolCallRequest => ({ id, name, arguments: JSON.stringify(args) });
const names = (tools: readonly { name: string }[]): string[] => tools.map((tool) => tool.name);

test('issue 11 many tools: beyond mcp.max_offered_tools the later MCP tools are deferred, and mcp_tools says how many and from where', async () => {
  const mcp = await harness(manyTools(80), { max_offered_tools: 12 });
  try {
    const { sent, deferred } = mcp.registry.offered(mcp.env, 'session');
    assert.equal(sent.length, 12, `sent: ${names(sent).join(', ')}`);
    assert.deepEqual(names(sent).slice(0, 2), ['read', 'mcp_tools'], 'static tools are always sent');
    assert.deepEqual(
      names(sent).slice(2),
      Array.from({ length: 10 }, (_, index) => `mcp__many__tool_0${index}`),
      'MCP tools fill the budget in order',
    );
    assert.equal(deferred.length, 70);
    const search = sent.find((tool) => tool.name === 'mcp_tools');
    assert.match(search?.description ?? '', /Not listed now: 70 MCP tools \(many: 70\)/);
    // Every tool stays available: deferral decides what is sent, not what may run.
    assert.equal(mcp.registry.surface(mcp.env).length, 82);
  } finally {
    await mcp.close();
  }
});

test('issue 11 many tools: under the budget nothing is deferred and the search tool says nothing more', async () => {
  const mcp = await harness(manyTools(5), {});
  try {
    const { sent, deferred } = mcp.registry.offered(mcp.env, 'session');
    assert.equal(deferred.length, 0);
    assert.equal(sent.length, 7);
    assert.doesNotMatch(sent.find((tool) => tool.name === 'mcp_tools')?.description ?? '', /Not listed now/);
  } finally {
    await mcp.close();
  }
});

test('issue 11 many tools: the schema-token budget defers tools even under the count', async () => {
  // 30 tools of about 1,000 characters each: some 8,000 tokens, over a 3,000-token budget.
  const mcp = await harness(manyTools(30, 1000), { max_offered_schema_tokens: 3000 });
  try {
    const { sent, deferred } = mcp.registry.offered(mcp.env, 'session');
    assert.ok(deferred.length > 0, 'some tools are deferred');
    const sentTokens = sent.reduce(
      (sum, tool) => sum + JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }).length / 4,
      0,
    );
    assert.ok(sentTokens <= 3000 + 200, `what is sent stays within the token budget (${Math.round(sentTokens)})`);
  } finally {
    await mcp.close();
  }
});

test('issue 11 many tools: mcp_tools (ReadOnly, no prompt) finds a deferred tool by its words and enables it for that session only', async () => {
  const mcp = await harness(manyTools(80), { max_offered_tools: 12 });
  try {
    const [result] = await mcp.run('session', [call('1', 'mcp_tools', { query: 'calendar invitation meeting', limit: 1 })]);
    assert.equal(result?.outcome.kind, 'ok', result?.output);
    assert.equal(mcp.approvals.requests.length, 0, 'searching asks nothing');
    assert.match(result?.output ?? '', /^mcp__many__tool_42 \(enabled now, callable from your next step\): Create a calendar invitation/);
    assert.match(result?.output ?? '', /parameters: \{"type":"object","properties":\{"note"/, 'the model reads the schema');
    const after = mcp.registry.offered(mcp.env, 'session');
    assert.ok(names(after.sent).includes('mcp__many__tool_42'), 'sent from the next request on');
    assert.equal(after.deferred.length, 69);
    assert.deepEqual(
      names(after.sent).slice(0, 12),
      names(mcp.registry.offered(mcp.env, 'other').sent),
      'enabling adds on top and pushes nothing out',
    );
    assert.ok(!names(mcp.registry.offered(mcp.env, 'other').sent).includes('mcp__many__tool_42'), 'another session is not affected');
    // A child agent's view (registry.asSlots with an allowlist) shares the rules: its own session, its own enabling.
    const child = mcp.registry.asSlots();
    const allowlist = names(mcp.registry.surface(mcp.env));
    assert.ok(!names(child.offered(mcp.env, 'child', allowlist).sent).includes('mcp__many__tool_42'));
    assert.ok(names(child.offered(mcp.env, 'session', allowlist).sent).includes('mcp__many__tool_42'));
  } finally {
    await mcp.close();
  }
});

test('issue 11 many tools: an exact name finds its tool; a query matching nothing says so and enables nothing', async () => {
  const mcp = await harness(manyTools(80), { max_offered_tools: 12 });
  try {
    const [found] = await mcp.run('session', [call('1', 'mcp_tools', { query: 'tool_77' })]);
    assert.match(found?.output ?? '', /^mcp__many__tool_77 \(enabled now/);
    assert.equal(found?.output.split('\n').filter((line) => line.startsWith('mcp__')).length, 1, 'an exact name matches one tool');
    const [none] = await mcp.run('session', [call('2', 'mcp_tools', { query: 'zebra xylophone' })]);
    assert.equal(none?.outcome.kind, 'ok');
    assert.match(none?.output ?? '', /No MCP tool matches "zebra xylophone" \(80 MCP tools available\)/);
    assert.equal(mcp.registry.offered(mcp.env, 'session').deferred.length, 69);
  } finally {
    await mcp.close();
  }
});

test('issue 11 many tools, E2: an enabled deferred tool of an untrusted server still asks, and a denial is blocked: denied', async () => {
  const mcp = await harness(manyTools(80), { max_offered_tools: 12 });
  try {
    await mcp.run('session', [call('1', 'mcp_tools', { query: 'tool_50' })]);
    const [result] = await mcp.run('session', [call('2', 'mcp__many__tool_50', { note: 'x' })]);
    assert.deepEqual(result?.outcome, { kind: 'blocked', category: 'denied' });
    assert.equal(mcp.approvals.requests.length, 1);
    assert.deepEqual(mcp.approvals.requests[0]?.declarations, { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' });
  } finally {
    await mcp.close();
  }
});

test('issue 11: config: the tool budget is bounded and named when out of range', async () => {
  const { parseConfig } = await import('../../../src/core/config');
  assert.equal(parseConfig({}).mcp.max_offered_tools, 64);
  assert.throws(() => parseConfig({ mcp: { max_offered_tools: 0 } }), /mcp\.max_offered_tools/);
});
