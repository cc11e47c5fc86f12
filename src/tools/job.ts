/**
 * job: inspect the session's delegated background jobs, started with `task {background: true}`
 * (SPEC S1, E3 "job inspection", R1 "job status"). Every action only looks: ReadOnly, Safe,
 * ParallelSafe. A job cannot be cancelled from here; it ends at its step limit, or when the
 * session ends.
 */
import { z } from 'zod';
import { formatDuration, type BackgroundTask } from '../core/background';
import type { Declarations } from '../core/declarations';
import { defineTool } from '../core/tool';
import { backgroundUnavailable, requireBackground } from './bg';

const DECLARATIONS: Declarations = { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' };

const DESCRIPTION = `Inspect delegated jobs of this session, which you start with task {"goal": "...", "background": true}.

You are also told when a delegated job ends, before your next step.`;

const parameters = z
  .strictObject({
    action: z
      .enum(['list', 'status', 'result'])
      .describe(
        "list: every delegated job with its status. status: one job's status and goal. result: once it has ended, the agent's answer and what it changed (its status while it runs).",
      ),
    id: z.string().trim().min(1).optional().describe('The job, e.g. "job-1"; needed for status and result'),
  })
  .refine((args) => args.action === 'list' || args.id !== undefined, {
    message: 'status and result need the id of a delegated job; job {"action": "list"} shows them',
    path: ['id'],
  });

function statusLine(job: BackgroundTask, now: number): string {
  const elapsed = formatDuration(job.elapsedMs(now));
  return job.running ? `running (for ${elapsed})` : `${job.status} after ${elapsed}`;
}

export const jobTool = defineTool({
  name: 'job',
  description: DESCRIPTION,
  parameters,
  declarations: DECLARATIONS,
  unavailableReason: backgroundUnavailable,
  async run(args, context) {
    const jobs = requireBackground(context);
    const now = Date.now();
    if (args.action === 'list') {
      const tasks = jobs.tasks(context.sessionId);
      if (tasks.length === 0) {
        return {
          output: 'No delegated jobs in this session. Start one with task {"goal": "...", "background": true}.',
          metadata: { jobs: 0 },
        };
      }
      const lines = tasks.map((job) => `- ${job.id} (${job.agent}): ${statusLine(job, now)}: "${job.shortGoal}"`);
      const running = tasks.filter((job) => job.running).length;
      return {
        output: `Delegated jobs in this session (${tasks.length}, ${running} running):\n${lines.join('\n')}`,
        metadata: { jobs: tasks.length, running },
      };
    }
    // The schema requires an id for the other actions.
    const job = jobs.task(context.sessionId, args.id ?? '');
    const result = job.result;
    const metadata = {
      id: job.id,
      status: job.status,
      ...(result?.childSessionId !== undefined ? { childSessionId: result.childSessionId } : {}),
    };
    if (!result) {
      return {
        output:
          `${job.id} (${job.agent}) is ${statusLine(job, now)}; its result is not ready yet. Goal: "${job.shortGoal}". ` +
          'Do other work meanwhile: you will be told when it ends.',
        metadata,
      };
    }
    if (args.action === 'status') {
      return {
        output: `${job.id} (${job.agent}) ${statusLine(job, now)}. Goal: "${job.shortGoal}". Read what it did with job {"action": "result", "id": "${job.id}"}.`,
        metadata,
      };
    }
    job.reported = true;
    return { output: `${job.id} (${job.agent}) ${statusLine(job, now)}.\n${result.text}`, metadata };
  },
});
