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
import { runCaptured } from './command-run';
import { chooseSandbox, leavesSandbox, sandboxRequiredProblem } from './sandbox-choice';

const DECLARATIONS: Declarations = { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' };
/** A background start returns at once and the command runs off the foreground path (C1); it is still a side effect. */
const BACKGROUND_DECLARATIONS: Declarations = { effect: 'SideEffecting', replay: 'Never', concurrency: 'IsolatedBackground' };
const MAX_TIMEOUT_MS = 24 * 3600_000;

const DESCRIPTION = `Run a shell command (/bin/sh -c; cmd.exe on Windows) in the workspace root and wait for it to finish. Use it for builds, tests, git, package managers and other programs; use read, glob and grep rather than cat, find and grep to look at files.

Returns "exit code N" followed by stdout and stderr merged in the order they were written. A non-zero exit code makes the call an error you can read and act on. Long output keeps its beginning and its end, with a marker saying how much was cut and the file that holds all of it (read it with offset to see the middle). The command finishes when its process exits: anything it left running in the background is stopped then. If the timeout is reached, the whole process group is stopped and the outcome is indeterminate: the command may have had partial effects, and it will not be re-run automatically.

Commands run in a sandbox unless the user turned it off: by default the workspace is writable (but not its .git, .zuno and .vscode), the rest of the disk is read-only, credentials such as ~/.ssh are not there, /tmp is private and empty, and the network is off. A result that failed because of the sandbox says so; if the command really needs more, call it again with "sandbox": "off", which asks the user. A result that starts with "[unsandboxed" ran without a sandbox.`;

const parameters = z.strictObject({
  command: z
    .string()
    .min(1)
    .describe(
      'The command line. Pipes, redirections, && and ; work. stdin is closed (pass --yes or -y instead of waiting for input); pagers are off.',
    ),
  timeout_ms: z
    .number()
    .int()
    .min(1000)
    .max(MAX_TIMEOUT_MS)
    .optional()
    .describe('Stop the command after this many milliseconds; default the configured shell.default_timeout_ms (normally 10 minutes)'),
  sandbox: z
    .enum(['off'])
    .optional()
    .describe(
      '"off": run this one command outside the sandbox, with the user\'s full permissions. The user is always asked first; use it only after the sandbox refused something the command needs.',
    ),
  background: z
    .boolean()
    .optional()
    .describe(
      'Start it without waiting (a dev server, a watcher, a long build) and return its id, e.g. bg-1, at once; no timeout unless timeout_ms is given. Follow it with the bg tool; you are told when it ends, and it is stopped when the session ends.',
    ),
});

export const shellTool = defineTool({
  name: 'shell',
  description: DESCRIPTION,
  parameters,
  declarations: (args) => (args.background ? BACKGROUND_DECLARATIONS : DECLARATIONS),
  subjects: async (args) => [{ kind: 'command', value: args.command }],
  outsideSandbox: (args, env) => leavesSandbox(env, args.sandbox),
  readiness: (args, env) => sandboxRequiredProblem(env, leavesSandbox(env, args.sandbox)),
  async run(args, context) {
    const sandbox = await chooseSandbox(context, args.sandbox);
    if (args.background) return startBackgroundCommand(args, context, sandbox);
    const timeoutMs = args.timeout_ms ?? context.config.shell.default_timeout_ms;
    return runCaptured(context, {
      subject: 'the command',
      timeoutMs,
      sandbox,
      start: (onOutput) =>
        context.host.processes.run({
          command: args.command,
          shell: true,
          mergeStderr: true,
          cwd: context.workspaceRoot,
          env: { PAGER: 'cat', GIT_PAGER: 'cat' },
          timeoutMs,
          signal: context.signal,
          onOutput,
          ...(sandbox.plan ? { sandbox: sandbox.plan } : {}),
        }),
    });
  },
});
