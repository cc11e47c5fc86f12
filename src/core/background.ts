/**
 * Background work of one runtime (SPEC S1 `bg` and `job`, C1 IsolatedBackground): commands
 * started with `shell {background: true}` and delegated agents started with
 * `task {background: true}`. The call that starts one returns at once; the work goes on off the
 * foreground path and is inspected later by id.
 *
 * - Every job belongs to the session that started it: a session sees and cancels only its own
 *   jobs, and the ids it is told about on a mistake are only its own.
 * - A command's output goes in full to a spill file as it arrives. Memory holds only counters
 *   and a short tail, however much the command prints; `readOutput` pages the file by lines.
 * - A finished job is announced once to its session, before the next model request
 *   (`takeFinishedNotices`), unless a tool already showed the model how it ended.
 * - `endSession` and `dispose` kill what is still running, so no process outlives the session
 *   or the runtime that started it.
 *
 * The registry reaches processes and files only through the Host, like everything in the core.
 */
import type { SandboxPlan } from './sandbox';
import { ToolError } from './errors';
import type { Host, ProcessResult, SpillFile } from './host';

export type CommandStatus = 'running' | 'exited' | 'killed' | 'timed out' | 'failed to start';
export type TaskStatus = 'running' | 'done' | 'failed' | 'cancelled';

/** The end of a command's output kept in memory, for notices and quick looks. */
const TAIL_CHARS = 4096;
/** Longer lines are cut when output is paged, so one minified line cannot fill a page. */
const MAX_LINE_CHARS = 2000;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function countNewlines(text: string): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count++;
  return count;
}

/** `12.3 s`, `4 min 2 s`: durations in notices, for people and models alike. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** What both kinds of job share: identity, owner, lifetime, and whether the session was told how it ended. */
abstract class BackgroundJob {
  /** Aborting it stops the job: the command's process group is killed, the child agent is cancelled. */
  protected readonly controller = new AbortController();
  protected finishTime: number | undefined;
  /** True once the session was told how the job ended, by a notice or by a tool result. */
  reported = false;
  /** Resolves when the job has ended and everything it owns is closed. Never rejects. */
  abstract readonly finished: Promise<void>;

  constructor(
    readonly id: string,
    readonly sessionId: string,
    readonly startedAt: number,
  ) {}

  get running(): boolean {
    return this.finishTime === undefined;
  }

  get finishedAt(): number | undefined {
    return this.finishTime;
  }

  /** How long it ran, or has been running so far. */
  elapsedMs(now: number): number {
    return (this.finishTime ?? now) - this.startedAt;
  }

  /** Asks the job to stop; `finished` resolves once it has. */
  stop(reason: string): void {
    this.controller.abort(new Error(reason));
  }

  /** One line for a notice: what ended, how, and how to look at it. */
  abstract noticeLine(): string;
}

/** A command started with `shell {background: true}`. */
export class BackgroundCommand extends BackgroundJob {
  readonly kind = 'command';
  readonly finished: Promise<void>;
  private state: CommandStatus = 'running';
  private result: ProcessResult | undefined;
  private failure: string | undefined;
  private spillFailure: string | undefined;
  private bytes = 0;
  private newlines = 0;
  private lastChar = '';
  private tailText = '';

  constructor(
    id: string,
    sessionId: string,
    startedAt: number,
    readonly command: string,
    /** Where the whole output is, as it arrives. */
    readonly outputPath: string,
    readonly timeoutMs: number | undefined,
    start: (job: BackgroundCommand, signal: AbortSignal) => Promise<ProcessResult>,
    spill: SpillFile,
    now: () => number,
  ) {
    super(id, sessionId, startedAt);
    this.finished = start(this, this.controller.signal)
      .then(
        (result) => {
          this.result = result;
          this.state = result.timedOut ? 'timed out' : result.cancelled || result.exitCode === null ? 'killed' : 'exited';
        },
        (error: unknown) => {
          this.failure = messageOf(error);
          this.state = 'failed to start';
        },
      )
      .then(() => spill.close())
      .catch((error: unknown) => {
        this.spillFailure ??= messageOf(error);
      })
      .finally(() => {
        this.finishTime = now();
      });
  }

  get status(): CommandStatus {
    // The status changes before the spill file is closed; `running` lasts until both are done.
    return this.running ? 'running' : this.state;
  }

  get exitCode(): number | null | undefined {
    return this.result?.exitCode;
  }

  get signal(): string | null | undefined {
    return this.result?.signal;
  }

  /** Why the command could not be started, when it could not. */
  get startError(): string | undefined {
    return this.failure;
  }

  /** Why the output file is incomplete, when it is. */
  get outputError(): string | undefined {
    return this.spillFailure;
  }

  get outputBytes(): number {
    return this.bytes;
  }

  /** Lines so far; a last line without its newline counts. */
  get outputLines(): number {
    return this.newlines + (this.bytes > 0 && this.lastChar !== '\n' ? 1 : 0);
  }

  /** Up to the last `lines` lines of output, from memory. */
  tail(lines: number): string {
    const parts = this.tailText.split('\n');
    if (parts[parts.length - 1] === '') parts.pop();
    // The first kept piece may be the end of a longer line: drop it when the tail was trimmed.
    if (this.bytes > this.tailText.length && parts.length > 1) parts.shift();
    return parts.slice(-lines).join('\n');
  }

  /** `exited with code 0`, `killed by SIGTERM`, `timed out after 5.0 s`, `still running`. */
  describeStatus(): string {
    switch (this.status) {
      case 'running':
        return 'still running';
      case 'exited':
        return `exited with code ${this.exitCode ?? 'unknown'}`;
      case 'killed':
        return `killed${this.signal ? ` by ${this.signal}` : ''}`;
      case 'timed out':
        return `timed out after ${formatDuration(this.timeoutMs ?? 0)} and was killed`;
      case 'failed to start':
        return `could not be started (${this.failure ?? 'unknown error'})`;
    }
  }

  noticeLine(): string {
    const lines = this.outputLines;
    return (
      `Background command ${this.id} (\`${this.command}\`) ${this.describeStatus()} after ${formatDuration(this.elapsedMs(this.finishTime ?? this.startedAt))}` +
      ` with ${lines} line${lines === 1 ? '' : 's'} of output. See it with bg {"action": "output", "id": "${this.id}"}.`
    );
  }

  /** Called by the process runner for each decoded chunk. */
  receive(chunk: string, spill: SpillFile): void {
    this.bytes += Buffer.byteLength(chunk, 'utf8');
    this.newlines += countNewlines(chunk);
    this.lastChar = chunk[chunk.length - 1] ?? this.lastChar;
    this.tailText = (this.tailText + chunk).slice(-TAIL_CHARS);
    if (this.spillFailure !== undefined) return;
    try {
      spill.write(chunk);
    } catch (error) {
      this.spillFailure = messageOf(error);
    }
  }
}

/** How a delegated job ended, as its runner reports it. */
export interface TaskOutcome {
  readonly status: Exclude<TaskStatus, 'running'>;
  /** The whole result for the model: the child's answer and what it changed, or why it failed. */
  readonly text: string;
  readonly childSessionId?: string;
}

/** A delegated agent started with `task {background: true}`. */
export class BackgroundTask extends BackgroundJob {
  readonly kind = 'task';
  readonly finished: Promise<void>;
  private outcome: TaskOutcome | undefined;

  constructor(
    id: string,
    sessionId: string,
    startedAt: number,
    readonly goal: string,
    readonly agent: string,
    run: (signal: AbortSignal) => Promise<TaskOutcome>,
    now: () => number,
  ) {
    super(id, sessionId, startedAt);
    let running: Promise<TaskOutcome>;
    try {
      // Started at once, so a stop that comes right after finds its abort listener in place.
      running = run(this.controller.signal);
    } catch (error) {
      running = Promise.reject(error);
    }
    this.finished = running
      .then(
        (outcome) => {
          this.outcome = outcome;
        },
        (error: unknown) => {
          this.outcome = this.controller.signal.aborted
            ? { status: 'cancelled', text: `The delegated job was cancelled (${messageOf(this.controller.signal.reason)}).` }
            : { status: 'failed', text: `The delegated job failed: ${messageOf(error)}` };
        },
      )
      .finally(() => {
        this.finishTime = now();
      });
  }

  get status(): TaskStatus {
    return this.running ? 'running' : (this.outcome?.status ?? 'failed');
  }

  /** The final result, once the job has ended. */
  get result(): TaskOutcome | undefined {
    return this.running ? undefined : this.outcome;
  }

  /** The goal cut to one short line, for lists and notices. */
  get shortGoal(): string {
    const line = this.goal.split('\n')[0] ?? '';
    return line.length > 80 ? `${line.slice(0, 79)}…` : line;
  }

  noticeLine(): string {
    return (
      `Delegated job ${this.id} (${this.agent}: "${this.shortGoal}") ended: ${this.status} after ${formatDuration(this.elapsedMs(this.finishTime ?? this.startedAt))}.` +
      ` Read its result with job {"action": "result", "id": "${this.id}"}.`
    );
  }
}

export interface CommandStart {
  readonly sessionId: string;
  /** A shell command line, run with /bin/sh -c in its own process group. */
  readonly command: string;
  readonly cwd: string;
  /** Kill the group after this long; absent: run until it exits, is cancelled, or the session ends. */
  readonly timeoutMs?: number;
  readonly env?: Readonly<Record<string, string>>;
  /** The sandbox it runs in, as foreground commands do (issue 12). */
  readonly sandbox?: SandboxPlan;
  /** Where its output file stops growing, keeping head and tail (`tool_output.max_spill_bytes`). */
  readonly maxOutputBytes?: number;
}

export interface TaskStart {
  readonly sessionId: string;
  readonly goal: string;
  /** The agent's name, for lists and notices. */
  readonly agent: string;
  /** Runs the child agent; its signal aborts when the job is stopped. */
  readonly run: (signal: AbortSignal) => Promise<TaskOutcome>;
}

/** One page of a command's output. */
export interface OutputPage {
  /** The lines, each without its newline. */
  readonly lines: readonly string[];
  /** 1-based number of the first line shown; 0 when there is no output. */
  readonly first: number;
  /** Number of the last line shown. */
  readonly last: number;
  /** Lines in the output when the page was read. */
  readonly total: number;
  /** True when the byte budget ended the page before `limit` lines. */
  readonly cutBySize: boolean;
}

export interface BackgroundJobsOptions {
  readonly host: Host;
  readonly now?: () => number;
}

export class BackgroundJobs {
  private readonly host: Host;
  private readonly now: () => number;
  private readonly jobs = new Map<string, BackgroundCommand | BackgroundTask>();
  private commandCount = 0;
  private taskCount = 0;
  private disposed = false;

  constructor(options: BackgroundJobsOptions) {
    this.host = options.host;
    this.now = options.now ?? Date.now;
  }

  /** Starts a command off the foreground path; resolves once it runs and its output file is open. */
  async startCommand(start: CommandStart): Promise<BackgroundCommand> {
    this.assertOpen();
    const id = `bg-${++this.commandCount}`;
    const spill = await this.host.createSpill(`${id}-${start.sessionId}.log`, start.maxOutputBytes);
    if (this.disposed) {
      await spill.close();
      this.assertOpen();
    }
    const processes = this.host.processes;
    const job = new BackgroundCommand(
      id,
      start.sessionId,
      this.now(),
      start.command,
      spill.path,
      start.timeoutMs,
      (self, signal) =>
        processes.run({
          command: start.command,
          shell: true,
          mergeStderr: true,
          cwd: start.cwd,
          ...(start.env ? { env: start.env } : {}),
          ...(start.sandbox ? { sandbox: start.sandbox } : {}),
          ...(start.timeoutMs !== undefined ? { timeoutMs: start.timeoutMs } : {}),
          signal,
          onOutput: (chunk) => self.receive(chunk, spill),
        }),
      spill,
      this.now,
    );
    this.jobs.set(id, job);
    return job;
  }

  /** Starts a delegated agent off the foreground path. */
  startTask(start: TaskStart): BackgroundTask {
    this.assertOpen();
    const id = `job-${++this.taskCount}`;
    const job = new BackgroundTask(id, start.sessionId, this.now(), start.goal, start.agent, start.run, this.now);
    this.jobs.set(id, job);
    return job;
  }

  /** The session's commands, oldest first. */
  commands(sessionId: string): BackgroundCommand[] {
    return [...this.jobs.values()].filter((job): job is BackgroundCommand => job.kind === 'command' && job.sessionId === sessionId);
  }

  /** The session's delegated jobs, oldest first. */
  tasks(sessionId: string): BackgroundTask[] {
    return [...this.jobs.values()].filter((job): job is BackgroundTask => job.kind === 'task' && job.sessionId === sessionId);
  }

  /** One of the session's commands; an unknown id is an error that lists the known ones. */
  command(sessionId: string, id: string): BackgroundCommand {
    const job = this.jobs.get(id);
    if (job?.kind === 'command' && job.sessionId === sessionId) return job;
    const known = this.commands(sessionId).map((candidate) => `${candidate.id} (${candidate.status})`);
    throw new ToolError(
      `There is no background command "${id}" in this session. ` +
        (known.length > 0
          ? `The known ones are: ${known.join(', ')}.`
          : 'None was started: run shell with "background": true to start one.') +
        (job?.kind === 'task' ? ` "${id}" is a delegated job: inspect it with the job tool.` : ''),
    );
  }

  /** One of the session's delegated jobs; an unknown id is an error that lists the known ones. */
  task(sessionId: string, id: string): BackgroundTask {
    const job = this.jobs.get(id);
    if (job?.kind === 'task' && job.sessionId === sessionId) return job;
    const known = this.tasks(sessionId).map((candidate) => `${candidate.id} (${candidate.status})`);
    throw new ToolError(
      `There is no delegated job "${id}" in this session. ` +
        (known.length > 0
          ? `The known ones are: ${known.join(', ')}.`
          : 'None was started: call task with "background": true to start one.') +
        (job?.kind === 'command' ? ` "${id}" is a background command: inspect it with the bg tool.` : ''),
    );
  }

  /**
   * Waits until the job ends, `timeoutMs` passes, or `signal` aborts, whichever comes first.
   * True when the job has ended.
   */
  async wait(job: BackgroundCommand | BackgroundTask, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    if (!job.running) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      onAbort = resolve;
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([job.finished, timedOut]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
    return !job.running;
  }

  /** Kills the command's process group and waits until it is gone. False when it had already ended. */
  async cancel(job: BackgroundCommand | BackgroundTask, reason: string): Promise<boolean> {
    if (!job.running) return false;
    job.stop(reason);
    await job.finished;
    return true;
  }

  /**
   * Reads lines `offset`… of a command's output from its file, at most `limit` lines and about
   * `maxBytes` bytes. Without an offset the page ends at the last line, which is what matters
   * while a command runs. Reading stops as soon as the page is full.
   */
  async readOutput(
    job: BackgroundCommand,
    page: { readonly offset?: number; readonly limit: number; readonly maxBytes: number },
    signal?: AbortSignal,
  ): Promise<OutputPage> {
    const total = job.outputLines;
    if (total === 0) return { lines: [], first: 0, last: 0, total, cutBySize: false };
    const first = page.offset ?? Math.max(1, total - page.limit + 1);
    if (first > total) {
      throw new ToolError(
        `offset ${first} is past the end: ${job.id} has ${total} line${total === 1 ? '' : 's'} of output so far. Use an offset from 1 to ${total}, or leave it out to see the last lines.`,
      );
    }
    const wanted = Math.min(total, first + page.limit - 1);
    const lines: string[] = [];
    let bytes = 0;
    let cutBySize = false;
    let lineNumber = 1;
    let current = '';
    const decoder = new TextDecoder('utf-8');
    /** Takes a finished line; false when the page is full. */
    const take = (line: string): boolean => {
      const shown = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} characters]` : line;
      const size = Buffer.byteLength(shown, 'utf8') + 1;
      if (lines.length > 0 && bytes + size > page.maxBytes) {
        cutBySize = true;
        return false;
      }
      lines.push(shown);
      bytes += size;
      return lineNumber < wanted;
    };
    const consume = (text: string): boolean => {
      let start = 0;
      for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
        if (lineNumber >= first) {
          if (!take(current + text.slice(start, newline))) return false;
        }
        current = '';
        lineNumber++;
        start = newline + 1;
      }
      // Only a line inside the page is kept, and only up to what could be shown of it.
      if (lineNumber >= first && current.length <= MAX_LINE_CHARS) current += text.slice(start, start + MAX_LINE_CHARS + 1);
      return true;
    };
    let open = true;
    for await (const chunk of this.host.fs.readStream(job.outputPath, signal)) {
      if (!consume(decoder.decode(chunk, { stream: true }))) {
        open = false;
        break;
      }
    }
    if (open && consume(decoder.decode()) && current.length > 0 && lineNumber <= wanted) take(current);
    return { lines, first, last: first + lines.length - 1, total, cutBySize };
  }

  /**
   * What ended since the session was last told, as one message for the model, or undefined.
   * Each job is reported once; one whose end a tool result already showed is not repeated.
   */
  takeFinishedNotices(sessionId: string): string | undefined {
    const lines: string[] = [];
    for (const job of this.jobs.values()) {
      if (job.sessionId !== sessionId || job.running || job.reported) continue;
      job.reported = true;
      lines.push(`- ${job.noticeLine()}`);
    }
    if (lines.length === 0) return undefined;
    return `Background work finished since your last step:\n${lines.join('\n')}`;
  }

  /** Stops the session's running jobs (its commands' process groups are killed) and waits for them. */
  async endSession(sessionId: string): Promise<void> {
    const running = [...this.jobs.values()].filter((job) => job.sessionId === sessionId && job.running);
    for (const job of running) job.stop('the session ended');
    await Promise.all(running.map((job) => job.finished));
  }

  /** Stops every running job and waits for them; nothing can be started afterwards. */
  async dispose(): Promise<void> {
    this.disposed = true;
    const running = [...this.jobs.values()].filter((job) => job.running);
    for (const job of running) job.stop('the runtime is shutting down');
    await Promise.all(running.map((job) => job.finished));
  }

  private assertOpen(): void {
    if (this.disposed) throw new ToolError('Background work cannot be started: this session is shutting down.');
  }
}
