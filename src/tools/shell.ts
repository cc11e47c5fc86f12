/**
 * shell: run a command line in the workspace (SPEC S1, R3). The command runs in its own process
 * group with stdin closed; stdout and stderr arrive merged, in the order they were written. The
 * output is capped (head and tail kept, the full text spilled to a file), so memory stays bounded
 * whatever the command prints. A timeout is an indeterminate outcome: the command may have done
 * part of its work, and it is never run again on its own.
 */
import { z } from 'zod';
import type { Declarations } from '../core/declarations';
import { defineTool } from '../core/tool';
import { startBackgroundCommand } from './bg';

const DECLARATIONS: Declarations = { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' };
/** A background start returns at once and the command runs off the foreground path (C1); it is still a side effect. */
const BACKGROUND_DECLARATIONS: Declarations = { effect: 'SideEffecting', replay: 'Never', concurrency: 'IsolatedBackground' };
const MAX_TIMEOUT_MS = 24 * 3600_000;

const DESCRIPTION = `Run a shell command (/bin/sh -c; cmd.exe on Windows) in the workspace root and wait for it to finish. Use it for builds, tests, git, package managers and other programs; use read, glob and grep rather than cat, find and grep to look at files.

- command: the command line. Pipes, redirections, && and ; work. stdin is closed, so anything that waits for input gets end-of-file: pass flags such as --yes or -y instead. Pagers are turned off.
- timeout_ms: stop the command after this many milliseconds (default: the configured shell.default_timeout_ms, normally 10 minutes).
- background: true starts the command without waiting (a dev server, a watcher, a long build) and returns its id, e.g. bg-1, at once. It has no timeout unless you give timeout_ms. Follow it with the bg tool (output, wait, cancel); you are told when it ends, and it is stopped when the session ends.

Returns "exit code N" followed by stdout and stderr merged in the order they were written. A non-zero exit code makes the call an error you can read and act on. Long output keeps its beginning and its end, with a marker saying how much was cut and the file that holds all of it (read it with offset to see the middle). The command finishes when its process exits: anything it left running in the background is stopped then. If the timeout is reached, the whole process group is stopped and the outcome is indeterminate: the command may have had partial effects, and it will not be re-run automatically.`;

const parameters = z.strictObject({
  command: z.string().min(1).describe('The command line to run'),
  timeout_ms: z.number().int().min(1000).max(MAX_TIMEOUT_MS).optional().describe('Timeout in milliseconds; default the configured shell.default_timeout_ms'),
  background: z.boolean().optional().describe('Start the command in the background and return its id at once; follow it with the bg tool'),
});

export const shellTool = defineTool({
  name: 'shell',
  description: DESCRIPTION,
  parameters,
  declarations: (args) => (args.background ? BACKGROUND_DECLARATIONS : DECLARATIONS),
  subjects: async (args) => [{ kind: 'command', value: args.command }],
  async run(args, context) {
    if (args.background) return startBackgroundCommand(args, context);
    const timeoutMs = args.timeout_ms ?? context.config.shell.default_timeout_ms;
    const capture = context.captureOutput();
    const result = await context.host.processes.run({
      command: args.command,
      shell: true,
      mergeStderr: true,
      cwd: context.workspaceRoot,
      env: { PAGER: 'cat', GIT_PAGER: 'cat' },
      timeoutMs,
      signal: context.signal,
      onOutput(chunk) {
        capture.append(chunk);
        context.progress(chunk);
      },
    });
    const output = await capture.finish();
    // A cancel is the scheduler's to record; the spill file is closed above either way.
    context.signal.throwIfAborted();
    const body = output.text.length > 0 ? output.text : '(no output)';
    const metadata = {
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      durationMs: result.durationMs,
      outputBytes: output.totalBytes,
      ...(output.spillPath ? { fullOutputPath: output.spillPath } : {}),
    };
    if (result.timedOut) {
      return {
        status: 'indeterminate',
        output:
          `timed out: the command was stopped after ${timeoutMs} ms, together with every process it started. ` +
          'It may have had partial effects, and it will not be re-run automatically. Check the state it was changing ' +
          '(files, git status, running services) before doing anything else; if it simply needs more time, run it again ' +
          `with a larger timeout_ms, or start it in the background.\nOutput so far:\n${body}`,
        truncated: output.truncated,
        metadata,
      };
    }
    if (result.cancelled) {
      // Cancelled from outside the turn (Ctrl+C in the Zuno terminal): the model must not read it as a crash.
      return {
        status: 'indeterminate',
        output:
          'cancelled by the user: the command was stopped before it finished, together with every process it started. ' +
          'It may have had partial effects, and it will not be re-run automatically. Check the state it was changing ' +
          `before doing anything else, and ask the user before running it again.\nOutput so far:\n${body}`,
        truncated: output.truncated,
        metadata,
      };
    }
    const header = result.exitCode !== null ? `exit code ${result.exitCode}` : `killed by signal ${result.signal ?? 'unknown'}`;
    return {
      status: result.exitCode === 0 ? 'ok' : 'error',
      output: `${header}\n${body}`,
      truncated: output.truncated,
      metadata,
    };
  },
});
