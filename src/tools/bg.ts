/**
 * bg: inspect or cancel the session's background commands (SPEC S1, T3). Each call is classified
 * from its validated arguments: `list`, `output` and `wait` only look (ReadOnly, Safe,
 * ParallelSafe), while `cancel` kills a process group (SideEffecting, Never, Exclusive).
 *
 * Background commands are started by `shell {background: true}` (see `startBackgroundCommand`
 * below) and kept by the runtime's BackgroundJobs registry.
 */
import { z } from 'zod';
import { formatDuration, type BackgroundCommand, type BackgroundJobs } from '../core/background';
import type { Declarations } from '../core/declarations';
import { ToolError } from '../core/errors';
import { defineTool, type CallEnvironment, type ToolContext, type ToolResult } from '../core/tool';
import { describePlan } from '../core/sandbox';
import type { SandboxChoice } from './sandbox-choice';

const INSPECTION: Declarations = { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' };
const CANCELLATION: Declarations = { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' };

const DEFAULT_PAGE_LINES = 200;
const DEFAULT_WAIT_MS = 30_000;
const MAX_WAIT_MS = 3_600_000;
/** Lines of output shown with the result of `wait` and `cancel`. */
const TAIL_LINES = 20;
/** Room kept under `tool_output.max_bytes` for the header and the paging note. */
const NOTE_BYTES = 512;
/** The environment of background commands, as for foreground ones: no pager waits for a key. */
export const COMMAND_ENVIRONMENT: Readonly<Record<string, string>> = { PAGER: 'cat', GIT_PAGER: 'cat' };

export const NO_BACKGROUND =
  'Background commands are not available in this host, so nothing runs in the background here. Run the command in the foreground (shell without "background").';

const DESCRIPTION = `Inspect or cancel background commands of this session, which you start with shell {"command": "...", "background": true}. A command's status is running, exited, killed or timed out; its output is saved in full, and a page of it starts with "lines a–b of N so far" and whether it still runs.

You are also told when a background command ends, before your next step.`;

const parameters = z
  .strictObject({
    action: z
      .enum(['list', 'output', 'wait', 'cancel'])
      .describe(
        `list: every background command with its status and output size. output: lines of its saved output; without offset the last ones. wait: until it ends or timeout_ms passes, whichever comes first, with the last lines. cancel: kill it and every process it started.`,
      ),
    id: z.string().trim().min(1).optional().describe('The background command, e.g. "bg-1"; needed for output, wait and cancel'),
    offset: z.number().int().min(1).optional().describe('output: the 1-based line to page from; default the last lines'),
    limit: z.number().int().min(1).max(2000).optional().describe(`output: how many lines; default ${DEFAULT_PAGE_LINES}`),
    timeout_ms: z
      .number()
      .int()
      .min(0)
      .max(MAX_WAIT_MS)
      .optional()
      .describe(`wait: the longest wait in milliseconds; default ${DEFAULT_WAIT_MS}`),
  })
  .refine((args) => args.action === 'list' || args.id !== undefined, {
    message: 'output, wait and cancel need the id of a background command; bg {"action": "list"} shows them',
    path: ['id'],
  });
type BgArgs = z.output<typeof parameters>;

export const backgroundUnavailable = (env: CallEnvironment): string | undefined => (env.background ? undefined : NO_BACKGROUND);

export function requireBackground(context: ToolContext): BackgroundJobs {
  if (!context.background) throw new ToolError(NO_BACKGROUND);
  return context.background;
}

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** `exited with code 0 after 3.1 s`, `still running (for 12.0 s)`. */
function statusLine(job: BackgroundCommand, now: number): string {
  const elapsed = formatDuration(job.elapsedMs(now));
  return job.running ? `still running (for ${elapsed})` : `${job.describeStatus()} after ${elapsed}`;
}

/** The last lines of output, from memory, as a block. */
function tailBlock(job: BackgroundCommand): string {
  const total = job.outputLines;
  if (total === 0) return '(no output yet)';
  const tail = job.tail(TAIL_LINES);
  const shown = tail === '' ? 0 : tail.split('\n').length;
  const heading =
    shown < total
      ? `Last ${plural(shown, 'line')} of ${total} (bg {"action": "output", "id": "${job.id}"} pages through all of them):`
      : 'Output:';
  return `${heading}\n${tail}`;
}

/** Marks the job as reported when the result shows how it ended, so no notice repeats it. */
function shown(job: BackgroundCommand): void {
  if (!job.running) job.reported = true;
}

function list(jobs: BackgroundJobs, context: ToolContext): ToolResult {
  const commands = jobs.commands(context.sessionId);
  if (commands.length === 0) {
    return {
      output: 'No background commands in this session. Start one with shell {"command": "...", "background": true}.',
      metadata: { commands: 0 },
    };
  }
  const now = Date.now();
  const lines = commands.map((job) => {
    shown(job);
    return `- ${job.id}: ${statusLine(job, now)}, ${plural(job.outputLines, 'line')} of output: \`${job.command}\``;
  });
  const running = commands.filter((job) => job.running).length;
  return {
    output: `Background commands in this session (${commands.length}, ${running} running):\n${lines.join('\n')}`,
    metadata: { commands: commands.length, running },
  };
}

async function output(jobs: BackgroundJobs, job: BackgroundCommand, args: BgArgs, context: ToolContext): Promise<ToolResult> {
  const limit = args.limit ?? DEFAULT_PAGE_LINES;
  const maxBytes = Math.max(1024, context.config.tool_output.max_bytes - NOTE_BYTES);
  const page = await jobs.readOutput(
    job,
    { ...(args.offset !== undefined ? { offset: args.offset } : {}), limit, maxBytes },
    context.signal,
  );
  const state = statusLine(job, Date.now());
  shown(job);
  const metadata = { id: job.id, status: job.status, first: page.first, last: page.last, total: page.total, outputFile: job.outputPath };
  const damaged = job.outputError ? `\nNote: part of the output could not be saved (${job.outputError}).` : '';
  if (page.total === 0) return { output: `${job.id} (\`${job.command}\`) has no output yet; it is ${state}.${damaged}`, metadata };
  const notes: string[] = [];
  if (page.first > 1) notes.push(`Earlier lines: offset=1 to ${page.first - 1}.`);
  if (page.last < page.total)
    notes.push(`Continue with offset=${page.last + 1}${page.cutBySize ? ' (this page was cut to stay within the output size cap)' : ''}.`);
  if (job.running) notes.push('More output may follow.');
  return {
    output:
      `${job.id} (\`${job.command}\`), ${state}: lines ${page.first}–${page.last} of ${page.total}${job.running ? ' so far' : ''}.\n` +
      `${page.lines.join('\n')}\n${notes.length > 0 ? `[${notes.join(' ')}]` : ''}${damaged}`,
    metadata,
  };
}

async function wait(jobs: BackgroundJobs, job: BackgroundCommand, args: BgArgs, context: ToolContext): Promise<ToolResult> {
  const timeoutMs = args.timeout_ms ?? DEFAULT_WAIT_MS;
  const wasRunning = job.running;
  const ended = await jobs.wait(job, timeoutMs, context.signal);
  // A cancelled call is recorded by the scheduler; the command itself goes on.
  context.signal.throwIfAborted();
  const metadata = { id: job.id, status: job.status, ended, exitCode: job.exitCode ?? null };
  if (!ended) {
    return {
      output:
        `The timeout of ${formatDuration(timeoutMs)} passed first: ${job.id} (\`${job.command}\`) is ${statusLine(job, Date.now())}. ` +
        'Wait again, look at its output, do other work meanwhile (you will be told when it ends), or cancel it.\n' +
        tailBlock(job),
      metadata,
    };
  }
  shown(job);
  const why = wasRunning ? ` (it ended before the ${formatDuration(timeoutMs)} timeout)` : ' (it had already ended)';
  return { output: `${job.id} (\`${job.command}\`) ${statusLine(job, Date.now())}${why}.\n${tailBlock(job)}`, metadata };
}

async function cancel(jobs: BackgroundJobs, job: BackgroundCommand): Promise<ToolResult> {
  const stopped = await jobs.cancel(job, 'cancelled with bg');
  shown(job);
  const metadata = { id: job.id, status: job.status, cancelled: stopped };
  if (!stopped) {
    return {
      output: `${job.id} (\`${job.command}\`) had already ended (${job.describeStatus()}); nothing was cancelled.\n${tailBlock(job)}`,
      metadata,
    };
  }
  return {
    output:
      `${job.id} (\`${job.command}\`) was stopped together with every process it started, after ${formatDuration(job.elapsedMs(Date.now()))}. ` +
      `Whatever it was doing may be half done: check before relying on it.\n${tailBlock(job)}`,
    metadata,
  };
}

export const bgTool = defineTool({
  name: 'bg',
  description: DESCRIPTION,
  parameters,
  // T3: inspecting is read-only and may be repeated; cancelling kills processes.
  declarations: (args) => (args.action === 'cancel' ? CANCELLATION : INSPECTION),
  subjects: async (args) => (args.id !== undefined ? [{ kind: 'name', value: args.id }] : []),
  unavailableReason: backgroundUnavailable,
  async run(args, context) {
    const jobs = requireBackground(context);
    if (args.action === 'list') return list(jobs, context);
    // The schema requires an id for the other actions.
    const job = jobs.command(context.sessionId, args.id ?? '');
    switch (args.action) {
      case 'output':
        return output(jobs, job, args, context);
      case 'wait':
        return wait(jobs, job, args, context);
      case 'cancel':
        return cancel(jobs, job);
    }
  },
});

/** `shell {background: true}`: starts the command off the foreground path and returns its id at once. */
export async function startBackgroundCommand(
  args: { readonly command: string; readonly timeout_ms?: number | undefined },
  context: ToolContext,
  sandbox: SandboxChoice,
): Promise<ToolResult> {
  const jobs = requireBackground(context);
  const job = await jobs.startCommand({
    sessionId: context.sessionId,
    command: args.command,
    cwd: context.workspaceRoot,
    env: COMMAND_ENVIRONMENT,
    ...(sandbox.plan ? { sandbox: sandbox.plan } : {}),
    maxOutputBytes: context.config.tool_output.max_spill_bytes,
    ...(args.timeout_ms !== undefined ? { timeoutMs: args.timeout_ms } : {}),
  });
  const limit =
    args.timeout_ms !== undefined
      ? `it is killed after ${formatDuration(args.timeout_ms)}`
      : 'it has no timeout: it runs until it exits, you cancel it, or the session ends';
  return {
    output:
      (sandbox.unsandboxed !== undefined ? `${sandbox.unsandboxed}\n` : '') +
      `Started background command ${job.id}: \`${job.command}\` (in its own process group; ${limit}). ` +
      'It runs off the foreground path, and you will be told when it ends.\n' +
      `Follow it with bg {"action": "output", "id": "${job.id}"} (its latest lines) or bg {"action": "wait", "id": "${job.id}", "timeout_ms": 30000} (until it ends); ` +
      `stop it with bg {"action": "cancel", "id": "${job.id}"}. Its full output is saved at ${job.outputPath}.`,
    metadata: {
      id: job.id,
      background: true,
      outputFile: job.outputPath,
      sandbox: sandbox.plan ? describePlan(sandbox.plan) : 'off',
      ...(sandbox.notice !== undefined ? { sandboxNotice: sandbox.notice } : {}),
    },
  };
}
