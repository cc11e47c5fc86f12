// Edit-and-resend and Retry (issue 14): the conversation continues from before one of the user's
// messages in a new session; the model sees nothing from that message on, the earlier turns'
// calls are not replayed, and the old session keeps its whole history. Through the real loop,
// store and read tool, against the scripted OpenAI server (which checks every request's pairing).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenAIProvider } from '../../../src/agent/openai';
import { forkBeforeUserMessage, ResendError } from '../../../src/agent/resend';
import { createRuntime } from '../../../src/agent/runtime';
import { parseConfig } from '../../../src/core/config';
import { createNodeHost } from '../../../src/hosts/node/host';
import { builtinToolRegistrations } from '../../../src/tools/index';
import { startScriptedOpenAI } from '../../support/scripted-openai';

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

test('issue 14: resending from before the second message: the model sees the first turn (its call paired) and not the second; the read is not replayed; the old chat is unchanged', async () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-resend-')));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const workspace = join(root, 'workspace');
  const stateDir = join(root, 'state');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'a.txt'), 'alpha\n');
  const server = await startScriptedOpenAI({
    script: [
      { toolCalls: [{ id: 'call_first_read', name: 'read', arguments: { path: 'a.txt' } }] },
      { text: 'a.txt says alpha.' },
      { text: 'Answer to the second prompt.' },
      { text: 'Answer to the edited second prompt.' },
    ],
  });
  cleanups.push(() => server.close());
  const runtime = await createRuntime({
    config: parseConfig({}),
    workspaceRoot: workspace,
    stateDir,
    host: createNodeHost({ stateDir, approvals: { request: async () => ({ approved: true }) } }),
    registrations: builtinToolRegistrations().filter((registration) => registration.tool.name === 'read'),
  });
  cleanups.push(() => runtime.close());
  const provider = new OpenAIProvider({
    baseUrl: server.baseUrl,
    model: 'scripted-model',
    apiKey: { key: 'k', envVar: undefined },
    retry: { attempts: 1, baseDelayMs: 1 },
  });
  const signal = new AbortController().signal;
  const first = await runtime.run({ provider, prompt: 'What does a.txt say?', signal });
  await runtime.run({ provider, prompt: 'Second prompt', signal, sessionId: first.sessionId });
  const before = { messages: runtime.store.messages(first.sessionId), events: runtime.store.events(first.sessionId) };

  const fork = forkBeforeUserMessage(runtime.store, first.sessionId, 1, workspace);
  assert.notEqual(fork, first.sessionId);
  assert.equal(runtime.store.getSession(fork)?.status, 'done', 'the fork does not open as an interrupted run');
  const resent = await runtime.run({ provider, prompt: 'Edited second prompt', signal, sessionId: fork });
  assert.equal(resent.reason, 'done', resent.error?.message);

  const last = server.chatRequests().at(-1)?.body?.messages ?? [];
  const seen = last.map((message) => `${message.role}:${message.content ?? ''}`).join('\n');
  assert.match(seen, /user:What does a\.txt say\?/);
  assert.match(seen, /tool:.*alpha/s, 'the first turn’s result is still there, paired');
  assert.match(seen, /user:Edited second prompt/);
  assert.ok(!last.some((message) => message.content === 'Second prompt'), 'the replaced message is gone');
  assert.doesNotMatch(seen, /Answer to the second prompt/, 'and so is its answer');
  assert.equal(server.chatRequests().length, 4, 'one request for the resent turn: the read was not run again');
  assert.deepEqual(server.violations, []);

  // The fork's events start with the first turn and then the edited one; the old chat is as it was.
  const forkUserMessages = runtime.store.events(fork).flatMap((event) => (event.type === 'user-message' ? [event.text] : []));
  assert.deepEqual(forkUserMessages, ['What does a.txt say?', 'Edited second prompt']);
  assert.deepEqual(runtime.store.messages(first.sessionId), before.messages);
  assert.equal(runtime.store.events(first.sessionId).length, before.events.length);

  assert.throws(() => forkBeforeUserMessage(runtime.store, first.sessionId, 5, workspace), ResendError);
  assert.throws(() => forkBeforeUserMessage(runtime.store, 'no-such-session', 0, workspace), /no session no-such-session/);
});
