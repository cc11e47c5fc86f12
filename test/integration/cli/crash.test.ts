// The crash test (issue 2 §12; SPEC R1, R3): kill -9 the CLI in the middle of a shell call,
// resume the session, and check that the call became indeterminate, that the command ran
// exactly once, and that the recovery notice built from the store reached the model.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startScriptedOpenAI, toolResults, type ScriptedOpenAIServer } from '../../support/scripted-openai';
import { eventsOf, execArgs, parseEventLines, runZuno, startZuno, temporaryWorkspace, useBuiltCli } from './cli';

useBuiltCli();

const servers: ScriptedOpenAIServer[] = [];
/** Process groups of shells the killed CLI left behind; killed whatever happens. */
const orphanGroups: number[] = [];
after(async () => {
  for (const group of orphanGroups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  for (const server of servers) await server.close();
});

/** Resolves once `condition` holds, checking on every tick of the event loop's timers. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

const lines = (path: string): string[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];

test(
  'R3: after kill -9 during a shell call, resume marks it indeterminate, never re-runs it, and the model gets the notice',
  { timeout: 120_000 },
  async () => {
    // Unsandboxed: the test follows the command by its host PID (`$$`), which a sandbox's PID namespace hides (issue 12).
    const workspace = temporaryWorkspace({ '.zuno/config.json': JSON.stringify({ sandbox: { mode: 'off' } }) });
    const counter = join(workspace, 'counter.txt');
    const command = 'echo $$ > shell.pid; echo run >> counter.txt; sleep 30';
    const server = await startScriptedOpenAI({
      script: [
        { text: 'Appending a line.', toolCalls: [{ id: 'crash-1', name: 'shell', arguments: { command } }] },
        // The resumed run: the model reads the notice and the indeterminate result, and stops.
        { text: 'The previous call is indeterminate; I checked counter.txt and will not run it again.' },
      ],
    });
    servers.push(server);

    const first = startZuno(execArgs(server.baseUrl, workspace, '--approve', 'allow', 'append a line to counter.txt'), { cwd: workspace });
    let firstOutput = '';
    first.stdout?.on('data', (chunk: Buffer) => (firstOutput += chunk.toString('utf8')));
    const firstExit = new Promise<NodeJS.Signals | null>((resolve) => first.on('close', (_code, signal) => resolve(signal)));

    // The command is running (its line is written) and the CLI is waiting for it: kill the CLI.
    await until(
      () =>
        lines(counter).length === 1 &&
        existsSync(join(workspace, 'shell.pid')) &&
        readFileSync(join(workspace, 'shell.pid'), 'utf8').trim() !== '',
    );
    const shellGroup = Number(readFileSync(join(workspace, 'shell.pid'), 'utf8').trim());
    orphanGroups.push(shellGroup);
    first.kill('SIGKILL');
    assert.equal(await firstExit, 'SIGKILL');
    // The shell ran in its own process group; a real crash leaves it behind, and so do we until here.
    process.kill(-shellGroup, 'SIGKILL');

    const firstEvents = parseEventLines(firstOutput.slice(0, firstOutput.lastIndexOf('\n') + 1));
    const sessionId = firstEvents[0]?.session_id;
    assert.ok(sessionId, 'the killed run printed session-started first');
    assert.ok(
      eventsOf(firstEvents, 'tool-call-started').some((event) => event.call_id === 'crash-1'),
      'the shell call had started before the kill',
    );

    const resumed = await runZuno(execArgs(server.baseUrl, workspace, '--approve', 'allow', '--session', sessionId, 'continue'), {
      cwd: workspace,
    });
    assert.equal(resumed.code, 0, resumed.stderr);

    // Exactly once: the resume did not run the command again.
    assert.deepEqual(lines(counter), ['run']);
    assert.equal(eventsOf(resumed.events, 'tool-call-started').length, 0);

    // The notice, from the store, as an event and in the very next model request.
    const notices = eventsOf(resumed.events, 'recovery-notice');
    assert.deepEqual(
      notices.map((event) => [event.call_id, event.attempt, event.tool]),
      [['crash-1', 1, 'shell']],
    );
    const resumeRequest = server.chatRequests()[1];
    assert.ok(resumeRequest, 'the resumed run asked the model');
    const noticeMessage = resumeRequest.body?.messages.find(
      (message) => message.role === 'user' && (message.content ?? '').includes('RECOVERY NOTICE'),
    );
    assert.match(
      noticeMessage?.content ?? '',
      /call crash-1: tool "shell" with command="echo \$\$ > shell\.pid; echo run >> counter\.txt; sleep 30"; attempt 1; outcome: indeterminate/,
    );
    assert.match(noticeMessage?.content ?? '', /check the authoritative state/);
    assert.match(toolResults(resumeRequest).get('crash-1') ?? '', /may or may not have happened/);
    assert.deepEqual(server.violations, [], 'every request paired each tool call with one result, in order');

    // The persisted record agrees.
    const shown = await runZuno(['show', sessionId, '--workspace', workspace, '--json'], { cwd: workspace });
    assert.equal(shown.code, 0, shown.stderr);
    const document = JSON.parse(shown.stdout) as {
      calls: { call_id: string; tool: string; outcome: string; attempt: number; finished_at: number | null }[];
    };
    assert.deepEqual(
      document.calls.map((call) => [call.call_id, call.tool, call.outcome, call.attempt]),
      [['crash-1', 'shell', 'indeterminate', 1]],
    );
    assert.equal(typeof document.calls[0]?.finished_at, 'number');
  },
);

function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

test(
  'I5: SIGINT cancels the run: the shell group is killed, the call is recorded cancelled, and zuno exits 130',
  { timeout: 120_000 },
  async () => {
    const workspace = temporaryWorkspace();
    const server = await startScriptedOpenAI({
      script: [{ toolCalls: [{ id: 'int-1', name: 'shell', arguments: { command: 'echo $$ > shell.pid; sleep 30' } }] }],
    });
    servers.push(server);
    const child = startZuno(execArgs(server.baseUrl, workspace, '--approve', 'allow', 'sleep'), { cwd: workspace });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const pidFile = join(workspace, 'shell.pid');
    await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
    const shellGroup = Number(readFileSync(pidFile, 'utf8').trim());
    orphanGroups.push(shellGroup);

    child.kill('SIGINT');
    assert.equal(await exit, 130);
    await until(() => !groupAlive(shellGroup));

    const events = parseEventLines(output);
    assert.deepEqual(
      eventsOf(events, 'tool-call-finished').map((event) => [event.call_id, event.outcome]),
      [['int-1', 'cancelled']],
    );
    assert.deepEqual(
      eventsOf(events, 'session-finished').map((event) => event.reason),
      ['cancelled'],
    );
    const shown = await runZuno(['show', events[0]?.session_id ?? '', '--workspace', workspace, '--json'], { cwd: workspace });
    const document = JSON.parse(shown.stdout) as {
      session: { status: string };
      calls: { call_id: string; outcome: string }[];
      messages: { role: string }[];
    };
    assert.equal(document.session.status, 'cancelled');
    assert.deepEqual(
      document.calls.map((call) => [call.call_id, call.outcome]),
      [['int-1', 'cancelled']],
    );
    assert.equal(document.messages.at(-1)?.role, 'tool', 'the cancelled call has its result in the transcript');
    assert.deepEqual(server.violations, []);
  },
);
