// Black-box: `zuno exec` reports token usage (issue 10 item 1) and gives up on a stalled model
// stream (issue 10 item 6). The built CLI runs as a child process against scripted servers on
// 127.0.0.1 that report usage the way OpenAI's API does.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startScriptedOpenAI, type ScriptedOpenAIOptions, type ScriptedOpenAIServer } from '../../support/scripted-openai';
import { eventsOf, execArgs, runZuno, temporaryWorkspace, useBuiltCli } from './cli';

useBuiltCli();

const servers: ScriptedOpenAIServer[] = [];
after(async () => {
  for (const server of servers) await server.close();
});

async function scripted(options: ScriptedOpenAIOptions): Promise<ScriptedOpenAIServer> {
  const server = await startScriptedOpenAI(options);
  servers.push(server);
  return server;
}

test('issue 10 item 1: zuno exec --json emits a usage event per model request and prints the usage line on stderr', async () => {
  const workspace = temporaryWorkspace({ 'notes.txt': 'n'.repeat(2000) });
  const reported = [
    { prompt_tokens: 900, completion_tokens: 20, cached_tokens: 600 },
    { prompt_tokens: 1450, completion_tokens: 8 },
  ];
  const server = await scripted({
    script: [{ toolCalls: [{ id: 'r1', name: 'read', arguments: { path: 'notes.txt' } }] }, { text: 'Read it.' }],
    contextWindow: 24_000,
    usage: (_request, index) => reported[index] ?? { prompt_tokens: 0, completion_tokens: 0 },
  });
  const run = await runZuno(execArgs(server.baseUrl, workspace, 'read the notes'), { cwd: workspace });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(server.violations, []);
  assert.ok(
    server.chatRequests().every((request) => request.body?.stream_options?.include_usage === true),
    'usage asked for on every request',
  );

  const usage = eventsOf(run.events, 'usage');
  assert.deepEqual(
    usage.map((event) => [
      event.input_tokens,
      event.output_tokens,
      event.cached_tokens ?? null,
      event.context_window,
      event.context_window_source,
    ]),
    [
      [900, 20, 600, 24_000, 'server'],
      [1450, 8, null, 24_000, 'server'],
    ],
  );
  const estimate = usage[0]?.estimated_next_input_tokens ?? 0;
  assert.ok(estimate > 920 + 500, `the estimate (${estimate}) covers the 2000-character read result`);
  assert.equal(
    run.stderr.trim().split('\n').at(-1),
    'zuno: usage: 2 model requests, 2,350 input tokens (600 cached), 28 output; context 1,458 of 24,000 tokens',
  );
});

test('issue 10 item 1: in text mode the usage line ends stderr, naming a guessed window as a guess', async () => {
  const workspace = temporaryWorkspace();
  const server = await scripted({ script: [{ text: 'Hello.' }], usage: () => ({ prompt_tokens: 321, completion_tokens: 2 }) });
  const args = execArgs(server.baseUrl, workspace, 'say hello').filter((arg) => arg !== '--json');
  const run = await runZuno(args, { cwd: workspace });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, 'Hello.\n');
  assert.equal(
    run.stderr.trim().split('\n').at(-1),
    'zuno: usage: 1 model request, 321 input tokens, 2 output; context 323 of 32,768 tokens (a guess; set model.context_window)',
  );
});

test('issue 10 item 6: a stream that stalls after some text ends the run with exit 1 and names model.idle_timeout_ms', async () => {
  const workspace = temporaryWorkspace();
  mkdirSync(join(workspace, '.zuno'));
  writeFileSync(join(workspace, '.zuno', 'config.json'), JSON.stringify({ model: { idle_timeout_ms: 1000 } }));
  const server = await scripted({ script: [{ text: 'Thinking about it', stall: true }] });
  const run = await runZuno(execArgs(server.baseUrl, workspace, 'think'), { cwd: workspace });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /sent no complete stream event for 1 s \(model\.idle_timeout_ms\)/);
  assert.deepEqual(
    eventsOf(run.events, 'session-finished').map((event) => event.reason),
    ['error'],
  );
  assert.equal(server.chatRequests().length, 1, 'text had reached the user, so the attempt is not repeated');
});
