// Black-box: `zuno exec --session ID --compact PROMPT` (issue 10 item 2). The built CLI runs as a
// child process against a scripted OpenAI server; the first run reads a file, the second compacts
// the session before its prompt, so its request carries the handoff and not the old read.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startScriptedOpenAI, type RecordedRequest, type ScriptedReply } from '../../support/scripted-openai';
import { eventsOf, execArgs, runZuno, temporaryWorkspace, useBuiltCli } from './cli';

useBuiltCli();

const isSummaryRequest = (request: RecordedRequest): boolean => (request.body?.tools ?? []).length === 0;

test('issue 10 item 2: zuno exec --compact replaces the earlier turns by the handoff; the stored history keeps them', async () => {
  const workspace = temporaryWorkspace({ 'notes.txt': 'SECRET-OLD-CONTENT\n'.repeat(100) });
  const replies: ScriptedReply[] = [
    { toolCalls: [{ id: 'r1', name: 'read', arguments: { path: 'notes.txt' } }] },
    { text: 'Read it.' },
    { text: 'Continuing.' },
  ];
  const server = await startScriptedOpenAI({
    script: (request) =>
      isSummaryRequest(request) ? { text: 'MODEL-SUMMARY: the notes were read.' } : (replies.shift() ?? { text: 'The script has ended.' }),
  });
  after(() => server.close());

  const first = await runZuno(execArgs(server.baseUrl, workspace, 'read the notes'), { cwd: workspace });
  assert.equal(first.code, 0, first.stderr);
  const sessionId = eventsOf(first.events, 'session-started')[0]?.session_id ?? '';

  const second = await runZuno([...execArgs(server.baseUrl, workspace, 'go on'), '--session', sessionId, '--compact'], { cwd: workspace });
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(server.violations, []);
  const [compacted] = eventsOf(second.events, 'context-compacted');
  assert.equal(compacted?.reason, 'manual');
  assert.ok(compacted.kept.includes('2 requests') && compacted.kept.includes('summary'), compacted.kept.join(', '));

  const last = JSON.stringify(server.chatRequests().at(-1)?.body?.messages ?? []);
  assert.match(last, /--- request 1 ---\\nread the notes/);
  assert.match(last, /MODEL-SUMMARY: the notes were read\./);
  assert.doesNotMatch(last, /SECRET-OLD-CONTENT/, 'the old read is not sent again');

  const text = await runZuno(['show', sessionId, '--workspace', workspace, '--json'], { cwd: workspace });
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /SECRET-OLD-CONTENT/, 'the stored history still has the read');
});
