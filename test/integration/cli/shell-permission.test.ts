// Black-box: the shell bypasses sent by a scripted model through the built `zuno exec`
// (issue 8 item 1, E1 §9). Each line carries a harmless payload; the test proves the shell never
// runs it, and that a plain line the rules do allow still runs, so the test can fail.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startScriptedOpenAI, type ScriptedOpenAIServer } from '../../support/scripted-openai';
import { eventsOf, execArgs, runZuno, temporaryWorkspace, useBuiltCli } from './cli';

useBuiltCli();

const servers: ScriptedOpenAIServer[] = [];
after(async () => {
  for (const server of servers) await server.close();
});

/** One turn calling shell once per line, then a closing text. */
async function shellCalls(lines: readonly string[], control: { id: string; command: string }): Promise<ScriptedOpenAIServer> {
  const toolCalls = [
    ...lines.map((command, index) => ({ id: `s${index}`, name: 'shell', arguments: { command } })),
    { id: control.id, name: 'shell', arguments: { command: control.command } },
  ];
  const server = await startScriptedOpenAI({ script: [{ toolCalls }, { text: 'done' }] });
  servers.push(server);
  return server;
}

const config = (permission: unknown): string => JSON.stringify({ permission });

test('issue 8 item 1, E1 §9: with {shell, "git *", allow} in strict mode and --approve deny, no bypass line runs its payload; git init does run', async () => {
  const lines = [
    'git status \\ #; touch marker',
    'git status\r#; touch marker',
    "git log $'\\''; touch marker #'",
    'git log &>/dev/null touch marker',
    'git\n\\touch marker',
    'git status; touch marker',
    'git log $(touch marker)',
    'git log `touch marker`',
    "var='$(touch marker)'; echo ${var@P}",
    'echo ${var@P}',
  ];
  const workspace = temporaryWorkspace({
    '.zuno/config.json': config({
      mode: 'strict',
      rules: [
        { tool: 'shell', match: 'git *', action: 'allow' },
        { tool: 'shell', match: 'echo *', action: 'allow' },
      ],
    }),
  });
  const server = await shellCalls(lines, { id: 'control', command: 'git init -q repo' });
  const run = await runZuno(execArgs(server.baseUrl, workspace, '--approve', 'deny', 'try the lines'), { cwd: workspace });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(existsSync(join(workspace, 'marker')), false, 'a payload ran');
  const finished = new Map(
    eventsOf(run.events, 'tool-call-finished').map((event) => [event.call_id, [event.outcome, event.category ?? null]]),
  );
  lines.forEach((line, index) => assert.deepEqual(finished.get(`s${index}`), ['blocked', 'denied'], JSON.stringify(line)));
  // Every bypass was asked (and refused by --approve deny), not silently allowed.
  assert.equal(eventsOf(run.events, 'approval-requested').length, lines.length);
  assert.deepEqual(finished.get('control'), ['ok', null]);
  assert.ok(existsSync(join(workspace, 'repo', '.git')), 'the allowed git init ran');
});

test('issue 8 item 1, E1 §9: with {shell, "rm *", deny} in auto mode, none of the disguises of rm runs; an unrelated command does', async () => {
  const lines = [
    'if true; then rm -f victim; fi',
    '{ rm -f victim; }',
    '! rm victim',
    'while true; do rm victim; break; done',
    'f() { rm victim; }; f',
    'echo hi > "$(rm victim)"',
    'cat <<< "$(rm victim)"',
    'echo "$(echo ")"; rm victim)"',
    "cat <<EOF\nit's\nEOF\nrm victim",
    '/bin/rm victim',
    '\\rm victim',
    "'rm' victim",
    'r""m victim',
    'X=1 rm victim',
    'env rm victim',
    'command rm victim',
    'exec rm victim',
    'nice rm victim',
    'timeout 5 rm victim',
    'echo victim | xargs rm',
    "sh -c 'rm victim'",
    'eval rm victim',
    'find . -name victim -exec rm {} \\;',
    '$(echo rm) victim',
    'x=rm; $x victim',
  ];
  const workspace = temporaryWorkspace({
    victim: 'still here\n',
    '.zuno/config.json': config({ mode: 'auto', rules: [{ tool: 'shell', match: 'rm *', action: 'deny' }] }),
  });
  const server = await shellCalls(lines, { id: 'control', command: 'touch ran' });
  const run = await runZuno(execArgs(server.baseUrl, workspace, 'try the lines'), { cwd: workspace });
  assert.equal(run.code, 0, run.stderr);
  assert.ok(existsSync(join(workspace, 'victim')), 'a disguised rm ran');
  const blocked = new Map(eventsOf(run.events, 'dispatch-blocked').map((event) => [event.call_id, event]));
  lines.forEach((line, index) => {
    const event = blocked.get(`s${index}`);
    assert.equal(event?.category, 'denied', JSON.stringify(line));
    assert.match(event?.reason ?? '', /permission rule \{tool: "shell", match: "rm \*", action: "deny"\}/, JSON.stringify(line));
  });
  assert.equal(eventsOf(run.events, 'approval-requested').length, 0, 'auto mode asks nothing');
  assert.ok(existsSync(join(workspace, 'ran')), 'the control command ran, so the shell works');
});
