// Black-box tests of issue 8 item 6 through the built `zuno exec`: secrets stay out of the
// commands and hooks the model can run, and a webfetch redirect cannot step around a deny rule.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listenOnLoopback } from '../../support/loopback-server';
import { startScriptedOpenAI, toolResults, type RecordedRequest, type ScriptStep } from '../../support/scripted-openai';
import { eventsOf, execArgs, runZuno, temporaryWorkspace, useBuiltCli } from './cli';

useBuiltCli();

const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers) await close();
});

const SECRETS = {
  ZUNO_API_KEY: 'zuno-api-key-value-1f3a',
  MODEL_AUTH: 'model-auth-value-7c2e',
  FOO_TOKEN: 'foo-token-value-9d41',
  MY_SECRET: 'my-secret-value-5b8c',
};
const NO_REQUEST: RecordedRequest = { method: '', path: '', headers: {}, body: undefined };

function workspaceWithConfig(config: Record<string, unknown>): string {
  const workspace = temporaryWorkspace();
  mkdirSync(join(workspace, '.zuno'), { recursive: true });
  writeFileSync(join(workspace, '.zuno', 'config.json'), JSON.stringify(config));
  return workspace;
}

/** The model calls shell `env`; a pre-tool hook writes its own environment to hook-env.txt first. */
async function runEnv(
  config: Record<string, unknown>,
): Promise<{ readonly sent: string; readonly hookFile: string; readonly authorization: unknown }> {
  const workspace = workspaceWithConfig({ ...config, hooks: { pre_tool: [{ command: 'env > hook-env.txt', tools: ['shell'] }] } });
  const script: ScriptStep[] = [{ toolCalls: [{ id: 's1', name: 'shell', arguments: { command: 'env' } }] }, { text: 'done' }];
  const server = await startScriptedOpenAI({ script });
  closers.push(() => server.close());
  const run = await runZuno(
    execArgs(server.baseUrl, workspace, '--api-key-env', 'MODEL_AUTH', '--approve', 'allow', 'print the environment'),
    {
      cwd: workspace,
      env: { ...SECRETS, PLAIN_MARKER: 'plain-marker-value' },
    },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(server.violations, []);
  assert.deepEqual(
    eventsOf(run.events, 'tool-call-finished').map((event) => [event.call_id, event.outcome]),
    [['s1', 'ok']],
  );
  return {
    sent: toolResults(server.chatRequests()[1] ?? NO_REQUEST).get('s1') ?? '',
    hookFile: readFileSync(join(workspace, 'hook-env.txt'), 'utf8'),
    authorization: server.chatRequests()[0]?.headers.authorization,
  };
}

test('issue 8 §9 secrets: shell `env` and a pre-tool hook see no provider key, *_TOKEN or *_SECRET value, while the model provider still gets its key', async () => {
  const { sent, hookFile, authorization } = await runEnv({});
  for (const [where, text] of [
    ['the output the model received', sent],
    ["the hook's environment", hookFile],
  ] as const) {
    assert.match(text, /PLAIN_MARKER=plain-marker-value/, `${where} holds the ordinary variables`);
    for (const [name, value] of Object.entries(SECRETS)) {
      assert.ok(!text.includes(value), `${where} holds the value of ${name}`);
      assert.ok(!new RegExp(`^${name}=`, 'm').test(text), `${where} names ${name}`);
    }
  }
  assert.equal(authorization, `Bearer ${SECRETS.MODEL_AUTH}`, 'the key from --api-key-env still reaches the model server');
});

test('issue 8 §9 secrets: shell.env.include passes one variable through on purpose, and only that one', async () => {
  const { sent, hookFile } = await runEnv({ shell: { env: { include: ['foo_token'] } } });
  for (const text of [sent, hookFile]) {
    assert.match(text, new RegExp(`^FOO_TOKEN=${SECRETS.FOO_TOKEN}$`, 'm'));
    for (const value of [SECRETS.ZUNO_API_KEY, SECRETS.MODEL_AUTH, SECRETS.MY_SECRET]) assert.ok(!text.includes(value));
  }
});

test('issue 8 §9 B1: a webfetch of a 127.0.0.1 URL that redirects to a denied path is blocked naming the hop; the denied handler is never requested', async () => {
  const served: string[] = [];
  const violations: string[] = [];
  const site = await listenOnLoopback(async (incoming, response) => {
    served.push(incoming.url ?? '');
    if (incoming.url === '/start') response.writeHead(302, { location: '/internal/keys' }).end();
    else response.writeHead(200, { 'content-type': 'text/plain' }).end('internal keys');
  }, violations);
  closers.push(() => site.close());
  const origin = site.baseUrl.replace(/\/v1$/, '');
  const workspace = workspaceWithConfig({ permission: { rules: [{ tool: 'webfetch', match: `${origin}/internal/*`, action: 'deny' }] } });
  const server = await startScriptedOpenAI({
    script: [{ toolCalls: [{ id: 'f1', name: 'webfetch', arguments: { url: `${origin}/start` } }] }, { text: 'blocked' }],
  });
  closers.push(() => server.close());
  const run = await runZuno(execArgs(server.baseUrl, workspace, '--approve', 'deny', 'fetch the start page'), { cwd: workspace });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(server.violations, []);
  assert.deepEqual(violations, []);

  assert.deepEqual(served, ['/start'], 'the denied path was never requested');
  assert.equal(eventsOf(run.events, 'approval-requested').length, 0, 'webfetch gets no strict prompt (E3)');
  const blocked = eventsOf(run.events, 'dispatch-blocked');
  assert.deepEqual(
    blocked.map((event) => [event.call_id, event.tool, event.category]),
    [['f1', 'webfetch', 'denied']],
  );
  assert.match(blocked[0]?.reason ?? '', new RegExp(`redirect 1 \\(from ${origin}/start\\) to ${origin}/internal/keys is refused`));
  assert.deepEqual(
    eventsOf(run.events, 'tool-call-finished').map((event) => [event.outcome, event.category]),
    [['blocked', 'denied']],
  );
  const sent = toolResults(server.chatRequests()[1] ?? NO_REQUEST).get('f1') ?? '';
  assert.match(sent, /^BLOCKED \(denied\): the call to "webfetch" was stopped by permission before the refused step, which did NOT run\./);
  assert.ok(sent.includes(`${origin}/internal/keys`));
  assert.ok(!sent.includes('internal keys'), 'no content of the denied URL reached the model');
});
