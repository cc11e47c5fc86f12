// The job tool over the real BackgroundJobs registry. The delegated work is a function the test
// finishes when it chooses (the agent side is covered in test/unit/agent/delegation.test.ts).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { BackgroundJobs, type TaskOutcome } from '../../../src/core/background';
import { ToolError } from '../../../src/core/errors';
import type { ToolContext, ToolResult } from '../../../src/core/tool';
import { createNodeHost } from '../../../src/hosts/node/host';
import { jobTool } from '../../../src/tools/job';
import { approveEverything, makeTempDir, makeToolContext, removeDir } from '../../support/tool-context';

const workspace = makeTempDir('zuno-job-');
const host = createNodeHost({ stateDir: workspace, approvals: approveEverything });
const jobs = new BackgroundJobs({ host });
after(async () => {
  await jobs.dispose();
  removeDir(workspace);
});

const context = (sessionId = 'session-1', withJobs = true): ToolContext => ({
  ...makeToolContext({ workspaceRoot: workspace, host }),
  sessionId,
  ...(withJobs ? { background: jobs } : {}),
});

async function job(args: Record<string, unknown>, ctx: ToolContext = context()): Promise<ToolResult> {
  const parsed = jobTool.parse(args);
  assert.ok(parsed.success, JSON.stringify(parsed));
  return jobTool.run(parsed.args, ctx);
}

/** A delegated job whose outcome the test supplies. */
function startJob(
  goal: string,
  sessionId = 'session-1',
): { readonly id: string; finish(outcome: TaskOutcome): void; fail(error: Error): void } {
  let finish: (outcome: TaskOutcome) => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const outcome = new Promise<TaskOutcome>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const started = jobs.startTask({ sessionId, goal, agent: 'general', run: () => outcome });
  return { id: started.id, finish: (outcome) => finish(outcome), fail: (error) => fail(error) };
}

test('R1 E3: job is ReadOnly, Safe and ParallelSafe for every action; status and result need an id', () => {
  for (const action of ['list', 'status', 'result']) {
    const parsed = jobTool.parse({ action, id: 'job-1' });
    assert.ok(parsed.success);
    assert.deepEqual(jobTool.declarationsFor(parsed.args), { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' });
  }
  const missing = jobTool.parse({ action: 'result' });
  assert.equal(missing.success, false);
  if (!missing.success) assert.match(missing.error, /need the id of a delegated job/);
  assert.equal(jobTool.parse({ action: 'cancel', id: 'job-1' }).success, false);
});

test('S1: job list, status and result follow a delegated job from running to done; the read result is not announced again', async () => {
  assert.match((await job({ action: 'list' }, context('empty-session'))).output, /No delegated jobs in this session/);
  const started = startJob('Survey the code base for TODO comments\nand list them');
  assert.match(
    (await job({ action: 'list' })).output,
    new RegExp(
      `^Delegated jobs in this session \\(\\d+, \\d+ running\\):\\n(.*\\n)*- ${started.id} \\(general\\): running \\(for .*\\): "Survey the code base for TODO comments"`,
    ),
  );
  assert.match((await job({ action: 'status', id: started.id })).output, /is running .*; its result is not ready yet/);
  assert.match(
    (await job({ action: 'result', id: started.id })).output,
    /its result is not ready yet\. Goal: "Survey the code base for TODO comments"/,
  );

  started.finish({
    status: 'done',
    text: 'The delegated agent (general) finished.\nIts final answer:\n3 TODOs',
    childSessionId: 'child-1',
  });
  await jobs.tasks('session-1').find((candidate) => candidate.id === started.id)?.finished;
  const status = await job({ action: 'status', id: started.id });
  assert.match(status.output, new RegExp(`^${started.id} \\(general\\) done after .*\\. Read what it did with job`));
  const result = await job({ action: 'result', id: started.id });
  assert.match(result.output, /done after .*\nThe delegated agent \(general\) finished\.\nIts final answer:\n3 TODOs$/);
  assert.equal(result.metadata?.childSessionId, 'child-1');
  assert.equal(jobs.takeFinishedNotices('session-1'), undefined);
});

test('S1: a delegated job that throws is failed, with the error as its result; a finished job is announced once', async () => {
  const started = startJob('explode', 'session-fail');
  started.fail(new Error('the model server is gone'));
  await jobs.tasks('session-fail')[0]?.finished;
  assert.match(
    jobs.takeFinishedNotices('session-fail') ?? '',
    new RegExp(`Delegated job ${started.id} \\(general: "explode"\\) ended: failed after`),
  );
  assert.equal(jobs.takeFinishedNotices('session-fail'), undefined);
  assert.match(
    (await job({ action: 'result', id: started.id }, context('session-fail'))).output,
    /failed after .*\nThe delegated job failed: the model server is gone/,
  );
});

test('S1: an unknown job id is an error listing the known ones; a bg id says which tool to use; no registry means unavailable', async () => {
  const started = startJob('known', 'session-ids');
  await assert.rejects(
    job({ action: 'status', id: 'job-404' }, context('session-ids')),
    (error: unknown) =>
      error instanceof ToolError &&
      new RegExp(`no delegated job "job-404".*known ones are: ${started.id} \\(running\\)`).test(error.message),
  );
  await assert.rejects(
    job({ action: 'status', id: started.id }, context('another-session')),
    (error: unknown) => error instanceof ToolError && /None was started/.test(error.message),
  );
  assert.match(jobTool.unavailableReason(context('session-ids', false)) ?? '', /not available in this host/);
  started.finish({ status: 'done', text: 'ok' });
});

test('S1: dispose cancels running delegated jobs through their signal', async () => {
  const local = new BackgroundJobs({ host });
  let sawAbort = false;
  const started = local.startTask({
    sessionId: 's',
    goal: 'wait for the end',
    agent: 'general',
    run: (signal) =>
      new Promise<TaskOutcome>((resolve) => {
        signal.addEventListener('abort', () => {
          sawAbort = true;
          resolve({ status: 'cancelled', text: 'stopped' });
        });
      }),
  });
  await local.dispose();
  assert.equal(sawAbort, true);
  assert.equal(started.status, 'cancelled');
  assert.throws(
    () => local.startTask({ sessionId: 's', goal: 'late', agent: 'general', run: async () => ({ status: 'done', text: '' }) }),
    ToolError,
  );
});
