// The CLI contract's parsing, and how a terminal answers approvals and questions (issue 2 §11;
// SPEC E1: a fresh approval each time, with a diff of the proposed change).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCommandLine, UsageError } from '../../../src/cli/args';
import { UsageTally } from '../../../src/cli/progress';
import {
  changeDiff,
  fixedApprovals,
  noTerminalApprovals,
  terminalApprovals,
  terminalQuestions,
  type AskLine,
} from '../../../src/cli/prompts';
import type { ApprovalRequest } from '../../../src/core/host';

const signal = new AbortController().signal;

test('issue 2 §11: exec takes every documented flag; several words make one prompt', () => {
  const command = parseCommandLine([
    'exec',
    '--workspace',
    'ws',
    '--config',
    'c.json',
    '--state-dir',
    'st',
    '--base-url',
    'http://127.0.0.1:1234/v1',
    '--model',
    'qwen',
    '--api-key-env',
    'KEY',
    '--approve',
    'deny',
    '--session',
    'abc',
    '--json',
    'fix',
    'the bug',
  ]);
  assert.deepEqual(command, {
    command: 'exec',
    prompt: 'fix the bug',
    json: true,
    workspace: 'ws',
    config: 'c.json',
    stateDir: 'st',
    baseUrl: 'http://127.0.0.1:1234/v1',
    model: 'qwen',
    apiKeyEnv: 'KEY',
    approve: 'deny',
    session: 'abc',
  });
  assert.deepEqual(parseCommandLine(['exec', 'hi']), { command: 'exec', prompt: 'hi', json: false });
});

test('issue 2 §11: show takes a session id and the location flags', () => {
  assert.deepEqual(parseCommandLine(['show', 'id-1', '--state-dir', 's', '--json']), {
    command: 'show',
    sessionId: 'id-1',
    json: true,
    stateDir: 's',
  });
  assert.deepEqual(parseCommandLine([]), { command: 'help' });
  assert.deepEqual(parseCommandLine(['exec', '--help']), { command: 'help' });
  assert.deepEqual(parseCommandLine(['-V']), { command: 'version' });
});

test('issue 2 §11: a command line that cannot run is a UsageError naming the problem', () => {
  const cases: [string[], RegExp][] = [
    [['launch'], /Unknown command "launch"/],
    [['exec'], /needs a PROMPT/],
    [['exec', '--model'], /--model/],
    [['exec', '--approve', 'yes', 'x'], /--approve must be "allow" or "deny" \(got "yes"\)/],
    [['exec', '--base-url', 'localhost:11434', 'x'], /--base-url must be an http\(s\) URL/],
    [['exec', '--model', ' ', 'x'], /--model needs a value/],
    [['show'], /needs a SESSION_ID/],
    [['show', 'a', 'b'], /one SESSION_ID/],
    [['show', 'a', '--model', 'm'], /--model/],
  ];
  for (const [argv, message] of cases) {
    assert.throws(
      () => parseCommandLine(argv),
      (error: unknown) => error instanceof UsageError && message.test(error.message),
      argv.join(' '),
    );
  }
});

const writeRequest: ApprovalRequest = {
  callId: 'w1',
  sessionId: 's',
  tool: 'write',
  arguments: { path: 'a.txt', content: 'new\n' },
  declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
  subject: '/ws/a.txt',
  reason: 'strict mode: a SideEffecting call needs a fresh approval',
  changes: [{ path: '/ws/a.txt', kind: 'update', before: 'old\n', after: 'new\n' }],
};

/** A person at the terminal, answering from a script. */
function person(answers: readonly string[]): { ask: AskLine; prompts: string[] } {
  const queue = [...answers];
  const prompts: string[] = [];
  return {
    prompts,
    ask: async (prompt) => {
      prompts.push(prompt);
      return queue.shift() ?? '';
    },
  };
}

test('E1: the terminal prompt shows the subject and a unified diff, and y approves', async () => {
  const shown: string[] = [];
  const { ask } = person(['y']);
  const decision = await terminalApprovals(ask, (text) => shown.push(text)).request(writeRequest, signal);
  assert.deepEqual(decision, { approved: true });
  const text = shown.join('');
  assert.match(text, /Approval needed: write/);
  assert.match(text, /\/ws\/a\.txt/);
  assert.match(text, /--- \/ws\/a\.txt\n\+\+\+ \/ws\/a\.txt\n@@ -1,1 \+1,1 @@\n-old\n\+new/);
});

test('E1: anything but y denies, with the reason the person typed for the model', async () => {
  const { ask, prompts } = person(['n', 'use apply_patch instead']);
  const decision = await terminalApprovals(ask, () => undefined).request(writeRequest, signal);
  assert.deepEqual(decision, { approved: false, reason: 'use apply_patch instead' });
  assert.equal(prompts.length, 2);
  const silent = await terminalApprovals(person(['', '']).ask, () => undefined).request(writeRequest, signal);
  assert.deepEqual(silent, { approved: false });
});

test('E1: --approve answers every request; without a terminal the denial says how to allow', async () => {
  assert.deepEqual(await fixedApprovals('allow').request(writeRequest, signal), { approved: true });
  assert.deepEqual(await fixedApprovals('deny').request(writeRequest, signal), { approved: false, reason: 'Denied by --approve deny.' });
  const denied = await noTerminalApprovals().request(writeRequest, signal);
  assert.equal(denied.approved, false);
  assert.match(denied.approved ? '' : (denied.reason ?? ''), /--approve allow/);
});

test('E1: a new file diffs against /dev/null', () => {
  const diff = changeDiff({ path: '/ws/new.txt', kind: 'create', before: undefined, after: 'hello\n' });
  assert.match(diff, /--- \/dev\/null\n\+\+\+ \/ws\/new\.txt\n@@ -0,0 \+1,1 @@\n\+hello/);
});

test('S1 question: a terminal answers by number, re-asks on a bad choice, and an empty line dismisses', async () => {
  const { ask, prompts } = person(['7', '2']);
  const written: string[] = [];
  const questions = terminalQuestions(ask, (text) => written.push(text));
  const answer = await questions.ask({ callId: 'q', sessionId: 's', question: 'Which database?', options: ['sqlite', 'postgres'] }, signal);
  assert.deepEqual(answer, { answered: true, selected: ['postgres'] });
  assert.equal(prompts.length, 2);
  assert.match(written.join(''), /1\. sqlite\n {2}2\. postgres/);
  assert.match(written.join(''), /from 1 to 2/);

  const several = await terminalQuestions(person(['1, 2']).ask, () => undefined).ask(
    { callId: 'q', sessionId: 's', question: 'Which?', options: ['a', 'b'], multiple: true },
    signal,
  );
  assert.deepEqual(several, { answered: true, selected: ['a', 'b'] });
  const free = await terminalQuestions(person(['something else']).ask, () => undefined).ask(
    { callId: 'q', sessionId: 's', question: 'Name?', allowFreeText: true },
    signal,
  );
  assert.deepEqual(free, { answered: true, selected: [], text: 'something else' });
  const dismissed = await terminalQuestions(person(['']).ask, () => undefined).ask(
    { callId: 'q', sessionId: 's', question: 'Name?' },
    signal,
  );
  assert.deepEqual(dismissed, { answered: false });
});

test('issue 10 item 2: exec --compact is parsed, and absent by default', () => {
  const parsed = parseCommandLine(['exec', '--session', 's1', '--compact', 'go on']);
  assert.equal(parsed.command === 'exec' && parsed.compact, true);
  const plain = parseCommandLine(['exec', 'go on']);
  assert.equal(plain.command === 'exec' && 'compact' in plain, false);
});

test('issue 10 item 7: the usage line adds the cost when model.prices priced the requests', () => {
  const tally = new UsageTally();
  const usage = (input: number, output: number, cost?: number) =>
    ({
      type: 'usage',
      input_tokens: input,
      output_tokens: output,
      context_window: 24_000,
      context_window_source: 'server',
      ts: 1,
      session_id: 's',
      ...(cost !== undefined ? { cost_usd: cost } : {}),
    }) as const;
  tally.add(usage(1000, 10, 0.003));
  tally.add(usage(2000, 20, 0.0061));
  assert.equal(
    tally.line(),
    'zuno: usage: 2 model requests, 3,000 input tokens, 30 output, $0.0091 (model.prices); context 2,020 of 24,000 tokens\n',
  );
  const unpriced = new UsageTally();
  unpriced.add(usage(1000, 10));
  assert.doesNotMatch(unpriced.line() ?? '', /\$/);
});
