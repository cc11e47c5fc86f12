// Shared pieces for the store tests: real temp dirs, ledger records, and a real child process.
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallFinish, CallStart } from '../../src/core/ledger';
import type { TestContext } from 'node:test';

/**
 * A journal's text: the file up to its first NUL. A writer keeps zeros written ahead of the
 * journal's end (JournalWriter.reserve), so the file's size is not the journal's.
 */
export function journalText(path: string): string {
  const data = readFileSync(path);
  const end = data.indexOf(0);
  return data.toString('utf8', 0, end === -1 ? data.length : end);
}

/** The journal's length in bytes (see journalText). */
export const journalLength = (path: string): number => Buffer.byteLength(journalText(path));

/** The output store-child.ts's record-turns mode gives call N. */
export const turnOutput = (index: number): string => `output ${index} ${'z'.repeat(2000 + (index % 500))}`;

/** A fresh directory under the OS temp dir, removed when the test ends. */
export function temporaryDirectory(context: TestContext, prefix = 'zuno-store-'): string {
  const path = mkdtempSync(join(tmpdir(), prefix));
  context.after(() => rmSync(path, { recursive: true, force: true }));
  return path;
}

export function callStart(sessionId: string, callId: string, overrides: Partial<CallStart> = {}): CallStart {
  return {
    sessionId,
    callId,
    turn: 1,
    position: 0,
    tool: 'shell',
    argumentsJson: JSON.stringify({ command: `echo ${callId}` }),
    declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
    attempt: 1,
    startedAt: 1_000,
    ...overrides,
  };
}

export function callFinish(sessionId: string, callId: string, overrides: Partial<CallFinish> = {}): CallFinish {
  return {
    sessionId,
    callId,
    outcome: 'ok',
    output: `output of ${callId}`,
    truncated: false,
    attempt: 1,
    finishedAt: 2_000,
    durationMs: 1_000,
    ...overrides,
  };
}

export interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  /** Resolves with the first stdout line that satisfies `accept`. */
  waitForLine(accept: (line: string) => boolean): Promise<string>;
  /** Every stdout line so far. */
  readonly lines: string[];
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts test/support/store-child.ts in a real node process (through tsx). */
export function startStoreChild(context: TestContext, args: readonly string[]): Child {
  const script = join(__dirname, 'store-child.ts');
  // tsx is resolved from the working directory, so the child runs from the repository root.
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: join(__dirname, '..', '..'),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: { accept: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  let stderr = '';
  let pending = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      lines.push(line);
      for (const waiter of waiters.filter((candidate) => candidate.accept(line))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
      newline = pending.indexOf('\n');
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  context.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return {
    process: child,
    lines,
    exited,
    stderr: () => stderr,
    waitForLine(accept) {
      const seen = lines.find(accept);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise<string>((resolve, reject) => {
        waiters.push({ accept, resolve });
        void exited.then(({ code, signal }) =>
          reject(new Error(`store child exited (code ${code}, signal ${signal}) before the expected line; stderr: ${stderr}`)),
        );
      });
    },
  };
}

/** Kills the child with SIGKILL (kill -9) and waits until it is gone. */
export async function killHard(child: Child): Promise<void> {
  child.process.kill('SIGKILL');
  const { signal } = await child.exited;
  if (signal !== 'SIGKILL') throw new Error(`expected the child to die of SIGKILL, got ${String(signal)}`);
}
