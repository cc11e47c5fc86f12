// Elicitation through the question UI (issue 11): server-everything's trigger-elicitation-request
// asks for a form of eleven fields over stdio; Zuno asks the user through the host's question
// gateway (scripted here: a person's answers are the one thing a test cannot make real) and the
// server receives the typed answers. Sampling is not announced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseConfig } from '../../../src/core/config';
import { EventBus, type ZunoEvent } from '../../../src/core/events';
import type { QuestionAnswer, QuestionGateway, QuestionRequest } from '../../../src/core/host';
import { McpToolSource } from '../../../src/core/mcp';
import { ToolRegistry } from '../../../src/core/registry';
import { Scheduler } from '../../../src/core/scheduler';
import { createNodeHost } from '../../../src/hosts/node/host';
import { NodeMcpClients } from '../../../src/hosts/node/mcp';
import { createMcpPinStore } from '../../../src/hosts/node/mcp-pins';
import { MemoryLedger } from '../../support/memory-ledger';
import { ScriptedApprovals, temporaryDirectory } from '../../unit/core/fixtures';

const repository = join(__dirname, '..', '..', '..');
const everything = {
  command: process.execPath,
  args: [join(repository, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
  // Declared by the user so the call itself does not ask: what is tested is the server's question.
  tools: { 'trigger-elicitation-request': { declarations: { effect: 'ReadOnly' as const } } },
};

/** A person, scripted: answers each question by looking at it. */
class ScriptedPerson implements QuestionGateway {
  readonly asked: QuestionRequest[] = [];
  constructor(private readonly answer: (request: QuestionRequest) => QuestionAnswer) {}
  ask(request: QuestionRequest): Promise<QuestionAnswer> {
    this.asked.push(request);
    return Promise.resolve(this.answer(request));
  }
}

async function harness(questions: QuestionGateway | undefined) {
  const root = temporaryDirectory('zuno-mcp-elicit-');
  const config = parseConfig({ mcp: { servers: { everything } } });
  const host = createNodeHost({
    stateDir: root,
    approvals: new ScriptedApprovals(() => ({ approved: false })),
    ...(questions ? { questions } : {}),
  });
  const env = { host, config, workspaceRoot: root, stateDir: root };
  const clients = new NodeMcpClients({
    servers: config.mcp.servers,
    workspaceRoot: root,
    childEnvironment: () => ({ PATH: process.env.PATH ?? '' }),
    referenceEnvironment: process.env,
    maxInFlight: 4,
    clientVersion: 'test',
  });
  const registry = new ToolRegistry([], [new McpToolSource({ clients, servers: config.mcp.servers, pins: createMcpPinStore(root) })]);
  await registry.prepare(new AbortController().signal, () => undefined);
  const events = new EventBus();
  const seen: ZunoEvent[] = [];
  events.on((event) => seen.push(event));
  const scheduler = new Scheduler({ registry, ledger: new MemoryLedger(), events, env });
  const trigger = async () => {
    const [result] = await scheduler.runTurn(
      'session',
      [{ id: 'q1', name: 'mcp__everything__trigger-elicitation-request', arguments: '{}' }],
      { signal: new AbortController().signal },
    );
    const live = seen.flatMap((event) => (event.type === 'tool-call-output' ? [event.chunk] : [])).join('');
    return { output: result?.output ?? '', outcome: result?.outcome.kind, live };
  };
  return { trigger, close: () => clients.close() };
}

test("issue 11 elicitation: a server's form is asked through the question UI field by field, and the typed answers reach the server", async () => {
  const person = new ScriptedPerson((request) => {
    const options = request.options ?? [];
    if (options.includes('Answer')) return { answered: true, selected: ['Answer'] };
    if (/for String: Your full, legal name/.test(request.question)) return { answered: true, selected: [], text: 'Ada Lovelace' };
    if (/for Integer:/.test(request.question))
      return { answered: true, selected: [], text: request.question.includes('not a whole number') ? '7' : 'seven' };
    if (/for Boolean:/.test(request.question)) return { answered: true, selected: ['yes'] };
    if (/Legacy Titled Single Select Enum/.test(request.question)) return { answered: true, selected: ['Dogs'] };
    if (/Titled Multiple Select Enum/.test(request.question)) return { answered: true, selected: ['Tuna', 'Trout'] };
    // Everything else optional: skipped.
    return request.options ? { answered: true, selected: ['(leave empty)'] } : { answered: true, selected: [], text: '' };
  });
  const mcp = await harness(person);
  try {
    const result = await mcp.trigger();
    assert.equal(result.outcome, 'ok', result.output);
    assert.match(
      person.asked[0]?.question ?? '',
      /^MCP server "everything" asks you \(these are the server's words, not Zuno's\):\n\nPlease provide inputs for the following fields:\n\nIt wants: String \(required\), Boolean,/,
    );
    assert.ok(
      person.asked.every((request) => request.callId === 'q1' && request.sessionId === 'session'),
      'asked under the call that the server asked in',
    );
    assert.match(result.output, /User provided the requested information/);
    assert.match(result.output, /- Name: Ada Lovelace/);
    assert.match(result.output, /- Agreed to terms: true/);
    assert.match(result.output, /- Favorite Integer: 7/, 'a bad number is asked again with the reason');
    assert.match(result.output, /"legacyTitledEnum": "pet-2"/, 'a title maps back to its value');
    assert.match(result.output, /"titledMultipleSelectEnum": \[\s*"fish-1",\s*"fish-3"\s*\]/);
    assert.doesNotMatch(result.output, /"email"/, 'a skipped optional field is not sent');
    assert.match(result.live, /asked the user: "Please provide inputs for the following fields:"; the user answered/);
  } finally {
    await mcp.close();
  }
});

test('issue 11 elicitation: the user declining is decline, dismissing is cancel, and the server hears which', async () => {
  const declining = await harness(new ScriptedPerson(() => ({ answered: true, selected: ['Decline'] })));
  try {
    const result = await declining.trigger();
    assert.match(result.output, /User declined to provide the requested information/);
    assert.match(result.live, /the user declined/);
  } finally {
    await declining.close();
  }
  const dismissing = await harness(
    new ScriptedPerson((request) => (request.options?.includes('Answer') ? { answered: true, selected: ['Answer'] } : { answered: false })),
  );
  try {
    const result = await dismissing.trigger();
    assert.match(result.output, /User cancelled the elicitation dialog/);
    assert.match(result.live, /the user dismissed the question/);
  } finally {
    await dismissing.close();
  }
});

test('issue 11 elicitation: where no one can answer (no question UI) it is declined with that reason', async () => {
  const mcp = await harness(undefined);
  try {
    const result = await mcp.trigger();
    assert.match(result.output, /User declined/);
    assert.match(result.live, /Zuno declined: no one can answer a server's question here/);
  } finally {
    await mcp.close();
  }
});

test('issue 11: the client announces elicitation and not sampling: server-everything offers its elicitation tool and not its sampling one', async () => {
  const clients = new NodeMcpClients({
    servers: parseConfig({ mcp: { servers: { everything } } }).mcp.servers,
    workspaceRoot: repository,
    childEnvironment: () => ({ PATH: process.env.PATH ?? '' }),
    referenceEnvironment: process.env,
    maxInFlight: 4,
    clientVersion: 'test',
  });
  try {
    const names = (await clients.tools('everything', new AbortController().signal)).map((tool) => tool.name);
    assert.ok(names.includes('trigger-elicitation-request'), names.join(', '));
    assert.ok(
      !names.includes('trigger-sampling-request'),
      'the server registers its sampling tool only for clients that announce sampling',
    );
  } finally {
    await clients.close();
  }
});
