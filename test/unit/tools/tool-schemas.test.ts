// What the model reads of each built-in tool (issue 15 "keep a snapshot test of every tool's
// schema"): the JSON Schema of its parameters, as the providers send it, held in a checked-in
// snapshot so that any change to it is seen in review. Each parameter is explained once, in its
// schema, not again in the tool's description.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonSchemaForModel } from '../../../src/agent/provider';
import type { McpClients } from '../../../src/core/mcp';
import { ToolRegistry } from '../../../src/core/registry';
import { builtinToolRegistrations } from '../../../src/tools/index';
import { mcpReadTool, mcpResourcesTool } from '../../../src/tools/mcp_resources';
import { mcpToolsTool } from '../../../src/tools/mcp_tools';

const snapshotPath = join(__dirname, 'tool-schemas.snapshot.json');
const UPDATE_COMMAND = 'UPDATE_SNAPSHOTS=1 node --import tsx --test test/unit/tools/tool-schemas.test.ts';

// The tools the runtime adds when MCP servers are configured (issue 11); only their schemas are read here.
const noServers: McpClients = {
  servers: () => [],
  tools: () => Promise.resolve([]),
  callTool: () => Promise.reject(new Error('not called')),
  listResources: () => Promise.resolve([]),
  readResource: () => Promise.resolve([]),
  status: (server) => ({ server, state: 'stopped' }),
  restart: () => Promise.resolve(),
  close: () => Promise.resolve(),
};
const mcpTools = [mcpResourcesTool(noServers), mcpReadTool(noServers), mcpToolsTool(() => new ToolRegistry([]))];

const tools = [...builtinToolRegistrations().map(({ tool }) => tool), ...mcpTools];

function currentSchemas(): Record<string, unknown> {
  return Object.fromEntries(tools.map((tool) => [tool.name, jsonSchemaForModel(tool.inputSchema)]));
}

test(`issue 15: every built-in tool's parameter schema, and the MCP tools' (issue 11), equals the checked-in snapshot`, () => {
  const current = `${JSON.stringify(currentSchemas(), null, 2)}\n`;
  if (process.env.UPDATE_SNAPSHOTS === '1') writeFileSync(snapshotPath, current);
  assert.ok(existsSync(snapshotPath), `No snapshot at ${snapshotPath}. Create it with: ${UPDATE_COMMAND}`);
  const snapshot = readFileSync(snapshotPath, 'utf8');
  assert.ok(
    current === snapshot,
    `A tool's schema (what the model reads) differs from ${snapshotPath}. If the change is intended, update the snapshot with\n  ${UPDATE_COMMAND}\nand review its diff.`,
  );
});

test('issue 15: no schema carries the safe-integer bounds z.int() adds, which tell a model nothing', () => {
  const text = JSON.stringify(currentSchemas());
  assert.ok(!text.includes(String(Number.MAX_SAFE_INTEGER)) && !text.includes(String(Number.MIN_SAFE_INTEGER)));
});

test('issue 15: every parameter is described in its schema, and not again in the tool description', () => {
  for (const tool of tools) {
    const properties = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
    for (const [name, property] of Object.entries(properties)) {
      assert.ok(property.description, `${tool.name}.${name} has no description in its schema`);
      assert.ok(
        !new RegExp(`^- \`?${name}\`?:`, 'm').test(tool.description),
        `${tool.name}'s description explains "${name}" again; keep it in the schema only`,
      );
    }
  }
});
