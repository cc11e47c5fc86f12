/**
 * What shell and execute share: a command's output captured with the caps (head and tail kept,
 * the full text spilled), and its ending told to the model the same way. A timeout or a cancel
 * from outside the turn is `indeterminate` (SPEC R3): the command may have done part of its
 * work, and it is never run again on its own.
 */
import type { ProcessResult } from '../core/host';
import { describePlan, sandboxRefusalNote } from '../core/sandbox';
import type { ToolContext, ToolResult } from '../core/tool';
import type { SandboxChoice } from './sandbox-choice';

export interface CommandRun {
  /** How messages name it: `the command`, `the task "npm: test"`. */
  readonly subject: string;
  readonly timeoutMs: number;
  /** Extra structured details for clients. */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** Where it runs; the result says when that is outside a sandbox, and when the sandbox seems to have refused something. */
  readonly sandbox?: SandboxChoice;
  /** Starts the command; every output chunk goes to `onOutput`. */
  readonly start: (onOutput: (chunk: string) => void) => Promise<ProcessResult>;
}

export async function runCaptured(context: ToolContext, run: CommandRun): Promise<ToolResult> {
  const capture = context.captureOutput();
  const result = await run.start((chunk) => {
    capture.append(chunk);
    context.progress(chunk);
  });
  const output = await capture.finish();
  // A cancel of the turn is the scheduler's to record; the spill file is closed above either way.
  context.signal.throwIfAborted();
  const sandbox = run.sandbox;
  const unsandboxed = sandbox?.unsandboxed !== undefined ? `${sandbox.unsandboxed}\n` : '';
  const body = `${unsandboxed}${output.text.length > 0 ? output.text : '(no output)'}`;
  const metadata = {
    ...run.metadata,
    ...(sandbox ? { sandbox: sandbox.plan ? describePlan(sandbox.plan) : 'off' } : {}),
    ...(sandbox?.notice !== undefined ? { sandboxNotice: sandbox.notice } : {}),
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    outputBytes: output.totalBytes,
    ...(output.spillPath ? { fullOutputPath: output.spillPath } : {}),
  };
  const stopped = (why: string, next: string): ToolResult => ({
    status: 'indeterminate',
    output:
      `${why}: ${run.subject} was stopped ${why === 'timed out' ? `after ${run.timeoutMs} ms` : 'before it finished'}, together with every ` +
      `process it started. It may have had partial effects, and it will not be re-run automatically. Check the state it was ` +
      `changing (files, git status, running services) before doing anything else; ${next}\nOutput so far:\n${body}`,
    truncated: output.truncated,
    metadata,
  });
  if (result.timedOut)
    return stopped('timed out', 'if it simply needs more time, run it again with a larger timeout_ms, or in the background.');
  // Cancelled from outside the turn (Ctrl+C in the Zuno terminal): the model must not read it as a crash.
  if (result.cancelled) return stopped('cancelled by the user', 'ask the user before running it again.');
  const header = result.exitCode !== null ? `exit code ${result.exitCode}` : `killed by signal ${result.signal ?? 'unknown'}`;
  const refused = result.exitCode !== 0 && sandbox?.plan ? sandboxRefusalNote(output.text, sandbox.plan) : undefined;
  const note = refused !== undefined ? `${body.endsWith('\n') ? '' : '\n'}${refused}\n` : '';
  return {
    status: result.exitCode === 0 ? 'ok' : 'error',
    output: `${header}\n${body}${note}`,
    truncated: output.truncated,
    metadata: { ...metadata, ...(refused !== undefined ? { sandboxRefused: true } : {}) },
  };
}
