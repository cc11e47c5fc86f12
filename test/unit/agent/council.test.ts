// The council (SPEC S2 council_run) against a scripted OpenAI server on 127.0.0.1: members are told
// apart by the model they ask for and by their persona, and the synthesis by its system prompt.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { ModelCouncil } from '../../../src/agent/council';
import { modelSource, type ModelSource } from '../../../src/agent/delegation';
import { OpenAIProvider } from '../../../src/agent/openai';
import { ToolError } from '../../../src/core/errors';
import { startScriptedOpenAI, type RecordedRequest, type ScriptedReply, type ScriptedOpenAIServer } from '../../support/scripted-openai';

const servers: ScriptedOpenAIServer[] = [];
after(async () => {
  for (const server of servers) await server.close();
});

const systemOf = (request: RecordedRequest): string => request.body?.messages.find((message) => message.role === 'system')?.content ?? '';
const userOf = (request: RecordedRequest): string => request.body?.messages.find((message) => message.role === 'user')?.content ?? '';
const isSynthesis = (request: RecordedRequest): boolean => systemOf(request).startsWith('You combine the answers');

async function serve(
  script: (request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>,
): Promise<{ readonly server: ScriptedOpenAIServer; readonly models: ModelSource }> {
  const server = await startScriptedOpenAI({ script });
  servers.push(server);
  const provider = (model: string): OpenAIProvider =>
    new OpenAIProvider({
      baseUrl: server.baseUrl,
      model,
      apiKey: { key: undefined, envVar: undefined },
      retry: { attempts: 1, baseDelayMs: 1 },
    });
  return { server, models: modelSource(provider('session-model'), provider) };
}

/** Members answer by model and persona; the synthesis lists which answers it was given. */
function councilScript(request: RecordedRequest): ScriptedReply {
  if (isSynthesis(request)) {
    const named = [...userOf(request).matchAll(/^## (\w+)\n(.*)$/gm)].map((match) => `${match[1]}=${match[2]}`);
    return { text: `combined: ${named.join(' | ')}` };
  }
  const model = request.body?.model;
  if (model === 'model-broken') return { error: { status: 400, message: 'no such model: model-broken' } };
  if (systemOf(request).includes('You look for flaws.')) return { text: `critic on ${model}: risky` };
  return { text: `${model} says: fine` };
}

const signal = (): AbortSignal => new AbortController().signal;

test('S2: the council asks every member without tools, by model and persona, then the session model combines the answers; a failing member is reported and the rest count', async () => {
  const { server, models } = await serve(councilScript);
  const council = new ModelCouncil({
    members: [
      { name: 'critic', persona: 'You look for flaws.' },
      { name: 'optimist', model: 'model-b' },
      { name: 'broken', model: 'model-broken' },
    ],
    models,
    concurrency: 8,
  });
  const verdict = await council.convene('Should we rewrite the parser?', signal());
  assert.deepEqual(server.violations, []);
  assert.deepEqual(
    verdict.members.map((member) => [member.name, member.model, member.answer]),
    [
      ['critic', undefined, 'critic on session-model: risky'],
      ['optimist', 'model-b', 'model-b says: fine'],
      ['broken', 'model-broken', undefined],
    ],
  );
  assert.match(verdict.members[2]?.error ?? '', /no such model: model-broken/);
  assert.equal(
    verdict.synthesis,
    'combined: critic=critic on session-model: risky | optimist=model-b says: fine | broken=(no answer: ' +
      (verdict.members[2]?.error ?? '') +
      ')',
  );

  const memberRequests = server.chatRequests().filter((request) => !isSynthesis(request));
  assert.equal(memberRequests.length, 3);
  for (const request of memberRequests) {
    assert.equal(request.body?.tools, undefined, 'members get no tools');
    assert.equal(userOf(request), 'Should we rewrite the parser?');
    assert.match(systemOf(request), /You have no tools/);
  }
  const synthesis = server.chatRequests().filter(isSynthesis);
  assert.equal(synthesis.length, 1);
  assert.equal(synthesis[0]?.body?.model, 'session-model');
  assert.equal(synthesis[0]?.body?.tools, undefined);
});

test('C3: council members are asked in parallel, at most concurrency.delegations at once', async () => {
  const cap = 2;
  let active = 0;
  let most = 0;
  let seen = 0;
  const held: (() => void)[] = [];
  const { models } = await serve((request) => {
    if (isSynthesis(request)) return { text: 'combined' };
    seen++;
    most = Math.max(most, ++active);
    return new Promise<ScriptedReply>((resolve) => {
      held.push(() => {
        active--;
        resolve({ text: 'an answer' });
      });
      // Released in pairs (the last one alone): so the cap is reached, and exceeding it would show.
      if (held.length === cap || seen === 5) for (const release of held.splice(0)) release();
    });
  });
  const council = new ModelCouncil({ members: ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name })), models, concurrency: cap });
  const verdict = await council.convene('Which name is best?', signal());
  assert.equal(verdict.members.filter((member) => member.answer === 'an answer').length, 5);
  assert.equal(most, cap);
});

test('S2: when every member fails there is no synthesis request, and the verdict says why', async () => {
  const { server, models } = await serve(() => ({ error: { status: 401, message: 'bad key' } }));
  const council = new ModelCouncil({ members: [{ name: 'a' }, { name: 'b', model: 'other' }], models, concurrency: 4 });
  const verdict = await council.convene('Anything?', signal());
  assert.ok(verdict.members.every((member) => member.answer === undefined && /bad key|401/.test(member.error ?? '')));
  assert.equal(verdict.synthesis, undefined);
  assert.match(verdict.synthesisError ?? '', /no member answered/);
  assert.equal(server.chatRequests().length, 2);
});

test("S2: a failed synthesis keeps the members' answers", async () => {
  const { models } = await serve((request) =>
    isSynthesis(request) ? { error: { status: 400, message: 'context too long' } } : { text: 'yes' },
  );
  const verdict = await new ModelCouncil({ members: [{ name: 'a' }], models, concurrency: 1 }).convene('Q?', signal());
  assert.equal(verdict.members[0]?.answer, 'yes');
  assert.match(verdict.synthesisError ?? '', /context too long/);
});

test('S2: a member naming a model the host cannot reach fails alone, with a message saying what to do', async () => {
  const { server } = await serve(() => ({ text: 'fine' }));
  const onlySession = modelSource(
    new OpenAIProvider({
      baseUrl: server.baseUrl,
      model: 'session-model',
      apiKey: { key: undefined, envVar: undefined },
      retry: { attempts: 1, baseDelayMs: 1 },
    }),
  );
  await assert.rejects(
    onlySession.forModel('elsewhere'),
    (error: unknown) => error instanceof ToolError && /"elsewhere" cannot be reached from this host/.test(error.message),
  );
  const verdict = await new ModelCouncil({
    members: [{ name: 'here' }, { name: 'there', model: 'elsewhere' }],
    models: onlySession,
    concurrency: 2,
  }).convene('Q?', signal());
  assert.equal(verdict.members[0]?.answer, 'fine');
  assert.match(verdict.members[1]?.error ?? '', /cannot be reached from this host/);
  assert.equal(verdict.synthesis, 'fine');
});

test('S2: cancelling a council run rejects it', async () => {
  const controller = new AbortController();
  const { models } = await serve(() => {
    setImmediate(() => controller.abort());
    return { text: 'thinking', stall: true };
  });
  await assert.rejects(new ModelCouncil({ members: [{ name: 'slow' }], models, concurrency: 1 }).convene('Q?', controller.signal));
});
