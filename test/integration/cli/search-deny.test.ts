// Black-box (issue 8 §5): with `{tool:"*", match:"secrets/**", action:"deny"}`, a scripted model
// drives the built `zuno exec --approve deny` through every way read, grep and glob could reveal
// the denied folder. What the model receives is checked on the requests the scripted server got.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toolResults } from '../../support/scripted-openai';
import { eventsOf, execArgs, runZuno, temporaryWorkspace, useBuiltCli, useScriptedServers } from './cli';

useBuiltCli();

const scripted = useScriptedServers();

/** The secrets' content and the paths inside the folder, which the model's own arguments never contain. */
const LEAKS = ['SECRET-VALUE-42', 'hunter2', 'TOKEN=', 'secrets/key.txt', 'deep.txt'];

const FILES = {
  '.zuno/config.json': JSON.stringify({ permission: { rules: [{ tool: '*', match: 'secrets/**', action: 'deny' }] } }),
  'secrets/key.txt': 'SECRET-VALUE-42 needle\n',
  'secrets/.env': 'TOKEN=hunter2 needle\n',
  'secrets/sub/deep.txt': 'needle deep\n',
  'src/app.txt': 'needle in app\n',
  'notes.txt': 'needle note\n',
};

const CALLS = [
  { id: 'grep-root', name: 'grep', arguments: { pattern: 'needle' } },
  { id: 'grep-root-files', name: 'grep', arguments: { pattern: 'needle', output_mode: 'files' } },
  { id: 'grep-value', name: 'grep', arguments: { pattern: 'VALUE|hunter', output_mode: 'count' } },
  { id: 'grep-secrets', name: 'grep', arguments: { pattern: 'needle', path: 'secrets' } },
  { id: 'grep-sub', name: 'grep', arguments: { pattern: 'needle', path: 'secrets/sub' } },
  { id: 'glob-txt', name: 'glob', arguments: { pattern: '**/*.txt' } },
  { id: 'glob-all', name: 'glob', arguments: { pattern: '**/*' } },
  { id: 'glob-secrets', name: 'glob', arguments: { pattern: '*', path: 'secrets' } },
  { id: 'read-root', name: 'read', arguments: { path: '.' } },
  { id: 'read-secrets', name: 'read', arguments: { path: 'secrets' } },
  { id: 'read-dotfile', name: 'read', arguments: { path: 'secrets/.env' } },
  { id: 'read-missing', name: 'read', arguments: { path: 'key.txt' } },
] as const;

test("issue 8 §5 E1: zuno exec --approve deny never sends a denied folder's content or names to the model", async () => {
  const workspace = temporaryWorkspace(FILES);
  // The store's journal, in the workspace by default, would match "needle" through the model's own arguments.
  const stateDir = temporaryWorkspace();
  const server = await scripted([{ toolCalls: CALLS }, { text: 'Searched.' }]);
  const run = await runZuno(execArgs(server.baseUrl, workspace, '--state-dir', stateDir, '--approve', 'deny', 'find the secrets'), {
    cwd: workspace,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(server.violations, []);

  const outcomes = Object.fromEntries(
    eventsOf(run.events, 'tool-call-finished').map((event) => [
      event.call_id,
      event.category ? `${event.outcome}: ${event.category}` : event.outcome,
    ]),
  );
  assert.deepEqual(outcomes, {
    'grep-root': 'ok',
    'grep-root-files': 'ok',
    'grep-value': 'ok',
    'grep-secrets': 'blocked: denied',
    'grep-sub': 'blocked: denied',
    'glob-txt': 'ok',
    'glob-all': 'ok',
    'glob-secrets': 'blocked: denied',
    'read-root': 'ok',
    'read-secrets': 'blocked: denied',
    'read-dotfile': 'blocked: denied',
    'read-missing': 'error',
  });

  const requests = server.chatRequests();
  assert.equal(requests.length, 2);
  // Everything the model was sent after the calls ran: no secret content, no name from inside the folder.
  const sent = JSON.stringify(requests[1]?.body);
  for (const leak of LEAKS) assert.ok(!sent.includes(leak), `the model was sent ${leak}`);

  const results = toolResults(requests[1] ?? { method: '', path: '', headers: {}, body: undefined });
  // The dotfile's name reaches the model only where the model itself named it.
  for (const [id, output] of results) if (id !== 'read-dotfile') assert.ok(!output.includes('.env'), `${id} names the dotfile: ${output}`);
  assert.match(results.get('grep-root') ?? '', /^2 matching lines in 2 files[\s\S]*Paths hidden by permission rules were not searched/);
  assert.match(results.get('grep-value') ?? '', /^No matches/);
  assert.match(results.get('glob-txt') ?? '', /^2 files match "\*\*\/\*\.txt" in the workspace:\nnotes\.txt\nsrc\/app\.txt\n/);
  assert.match(results.get('read-root') ?? '', /\(and 1 hidden by permission rules, not shown\)/);
  assert.match(results.get('grep-secrets') ?? '', /^BLOCKED \(denied\)[\s\S]*secrets\/\*\*/);
});
