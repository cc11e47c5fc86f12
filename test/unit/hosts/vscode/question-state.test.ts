import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { QuestionRequest } from '../../../../src/core/host';
import { QuestionBroker } from '../../../../src/hosts/vscode/question-state';
import type { ToWebview } from '../../../../src/webview/protocol';

function setup() {
  const posted: ToWebview[] = [];
  const broker = new QuestionBroker((message) => posted.push(message));
  return { posted, broker, errors: () => posted.flatMap((message) => (message.type === 'error' ? [message.text] : [])) };
}

const question = (extra: Partial<QuestionRequest> = {}): QuestionRequest => ({
  callId: 'q1',
  sessionId: 's1',
  question: 'Which database?',
  options: ['sqlite', 'postgres'],
  ...extra,
});

test('issue 4 Questions (S1 question): a question becomes a form and an offered choice answers it', async () => {
  const { posted, broker } = setup();
  const pending = broker.ask(question(), new AbortController().signal);
  assert.deepEqual(posted[0], {
    type: 'question',
    question: { callId: 'q1', question: 'Which database?', options: ['sqlite', 'postgres'] },
  });
  assert.deepEqual(
    broker.pending().map((open) => open.callId),
    ['q1'],
  );
  assert.deepEqual(broker.answer('q1', { answered: true, selected: ['postgres'] }), { accepted: true });
  assert.deepEqual(await pending, { answered: true, selected: ['postgres'] });
  assert.deepEqual(posted.at(-1), { type: 'question-closed', callId: 'q1' });
});

test('issue 4 Questions: answers from the untrusted view are checked against the question', async () => {
  const { broker, errors } = setup();
  const pending = broker.ask(question(), new AbortController().signal);
  assert.equal(broker.answer('q1', { answered: true, selected: ['mysql'] }).accepted, false);
  assert.match(errors().at(-1) ?? '', /Not one of the offered choices: mysql/);
  assert.equal(broker.answer('q1', { answered: true, selected: ['sqlite', 'postgres'] }).accepted, false);
  assert.equal(broker.answer('q1', { answered: true, selected: [], text: 'mysql' }).accepted, false);
  assert.equal(broker.answer('q1', { answered: true, selected: [] }).accepted, false);
  assert.equal(broker.pending().length, 1, 'the form stays open after a refused answer');
  broker.answer('q1', { answered: true, selected: ['sqlite'] });
  assert.deepEqual(await pending, { answered: true, selected: ['sqlite'] });
});

test('issue 4 Questions: multiple choices and free text are accepted when the question invites them', async () => {
  const { broker } = setup();
  const multiple = broker.ask(question({ multiple: true, allowFreeText: true }), new AbortController().signal);
  broker.answer('q1', { answered: true, selected: ['sqlite', 'postgres'], text: ' both, for tests ' });
  assert.deepEqual(await multiple, { answered: true, selected: ['sqlite', 'postgres'], text: 'both, for tests' });
  const { options: _options, ...openQuestion } = question({ callId: 'q2' });
  const open = broker.ask(openQuestion, new AbortController().signal);
  broker.answer('q2', { answered: true, selected: [], text: 'MariaDB' });
  assert.deepEqual(await open, { answered: true, selected: [], text: 'MariaDB' });
});

test('issue 3 question: dismissing, cancelling the turn, or Cancel in the UI resolve the question as unanswered', async () => {
  const { broker, posted } = setup();
  const dismissed = broker.ask(question(), new AbortController().signal);
  broker.answer('q1', { answered: false, selected: [] });
  assert.deepEqual(await dismissed, { answered: false });
  const controller = new AbortController();
  const aborted = broker.ask(question({ callId: 'q2' }), controller.signal);
  controller.abort();
  assert.deepEqual(await aborted, { answered: false });
  const cancelled = broker.ask(question({ callId: 'q3' }), new AbortController().signal);
  broker.cancelAll();
  assert.deepEqual(await cancelled, { answered: false });
  assert.deepEqual(
    posted
      .filter((message) => message.type === 'question-closed')
      .map((message) => (message.type === 'question-closed' ? message.callId : '')),
    ['q1', 'q2', 'q3'],
  );
  assert.equal(broker.answer('q1', { answered: true, selected: ['sqlite'] }).accepted, false, 'a closed question takes no answer');
});
