// Edit-and-resend and Retry in the view (issue 14): the host finds a message by its place among the
// user's messages, which must match the user-message events the host counts, whatever else the
// chat holds (answers, tool cards, notices).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { editedText, lastUserMessage, userOrdinal } from '../../../media/resend-target';
import { ViewModel } from '../../../media/view-model';
import { approvedWrite, event } from './events';

function chat(): ViewModel {
  const model = new ViewModel();
  model.receive({
    type: 'snapshot',
    sessionId: 'session-1',
    events: [
      event({ type: 'session-started' }),
      event({ type: 'user-message', text: 'first' }),
      event({ type: 'assistant-message', text: 'one' }),
      ...approvedWrite('call_1'),
      event({ type: 'notice', level: 'info', text: 'a background job ended' }),
      event({ type: 'user-message', text: 'second' }),
      event({ type: 'assistant-message', text: 'two' }),
      event({ type: 'session-finished', reason: 'done' }),
    ],
    approvals: [],
    questions: [],
    status: { permissionMode: 'strict', modelLabel: 'm', running: false },
  });
  return model;
}

test('issue 14: a user message’s ordinal counts only the user’s messages, in order; other items have none', () => {
  const items = chat().transcript.items;
  const users = items.filter((item) => item.kind === 'user');
  assert.deepEqual(
    users.map((item) => userOrdinal(items, item.key)),
    [0, 1],
  );
  const answer = items.find((item) => item.kind === 'assistant');
  assert.equal(userOrdinal(items, answer?.key ?? ''), undefined);
  assert.equal(userOrdinal(items, 'no-such-key'), undefined);
});

test('issue 14: Retry sends the last user message again, with its ordinal; an empty chat has nothing to retry', () => {
  const last = lastUserMessage(chat().transcript.items);
  assert.equal(last?.item.text, 'second');
  assert.equal(last?.ordinal, 1);
  assert.equal(lastUserMessage(new ViewModel().transcript.items), undefined);
});

test('issue 14: an edit emptied of text sends nothing; otherwise its text is trimmed', () => {
  assert.equal(editedText('   \n'), undefined);
  assert.equal(editedText('  fix it gently \n'), 'fix it gently');
});
