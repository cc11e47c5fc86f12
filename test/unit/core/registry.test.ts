import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { ToolRegistry, type ToolRegistration, type ToolSource } from '../../../src/core/registry';
import { defineTool, type Tool } from '../../../src/core/tool';
import { testEnvironment } from './fixtures';

const tool = (name: string, unavailableReason?: () => string | undefined): Tool =>
  defineTool({
    name,
    description: `the ${name} tool`,
    parameters: z.object({}),
    ...(unavailableReason ? { unavailableReason } : {}),
    run: async () => ({ output: name }),
  });

const registrations: ToolRegistration[] = [
  { tool: tool('read'), defaultSurface: true },
  { tool: tool('write'), defaultSurface: true },
  { tool: tool('webfetch'), defaultSurface: true },
  { tool: tool('edit'), defaultSurface: false },
  { tool: tool('question', () => 'no person can answer here'), defaultSurface: true },
];
const names = (tools: readonly Tool[]): string[] => tools.map((entry) => entry.name);

test('S1/S3: the default surface holds the surface tools in registration order, not the slots', () => {
  const registry = new ToolRegistry(registrations);
  const env = testEnvironment();
  assert.deepEqual(names(registry.surface(env)), ['read', 'write', 'webfetch']);
  assert.equal(registry.get('edit')?.name, 'edit', 'a slot is still registered');
  const slot = registry.availability('edit', env);
  assert.equal(slot.available, false);
  assert.match(slot.available ? '' : slot.reason, /registered slot that is not on the default tool surface/);
});

test('A1: config.tools switches a tool off, and the reason names the key', () => {
  const registry = new ToolRegistry(registrations);
  const env = testEnvironment({ tools: { webfetch: false, read: true } });
  assert.deepEqual(names(registry.surface(env)), ['read', 'write']);
  const availability = registry.availability('webfetch', env);
  assert.deepEqual(availability, { available: false, reason: '"webfetch" is switched off in config (tools.webfetch = false).' });
});

test('A1: an agent allowlist replaces the default surface instead of extending it, slots included', () => {
  const registry = new ToolRegistry(registrations);
  const env = testEnvironment();
  assert.deepEqual(names(registry.surface(env, ['edit', 'read'])), ['read', 'edit'], 'registration order, and the slot is reachable');
  const outside = registry.availability('write', env, ['edit', 'read']);
  assert.match(outside.available ? '' : outside.reason, /not in this agent's tool allowlist/);
  assert.deepEqual(names(registry.surface(env, [])), []);
});

test('A1: the on/off switch still applies under an allowlist', () => {
  const registry = new ToolRegistry(registrations);
  const env = testEnvironment({ tools: { edit: false } });
  assert.deepEqual(names(registry.surface(env, ['edit', 'read'])), ['read']);
});

test('S2: a tool unavailable here is left off the surface, with its own reason', () => {
  const registry = new ToolRegistry(registrations);
  const env = testEnvironment();
  const availability = registry.availability('question', env);
  assert.deepEqual(availability, { available: false, reason: '"question" is not available here: no person can answer here' });
});

test('A1: an unknown name is unavailable, and the reason lists what can be called', () => {
  const registry = new ToolRegistry(registrations);
  const availability = registry.availability('delete_everything', testEnvironment());
  assert.match(availability.available ? '' : availability.reason, /no tool named "delete_everything".*read, write, webfetch/);
});

test('A1: an availability check that throws makes the tool unavailable instead of crashing', () => {
  const registry = new ToolRegistry([
    {
      tool: tool('flaky', () => {
        throw new Error('probe failed');
      }),
      defaultSurface: true,
    },
  ]);
  const env = testEnvironment();
  assert.deepEqual(registry.surface(env), []);
  assert.match(JSON.stringify(registry.availability('flaky', env)), /probe failed/);
});

test('S1: two tools with one name are refused at construction', () => {
  assert.throws(() => new ToolRegistry([registrations[0]!, registrations[0]!]), /Two tools are registered under the name "read"/);
});

test("issue 11: a source's tools join the default surface after prepare, withheld ones are known but unavailable, and asSlots keeps the source", async () => {
  let offered: Tool[] = [];
  const source: ToolSource = {
    async prepare() {
      offered = [tool('mcp__s__ok'), tool('mcp__s__changed', () => 'definition changed since it was approved')];
    },
    tools: () => offered,
  };
  const registry = new ToolRegistry(registrations, [source]);
  const env = testEnvironment();
  assert.deepEqual(names(registry.surface(env)), ['read', 'write', 'webfetch'], 'nothing before prepare');
  await registry.prepare(new AbortController().signal, () => undefined);
  assert.deepEqual(names(registry.surface(env)), ['read', 'write', 'webfetch', 'mcp__s__ok']);
  const withheld = registry.availability('mcp__s__changed', env);
  assert.equal(withheld.available, false);
  assert.match(withheld.available ? '' : withheld.reason, /"mcp__s__changed" is not available here: definition changed/);
  assert.equal(
    registry.availability('mcp__s__ok', testEnvironment({ tools: { mcp__s__ok: false } })).available,
    false,
    'the tools switch covers MCP tools (A1)',
  );
  const slots = registry.asSlots();
  assert.equal(slots.availability('read', env).available, false, 'static tools become slots');
  assert.equal(slots.availability('mcp__s__ok', env, ['mcp__s__ok']).available, true, "an allowlist reaches the source's tools");
});
