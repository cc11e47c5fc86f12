// council_run (SPEC S2, E1 Delegating) over a real ModelCouncil and a scripted OpenAI server on
// 127.0.0.1, run through the scheduler as the agent runs it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { ModelCouncil } from '../../../src/agent/council';
import { modelSource } from '../../../src/agent/delegation';
import { OpenAIProvider } from '../../../src/agent/openai';
import { parseConfig, type ZunoConfigInput } from '../../../src/core/config';
import { EventBus } from '../../../src/core/events';
import type { ApprovalRequest } from '../../../src/core/host';
import { ToolRegistry } from '../../../src/core/registry';
import { Scheduler } from '../../../src/core/scheduler';
import type { CallEnvironment } from '../../../src/core/tool';
import { createNodeHost } from '../../../src/hosts/node/host';
import { councilRunTool } from '../../../src/tools/council_run';
import { builtinToolRegistrations } from '../../../src/tools/index';
import { MemoryLedger } from '../../support/memory-ledger';
import { startScriptedOpenAI, type RecordedRequest, type ScriptedReply, type ScriptedOpenAIServer } from '../../support/scripted-openai';
import { approveEverything, makeTempDir, removeDir } from '../../support/tool-context';

const workspace = makeTempDir('zuno-council-');
const servers: ScriptedOpenAIServer[] = [];
after(async () => {
  for (const server of servers) await server.close();
  removeDir(workspace);
});

const MEMBERS = [
  { name: 'critic', persona: 'You look for flaws.' },
  { name: 'second', model: 'model-b' },
];

async function environment(
  config: ZunoConfigInput,
  script: (request: RecordedRequest) => ScriptedReply,
  approvals: ApprovalRequest[] = [],
): Promise<CallEnvironment> {
  const server = await startScriptedOpenAI({ script });
  servers.push(server);
  const provider = (model: string): OpenAIProvider =>
    new OpenAIProvider({
      baseUrl: server.baseUrl,
      model,
      apiKey: { key: undefined, envVar: undefined },
      retry: { attempts: 1, baseDelayMs: 1 },
    });
  const parsed = parseConfig(config);
  const host = createNodeHost({
    stateDir: workspace,
    approvals: { request: async (request) => (approvals.push(request), { approved: true }) },
  });
  const council = new ModelCouncil({
    members: parsed.council.members,
    models: modelSource(provider('session-model'), provider),
    concurrency: parsed.concurrency.delegations,
  });
  return { host, config: parsed, workspaceRoot: workspace, council };
}

const systemOf = (request: RecordedRequest): string => request.body?.messages.find((message) => message.role === 'system')?.content ?? '';

test('S2: council_run is offered only when council.members is configured; otherwise its reason says how to configure one', async () => {
  const registry = new ToolRegistry(builtinToolRegistrations());
  const host = createNodeHost({ stateDir: workspace, approvals: approveEverything });
  const none: CallEnvironment = { host, config: parseConfig({}), workspaceRoot: workspace };
  assert.ok(!registry.surface(none).some((tool) => tool.name === 'council_run'));
  const availability = registry.availability('council_run', none);
  assert.equal(availability.available, false);
  if (!availability.available)
    assert.match(availability.reason, /No council is configured\. The user can add members to "council\.members" in \.zuno\/config\.json/);

  const configuredButUnwired: CallEnvironment = { ...none, config: parseConfig({ council: { members: MEMBERS } }) };
  assert.match(councilRunTool.unavailableReason(configuredButUnwired) ?? '', /cannot be reached from here/);
  const wired = await environment({ council: { members: MEMBERS } }, () => ({ text: 'x' }));
  assert.ok(registry.surface(wired).some((tool) => tool.name === 'council_run'));
});

test("E1: council_run is Delegating (asked in strict mode), Never, ParallelSafe; it returns each member's answer, named, and the synthesis", async () => {
  assert.deepEqual(councilRunTool.declarationsFor({ question: 'q' }), {
    effect: 'Delegating',
    replay: 'Never',
    concurrency: 'ParallelSafe',
  });
  const approvals: ApprovalRequest[] = [];
  const env = await environment(
    { council: { members: [...MEMBERS, { name: 'gone', model: 'model-gone' }] } },
    (request) => {
      if (systemOf(request).startsWith('You combine')) return { text: 'Rewrite it, carefully.' };
      if (request.body?.model === 'model-gone') return { error: { status: 404, message: 'model-gone is not here' } };
      return { text: systemOf(request).includes('You look for flaws.') ? 'Risky: no tests.' : `${request.body?.model ?? ''}: go ahead.` };
    },
    approvals,
  );
  const scheduler = new Scheduler({
    registry: new ToolRegistry([{ tool: councilRunTool, defaultSurface: true }]),
    ledger: new MemoryLedger(),
    events: new EventBus(),
    env,
  });
  const [result] = await scheduler.runTurn(
    's',
    [{ id: 'c1', name: 'council_run', arguments: JSON.stringify({ question: 'Rewrite the parser?' }) }],
    { signal: new AbortController().signal },
  );
  assert.equal(result?.outcome.kind, 'ok');
  assert.deepEqual(
    approvals.map((request) => request.tool),
    ['council_run'],
  );
  assert.equal(
    result?.output.replace(/FAILED: .*/, 'FAILED: …'),
    [
      'The council answered: 2 of 3 members.',
      '',
      '## critic',
      'Risky: no tests.',
      '',
      '## second (model-b)',
      'model-b: go ahead.',
      '',
      '## gone (model-gone)',
      'FAILED: …',
      '',
      '## Synthesis',
      'Rewrite it, carefully.',
    ].join('\n'),
  );
  assert.match(result?.output ?? '', /FAILED: .*model-gone is not here/);
});

test('S2: when every member fails, council_run is an error that says to decide without it', async () => {
  const env = await environment({ council: { members: MEMBERS } }, () => ({ error: { status: 400, message: 'refused' } }));
  const scheduler = new Scheduler({
    registry: new ToolRegistry([{ tool: councilRunTool, defaultSurface: true }]),
    ledger: new MemoryLedger(),
    events: new EventBus(),
    env: { ...env, config: parseConfig({ council: { members: MEMBERS }, permission: { mode: 'auto' } }) },
  });
  const [result] = await scheduler.runTurn('s', [{ id: 'c1', name: 'council_run', arguments: JSON.stringify({ question: 'Q?' }) }], {
    signal: new AbortController().signal,
  });
  assert.equal(result?.outcome.kind, 'error');
  assert.match(result?.output ?? '', /^The council answered: 0 of 2 members\. Every member failed, so there is no advice; decide yourself/);
});

test('S2 bad input: the question must be non-empty text', () => {
  assert.equal(councilRunTool.parse({ question: '  ' }).success, false);
  assert.equal(councilRunTool.parse({}).success, false);
  assert.equal(councilRunTool.parse({ question: 'ok', members: ['a'] }).success, false);
});
