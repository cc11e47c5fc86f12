// Black-box tests of `zuno exec` and `zuno show` (issue 2 §11, §12): the built CLI runs as a
// child process in a real workspace against a scripted OpenAI-compatible server on 127.0.0.1,
// which checks every request it receives for tool-call/result pairing and order.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toolResults } from '../../support/scripted-openai';
import { startScriptedAnthropic } from '../../support/scripted-anthropic';
import { eventsOf, execArgs, runZuno, temporaryWorkspace, useBuiltCli, useScriptedServers, workspaceStateDir } from './cli';
import packageJson from '../../../package.json';

useBuiltCli();

const scripted = useScriptedServers();

test('C2: read-only calls of one turn run together and their results reach the model in call order', async () => {
  const workspace = temporaryWorkspace({ 'a.txt': 'alpha\n', 'b.txt': 'bravo\n', 'c.txt': 'charlie\n' });
  const server = await scripted([
    {
      toolCalls: [
        { id: 'r1', name: 'read', arguments: { path: 'a.txt' } },
        { id: 'r2', name: 'read', arguments: { path: 'b.txt' } },
        { id: 'r3', name: 'read', arguments: { path: 'c.txt' } },
        { id: 'g1', name: 'glob', arguments: { pattern: '*.txt' } },
      ],
    },
    { text: 'Read them all.' },
  ]);
  const run = await runZuno(execArgs(server.baseUrl, workspace, 'read the three files'), { cwd: workspace });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(server.violations, []);

  const started = eventsOf(run.events, 'tool-call-started');
  const finished = eventsOf(run.events, 'tool-call-finished');
  assert.deepEqual(
    started.map((event) => [event.call_id, event.effect, event.replay, event.concurrency, event.attempt]),
    [
      ['r1', 'ReadOnly', 'Safe', 'ParallelSafe', 1],
      ['r2', 'ReadOnly', 'Safe', 'ParallelSafe', 1],
      ['r3', 'ReadOnly', 'Safe', 'ParallelSafe', 1],
      ['g1', 'ReadOnly', 'Safe', 'ParallelSafe', 1],
    ],
  );
  assert.ok(finished.every((event) => event.outcome === 'ok'));
  // All four were in flight at once: every start precedes the first finish.
  const firstFinish = run.events.findIndex((event) => event.type === 'tool-call-finished');
  assert.ok(run.events.findIndex((event) => event.type === 'tool-call-started' && event.call_id === 'g1') < firstFinish);

  const resultsSent = toolResults(server.chatRequests()[1] ?? { method: '', path: '', headers: {}, body: undefined });
  assert.deepEqual([...resultsSent.keys()], ['r1', 'r2', 'r3', 'g1']);
  assert.match(resultsSent.get('r1') ?? '', /alpha/);
  assert.match(resultsSent.get('r3') ?? '', /charlie/);
  assert.match(resultsSent.get('g1') ?? '', /a\.txt[\s\S]*b\.txt[\s\S]*c\.txt/);

  const sessionStarted = eventsOf(run.events, 'session-started')[0];
  assert.ok(sessionStarted?.session_id, 'session-started carries the session id');
  assert.ok(run.events.every((event) => event.session_id === sessionStarted.session_id && typeof event.ts === 'number'));
  assert.deepEqual(
    eventsOf(run.events, 'session-finished').map((event) => event.reason),
    ['done'],
  );
});

test('B1, B2: a write denied with --approve deny is blocked before it runs, the model is told, and the file is untouched', async () => {
  const workspace = temporaryWorkspace({ 'notes.md': 'original\n' });
  const server = await scripted([
    { toolCalls: [{ id: 'w1', name: 'write', arguments: { path: 'notes.md', content: 'overwritten\n' } }] },
    { text: 'The write was refused.' },
  ]);
  const run = await runZuno(execArgs(server.baseUrl, workspace, '--approve', 'deny', 'overwrite the notes'), { cwd: workspace });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(readFileSync(join(workspace, 'notes.md'), 'utf8'), 'original\n');

  const types = run.events.map((event) => event.type);
  const blocked = eventsOf(run.events, 'dispatch-blocked');
  assert.deepEqual(
    blocked.map((event) => [event.call_id, event.tool, event.category]),
    [['w1', 'write', 'denied']],
  );
  assert.match(blocked[0]?.reason ?? '', /--approve deny/);
  assert.ok(types.indexOf('approval-requested') < types.indexOf('dispatch-blocked'));
  assert.ok(types.indexOf('dispatch-blocked') < types.indexOf('tool-call-finished'), 'the block is announced before the result');
  assert.equal(eventsOf(run.events, 'tool-call-started').length, 0, 'a blocked call never starts');
  assert.deepEqual(
    eventsOf(run.events, 'tool-call-finished').map((event) => [event.outcome, event.category]),
    [['blocked', 'denied']],
  );
  const sent = toolResults(server.chatRequests()[1] ?? { method: '', path: '', headers: {}, body: undefined }).get('w1') ?? '';
  assert.match(sent, /^BLOCKED \(denied\): the call to "write" was NOT executed/);
  assert.deepEqual(server.violations, []);
});

test('E1: without a terminal and without --approve, a write is denied with a reason that says how to allow it', async () => {
  const workspace = temporaryWorkspace();
  const server = await scripted([
    { toolCalls: [{ id: 'w1', name: 'write', arguments: { path: 'new.txt', content: 'x' } }] },
    { text: 'ok' },
  ]);
  const run = await runZuno(execArgs(server.baseUrl, workspace, 'write a file'), { cwd: workspace });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(existsSync(join(workspace, 'new.txt')), false);
  assert.match(
    eventsOf(run.events, 'dispatch-blocked')[0]?.reason ?? '',
    /No terminal is attached to ask for approval\. Run zuno exec with --approve allow/,
  );
});

test('E1: with --approve allow the write runs and the file holds the content', async () => {
  const workspace = temporaryWorkspace();
  const server = await scripted([
    { toolCalls: [{ id: 'w1', name: 'write', arguments: { path: 'docs/hello.txt', content: 'hello, world\n' } }] },
    { text: 'Written.' },
  ]);
  const run = await runZuno(execArgs(server.baseUrl, workspace, '--approve', 'allow', 'write hello'), { cwd: workspace });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(readFileSync(join(workspace, 'docs', 'hello.txt'), 'utf8'), 'hello, world\n');
  assert.deepEqual(
    eventsOf(run.events, 'tool-call-finished').map((event) => [event.call_id, event.outcome]),
    [['w1', 'ok']],
  );
  assert.deepEqual(
    eventsOf(run.events, 'approval-resolved').map((event) => event.approved),
    [true],
  );
  assert.deepEqual(server.violations, []);
});

test('B1: invalid arguments (wrong type, malformed JSON) are blocked invalid_arguments and the model reads why', async () => {
  const workspace = temporaryWorkspace({ 'a.txt': 'a\n' });
  const server = await scripted([
    {
      toolCalls: [
        { id: 'bad1', name: 'read', arguments: { path: 42 } },
        { id: 'bad2', name: 'read', arguments: '{"path": "a.txt"' },
        { id: 'good', name: 'read', arguments: { path: 'a.txt' } },
      ],
    },
    { text: 'noted' },
  ]);
  const run = await runZuno(execArgs(server.baseUrl, workspace, 'read'), { cwd: workspace });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(
    eventsOf(run.events, 'dispatch-blocked').map((event) => [event.call_id, event.category]),
    [
      ['bad1', 'invalid_arguments'],
      ['bad2', 'invalid_arguments'],
    ],
  );
  const results = toolResults(server.chatRequests()[1] ?? { method: '', path: '', headers: {}, body: undefined });
  assert.deepEqual([...results.keys()], ['bad1', 'bad2', 'good']);
  assert.match(results.get('bad1') ?? '', /BLOCKED \(invalid_arguments\).*\n.*path/);
  assert.match(results.get('bad2') ?? '', /not valid JSON/);
  assert.deepEqual(server.violations, []);
});

test('A1: a tool switched off in config is not offered, and a call to it anyway is blocked unavailable', async () => {
  const workspace = temporaryWorkspace({ '.zuno/config.json': JSON.stringify({ tools: { webfetch: false } }) });
  const server = await scripted([
    { toolCalls: [{ id: 'f1', name: 'webfetch', arguments: { url: 'http://127.0.0.1:9/' } }] },
    { text: 'fine' },
  ]);
  const run = await runZuno(execArgs(server.baseUrl, workspace, 'fetch it'), { cwd: workspace });
  assert.equal(run.code, 0, run.stderr);
  const offered = server.chatRequests()[0]?.body?.tools?.map((tool) => tool.function.name) ?? [];
  assert.ok(offered.includes('read') && !offered.includes('webfetch'), `offered: ${offered.join(', ')}`);
  const blocked = eventsOf(run.events, 'dispatch-blocked');
  assert.deepEqual(
    blocked.map((event) => [event.call_id, event.category]),
    [['f1', 'unavailable']],
  );
  assert.match(blocked[0]?.reason ?? '', /tools\.webfetch = false/);
  assert.deepEqual(server.violations, []);
});

test('§9 config: an invalid config exits 2 naming the key, before any model request', async () => {
  const workspace = temporaryWorkspace({ '.zuno/config.json': JSON.stringify({ concurrency: { tool_calls: 0 }, tool: {} }) });
  const server = await scripted([]);
  const run = await runZuno(execArgs(server.baseUrl, workspace, 'hi'), { cwd: workspace });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /concurrency\.tool_calls must be an integer from 1 to 64 \(got 0\)/);
  assert.match(run.stderr, /tool is not a known setting/);
  assert.equal(server.requests.length, 0);

  const broken = temporaryWorkspace({ 'zuno.json': '{ "tools": ' });
  const syntax = await runZuno(execArgs(server.baseUrl, broken, '--config', 'zuno.json', 'hi'), { cwd: broken });
  assert.equal(syntax.code, 2);
  assert.match(syntax.stderr, /zuno\.json: it is not valid JSON/);
});

test('S4: a ripgrep older than 14 is a startup error: exit 2 with the version, before any model request', async () => {
  const workspace = temporaryWorkspace();
  const fakeRg = join(workspace, 'old-rg');
  writeFileSync(fakeRg, '#!/bin/sh\necho "ripgrep 13.0.0"\n');
  chmodSync(fakeRg, 0o755);
  const server = await scripted([]);
  const run = await runZuno(execArgs(server.baseUrl, workspace, 'hi'), { cwd: workspace, env: { ZUNO_RG_PATH: fakeRg } });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /13\.0\.0/);
  assert.match(run.stderr, /14/);
  assert.equal(server.requests.length, 0);
});

test('issue 2 §10: a provider 401 exits 1 with a message naming the key variable', async () => {
  const workspace = temporaryWorkspace();
  const server = await scripted([{ error: { status: 401, message: 'Invalid API key' } }]);
  const run = await runZuno(execArgs(server.baseUrl, workspace, '--api-key-env', 'MY_MODEL_KEY', 'hi'), {
    cwd: workspace,
    env: { MY_MODEL_KEY: 'wrong' },
  });
  assert.equal(run.code, 1);
  assert.match(
    run.stderr,
    /rejected the request as unauthorized \(HTTP 401: Invalid API key\)\. Check the key in the environment variable MY_MODEL_KEY\./,
  );
  assert.equal(server.chatRequests()[0]?.headers.authorization, 'Bearer wrong');
  assert.deepEqual(
    eventsOf(run.events, 'session-finished').map((event) => event.reason),
    ['error'],
  );
});

test('issue 2 §10: an unreachable model server exits 1 naming the base URL', async () => {
  const workspace = temporaryWorkspace();
  const closed = await scripted([]);
  await closed.close();
  const run = await runZuno(execArgs(closed.baseUrl, workspace, 'hi'), { cwd: workspace });
  assert.equal(run.code, 1);
  assert.ok(
    run.stderr.includes(`Cannot connect to the model server at ${closed.baseUrl}: connection refused. Is the server running?`),
    run.stderr,
  );
});

test('issue 2 §11: base URL, model and key come from ZUNO_* variables when neither flags nor config set them', async () => {
  const workspace = temporaryWorkspace();
  const server = await scripted([{ error: { status: 404, message: 'model "from-env" not found' } }], ['llama3.2']);
  const run = await runZuno(['exec', '--workspace', workspace, 'hi'], {
    cwd: workspace,
    env: { ZUNO_BASE_URL: server.baseUrl, ZUNO_MODEL: 'from-env', ZUNO_API_KEY: 'env-key' },
  });
  assert.equal(run.code, 1);
  assert.match(run.stderr, /The model "from-env" is not available at .*Available models: llama3\.2\./);
  assert.equal(server.chatRequests()[0]?.body?.model, 'from-env');
  assert.equal(server.chatRequests()[0]?.headers.authorization, 'Bearer env-key');

  const noModel = await runZuno(['exec', '--workspace', workspace, '--base-url', server.baseUrl, 'hi'], { cwd: workspace });
  assert.equal(noModel.code, 2);
  assert.match(noModel.stderr, /No model is set: pass --model NAME/);
});

test('issue 2 §11: zuno show --json lists the calls in order with tool, arguments, declarations, outcome, category, attempt and timestamps', async () => {
  const workspace = temporaryWorkspace({ 'a.txt': 'a\n' });
  const server = await scripted([
    {
      toolCalls: [
        { id: 's1', name: 'read', arguments: { path: 'a.txt' } },
        { id: 's2', name: 'write', arguments: { path: 'b.txt', content: 'b' } },
        { id: 's3', name: 'nope', arguments: {} },
      ],
    },
    { text: 'done' },
  ]);
  const run = await runZuno(execArgs(server.baseUrl, workspace, '--approve', 'deny', 'mixed'), { cwd: workspace });
  assert.equal(run.code, 0, run.stderr);
  const sessionId = run.events[0]?.session_id ?? '';

  const shown = await runZuno(['show', sessionId, '--workspace', workspace, '--json'], { cwd: workspace });
  assert.equal(shown.code, 0, shown.stderr);
  const document = JSON.parse(shown.stdout) as {
    session: { id: string; status: string; workspace: string };
    calls: Record<string, unknown>[];
    messages: unknown[];
    events: { type: string }[];
  };
  assert.equal(document.session.id, sessionId);
  assert.equal(document.session.status, 'done');
  assert.equal(document.session.workspace, workspace);
  assert.deepEqual(
    document.calls.map((call) => [call.call_id, call.tool, call.outcome, call.category]),
    [
      ['s1', 'read', 'ok', null],
      ['s2', 'write', 'blocked', 'denied'],
      ['s3', 'nope', 'blocked', 'unavailable'],
    ],
  );
  const [read, write] = document.calls;
  assert.deepEqual(read?.arguments, { path: 'a.txt' });
  assert.deepEqual([read?.effect, read?.replay, read?.concurrency, read?.attempt], ['ReadOnly', 'Safe', 'ParallelSafe', 1]);
  assert.deepEqual([write?.effect, write?.replay, write?.concurrency], ['SideEffecting', 'Never', 'Exclusive']);
  for (const call of document.calls) {
    assert.equal(typeof call.started_at, 'number');
    assert.equal(typeof call.finished_at, 'number');
    assert.ok((call.finished_at as number) >= (call.started_at as number));
  }
  assert.ok(document.messages.length >= 5);
  assert.ok(document.events.some((event) => event.type === 'dispatch-blocked'));

  const missing = await runZuno(['show', 'no-such-id', '--workspace', workspace, '--json'], { cwd: workspace });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /There is no session "no-such-id"/);
});

test('issue 2 §11: without --json the final answer goes to stdout and progress (with the session id) to stderr', async () => {
  const workspace = temporaryWorkspace({ 'a.txt': 'a\n' });
  const server = await scripted([{ toolCalls: [{ id: 'h1', name: 'read', arguments: { path: 'a.txt' } }] }, { text: 'The file says a.' }]);
  const run = await runZuno(['exec', '--workspace', workspace, '--base-url', server.baseUrl, '--model', 'm', 'what is in a.txt'], {
    cwd: workspace,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, 'The file says a.\n');
  assert.match(run.stderr, /^zuno: session [0-9a-f-]{36} in /);
  assert.match(run.stderr, /→ read \{"path":"a\.txt"\}/);
  assert.match(run.stderr, /read h1: ok/);
});

test('issue 2 §11: --help and --version exit 0; an unknown option or a missing prompt exits 2 with the usage', async () => {
  const workspace = temporaryWorkspace();
  const help = await runZuno(['--help'], { cwd: workspace });
  assert.equal(help.code, 0);
  assert.match(help.stdout, /zuno exec \[--workspace DIR\]/);
  assert.match(help.stdout, /zuno show SESSION_ID/);
  const version = await runZuno(['--version'], { cwd: workspace });
  assert.equal(version.code, 0);
  assert.equal(version.stdout, `zuno ${packageJson.version}\n`);
  const unknown = await runZuno(['exec', '--frobnicate', 'x'], { cwd: workspace });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /--frobnicate/);
  assert.match(unknown.stderr, /Usage:/);
  const noPrompt = await runZuno(['exec', '--model', 'm'], { cwd: workspace });
  assert.equal(noPrompt.code, 2);
  assert.match(noPrompt.stderr, /needs a PROMPT/);
  const badApprove = await runZuno(['exec', '--approve', 'maybe', 'x'], { cwd: workspace });
  assert.equal(badApprove.code, 2);
  assert.match(badApprove.stderr, /--approve must be "allow" or "deny" \(got "maybe"\)/);
});

test('issue 2 §11, issue 9: the default state dir is the per-user folder of the workspace, not <workspace>/.zuno, and --state-dir moves it', async () => {
  const workspace = temporaryWorkspace();
  const server = await scripted([{ text: 'one' }, { text: 'two' }]);
  const first = await runZuno(execArgs(server.baseUrl, workspace, 'hi'), { cwd: workspace });
  assert.equal(first.code, 0, first.stderr);
  assert.equal(existsSync(join(workspace, '.zuno')), false, 'nothing is written into the workspace');
  assert.ok(
    existsSync(join(workspaceStateDir(workspace), 'sessions', first.events[0]?.session_id ?? '', 'journal.jsonl')),
    'the session has its own folder (issue 9)',
  );
  const elsewhere = join(workspace, 'elsewhere');
  mkdirSync(elsewhere);
  const second = await runZuno(execArgs(server.baseUrl, workspace, '--state-dir', elsewhere, 'hi'), { cwd: workspace });
  assert.equal(second.code, 0, second.stderr);
  const shown = await runZuno(['show', second.events[0]?.session_id ?? '', '--state-dir', elsewhere, '--json'], { cwd: workspace });
  assert.equal(shown.code, 0, shown.stderr);
});

test('§9 models: with model.provider "anthropic" the same run speaks Anthropic Messages, key in x-api-key', async () => {
  const workspace = temporaryWorkspace({
    'a.txt': 'from anthropic\n',
    '.zuno/config.json': JSON.stringify({ model: { provider: 'anthropic', api_key_env: 'ANTHROPIC_TEST_KEY' } }),
  });
  const server = await startScriptedAnthropic({
    script: [{ toolCalls: [{ id: 'toolu_1', name: 'read', arguments: { path: 'a.txt' } }] }, { text: 'It says: from anthropic.' }],
  });
  after(() => server.close());
  const run = await runZuno(['exec', '--workspace', workspace, '--base-url', server.baseUrl, '--model', 'claude-scripted', 'read a.txt'], {
    cwd: workspace,
    env: { ANTHROPIC_TEST_KEY: 'sk-ant-x' },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, 'It says: from anthropic.\n');
  assert.equal(server.requests[0]?.headers['x-api-key'], 'sk-ant-x');
  const second = server.requests[1]?.body.messages.at(-1);
  assert.equal(second?.role, 'user');
  assert.match(JSON.stringify(second?.content), /"type":"tool_result","tool_use_id":"toolu_1","content":"[^"]*from anthropic/);
  assert.deepEqual(server.violations, []);
});
