// Black-box tests of rule globs through `zuno exec` (issue 8, "Globs from a library"; SPEC §9):
// the built CLI in a real workspace against a scripted OpenAI-compatible server on 127.0.0.1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toolResults } from '../../support/scripted-openai';
import { eventsOf, execArgs, runZuno, temporaryWorkspace, useBuiltCli, useScriptedServers } from './cli';

useBuiltCli();

const scripted = useScriptedServers();

test('issue 8 §9 config: an invalid rule glob exits 2 naming the rule and the glob, before any model request', async () => {
  const rules = [
    { tool: 'read', match: 'src/**', action: 'allow' },
    { tool: 'grep', match: '[z-a]*', action: 'deny' },
  ];
  const workspace = temporaryWorkspace({ '.zuno/config.json': JSON.stringify({ permission: { rules } }) });
  const server = await scripted([]);
  const run = await runZuno(execArgs(server.baseUrl, workspace, 'hi'), { cwd: workspace });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /permission\.rules\[1\]\.match "\[z-a\]\*" is not a valid glob: Range out of order in character class/);
  assert.equal(server.requests.length, 0);
});

test('issue 8 E1: a deny rule with a class and `secrets/**` blocks exactly the paths it names, dotfiles included', async () => {
  const rules = [
    { tool: '*', match: 'logs/v[\\d].txt', action: 'deny' },
    { tool: '*', match: 'secrets/**', action: 'deny' },
  ];
  const workspace = temporaryWorkspace({
    '.zuno/config.json': JSON.stringify({ permission: { rules } }),
    'logs/v7.txt': 'seven\n',
    'logs/vd.txt': 'letter d\n',
    'secrets/.env': 'TOKEN=1\n',
  });
  const server = await scripted([
    {
      toolCalls: [
        { id: 'digit', name: 'read', arguments: { path: 'logs/v7.txt' } },
        { id: 'letter', name: 'read', arguments: { path: 'logs/vd.txt' } },
        { id: 'dotfile', name: 'read', arguments: { path: 'secrets/.env' } },
      ],
    },
    { text: 'done' },
  ]);
  const run = await runZuno(execArgs(server.baseUrl, workspace, 'read them'), { cwd: workspace });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(
    eventsOf(run.events, 'dispatch-blocked').map((event) => [event.call_id, event.category]),
    [
      ['digit', 'denied'],
      ['dotfile', 'denied'],
    ],
  );
  const results = toolResults(server.chatRequests()[1] ?? { method: '', path: '', headers: {}, body: undefined });
  assert.match(results.get('letter') ?? '', /letter d/);
  assert.doesNotMatch(results.get('dotfile') ?? '', /TOKEN/);
  assert.deepEqual(server.violations, []);
});
