/**
 * execute: run a named workspace task (SPEC S3: a registered slot, not on the default surface;
 * only an agent whose allowlist names it gets it).
 *
 * What a task is depends on the host (Host.tasks): in the CLI, the workspace's package.json
 * scripts (`npm: test`) and .vscode/tasks.json shell and process tasks; in the editor, what
 * VS Code's task system offers. Running one is classified like shell (T3): `run` is
 * SideEffecting, Never, Exclusive, with the same output caps and the same timeout rule (a
 * timeout is indeterminate: the task may have done part of its work); `list` only looks.
 */
import { z } from 'zod';
import type { Declarations } from '../core/declarations';
import { ToolError } from '../core/errors';
import type { WorkspaceTask, WorkspaceTasks } from '../core/host';
import { runCaptured } from './command-run';
import { chooseSandbox, sandboxRequiredProblem } from './sandbox-choice';
import { defineTool, type ToolContext, type ToolResult } from '../core/tool';

const LISTING: Declarations = { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' };
const RUNNING: Declarations = { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' };
const MAX_TIMEOUT_MS = 24 * 3600_000;

const NO_TASKS = 'This host has no workspace tasks to run. Use shell to run the command yourself.';

const DESCRIPTION = `Run a named task the workspace defines, the way its developers run it: package.json scripts (named like "npm: test") and .vscode/tasks.json tasks (by label).

Returns "exit code N" and the output, stdout and stderr merged. Long output keeps its beginning and its end, and the full text is saved to a file. A non-zero exit code makes the call an error you can read. If the timeout is reached, the task and everything it started are stopped and the outcome is indeterminate: it may have done part of its work, and it is not re-run automatically.`;

const parameters = z
  .strictObject({
    action: z
      .enum(['list', 'run'])
      .describe('list: the tasks, with what each runs. run: run one in the workspace and wait for it to finish.'),
    name: z.string().trim().min(1).optional().describe('The task to run, as list shows it, e.g. "npm: test"'),
    timeout_ms: z
      .number()
      .int()
      .min(1000)
      .max(MAX_TIMEOUT_MS)
      .optional()
      .describe('run: timeout in milliseconds; default the configured shell.default_timeout_ms'),
  })
  .refine((args) => args.action === 'list' || args.name !== undefined, {
    message: 'run needs the name of a task; execute {"action": "list"} shows them',
    path: ['name'],
  });

function requireTasks(context: ToolContext): WorkspaceTasks {
  if (!context.host.tasks) throw new ToolError(NO_TASKS);
  return context.host.tasks;
}

const describeTask = (task: WorkspaceTask): string =>
  `- ${task.name}: \`${task.command}\` (${task.source})${task.unsupported !== undefined ? ` — cannot run here: ${task.unsupported}` : ''}`;

async function runTask(tasks: WorkspaceTasks, task: WorkspaceTask, timeoutMs: number, context: ToolContext): Promise<ToolResult> {
  const sandbox = await chooseSandbox(context, undefined);
  return runCaptured(context, {
    subject: `the task "${task.name}"`,
    timeoutMs,
    metadata: { task: task.name },
    sandbox,
    start: (onOutput) =>
      tasks.run(task, context.workspaceRoot, {
        timeoutMs,
        signal: context.signal,
        onOutput,
        ...(sandbox.plan ? { sandbox: sandbox.plan } : {}),
      }),
  });
}

export const executeTool = defineTool({
  name: 'execute',
  description: DESCRIPTION,
  parameters,
  // T3: listing only looks; running a task is a side effect like shell.
  declarations: (args) => (args.action === 'run' ? RUNNING : LISTING),
  // Rules name tasks: {"tool": "execute", "match": "npm: test", "action": "allow"}.
  subjects: async (args) => (args.name !== undefined ? [{ kind: 'name', value: args.name }] : []),
  unavailableReason: (env) => (env.host.tasks ? undefined : NO_TASKS),
  readiness: (args, env) => (args.action === 'run' ? sandboxRequiredProblem(env, false) : Promise.resolve(undefined)),
  async run(args, context) {
    const tasks = requireTasks(context);
    const listing = await tasks.list(context.workspaceRoot);
    const problems =
      listing.problems.length > 0
        ? `\nSome task definitions could not be read:\n${listing.problems.map((line) => `- ${line}`).join('\n')}`
        : '';
    if (args.action === 'list') {
      if (listing.tasks.length === 0) {
        return {
          output: `The workspace defines no tasks (no package.json scripts, no .vscode/tasks.json tasks). Use shell instead.${problems}`,
          metadata: { tasks: 0 },
        };
      }
      return {
        output: `Workspace tasks (${listing.tasks.length}):\n${listing.tasks.map(describeTask).join('\n')}${problems}`,
        metadata: { tasks: listing.tasks.length },
      };
    }
    const name = args.name ?? '';
    // Exact names only: the name is what permission rules match, so no other spelling may reach a task.
    const task = listing.tasks.find((candidate) => candidate.name === name);
    if (!task) {
      const known = listing.tasks.map((candidate) => `"${candidate.name}"`);
      throw new ToolError(
        `There is no workspace task "${name}". ` +
          (known.length > 0 ? `The tasks are: ${known.join(', ')}.` : 'The workspace defines none: use shell instead.') +
          problems,
      );
    }
    if (task.unsupported !== undefined) {
      throw new ToolError(
        `The task "${task.name}" cannot run here: ${task.unsupported}. Run what it does with shell instead: \`${task.command}\`.`,
      );
    }
    return runTask(tasks, task, args.timeout_ms ?? context.config.shell.default_timeout_ms, context);
  },
});
