import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { questionTool } from '../../../src/tools/question';
import { createNodeHost } from '../../../src/hosts/node/host';
import type { QuestionAnswer, QuestionGateway, QuestionRequest } from '../../../src/core/host';
import { approveEverything, makeTempDir, makeToolContext, removeDir } from '../../support/tool-context';

const workspace = makeTempDir();
after(() => removeDir(workspace));

// The person at the other end, scripted: it records what it was asked and answers as told.
function person(answer: QuestionAnswer) {
  const asked: QuestionRequest[] = [];
  const gateway: QuestionGateway = {
    ask: async (request) => {
      asked.push(request);
      return answer;
    },
  };
  const host = createNodeHost({ stateDir: join(workspace, '.zuno', 'state'), approvals: approveEverything, questions: gateway });
  return { asked, context: makeToolContext({ workspaceRoot: workspace, host }) };
}

test('E1: question is UserMediated and never replayed', () => {
  assert.deepEqual(questionTool.declarationsFor({ question: 'q' }), { effect: 'UserMediated', replay: 'Never', concurrency: 'Exclusive' });
});

test('issue 3: question is unavailable where no person can answer (CLI without a TTY)', () => {
  const context = makeToolContext({ workspaceRoot: workspace });
  assert.match(questionTool.unavailableReason(context) ?? '', /No person can answer/);
  assert.equal(questionTool.unavailableReason(person({ answered: false }).context), undefined);
});

test('issue 3: question passes options to the person and returns the choice', async () => {
  const { asked, context } = person({ answered: true, selected: ['b'] });
  const result = await questionTool.run({ question: 'Which?', options: ['a', 'b'] }, context);
  assert.equal(result.output, 'Selected: b');
  assert.deepEqual(asked[0]?.options, ['a', 'b']);
  assert.equal(asked[0]?.allowFreeText, false);
});

test('issue 3: a dismissed question is an outcome the model can read', async () => {
  const result = await questionTool.run({ question: 'Proceed?' }, person({ answered: false }).context);
  assert.equal(result.status, undefined);
  assert.match(result.output, /dismissed the question without answering/);
});

test('issue 3: question refuses an answer outside the offered options, and `multiple` without options', async () => {
  await assert.rejects(
    questionTool.run({ question: 'Which?', options: ['a', 'b'] }, person({ answered: true, selected: ['z'] }).context),
    /not offered: z/,
  );
  assert.equal(questionTool.parse({ question: 'q', multiple: true }).success, false);
});
