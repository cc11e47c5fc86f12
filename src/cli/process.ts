/**
 * The process as every CLI command sees it, and the documented exit codes: 0 finished, 1 provider
 * failure, 2 usage/config/startup error, 130 interrupted, 143 terminated.
 */
export const EXIT_OK = 0;
/** A model provider failure, or a failure during the run. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERRUPTED = 130;
export const EXIT_TERMINATED = 143;

/** The process as the CLI sees it, passed in rather than read from globals. */
export interface CliProcess {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  /** Registers a handler for SIGINT/SIGTERM; returns a function that removes it. */
  readonly onSignal: (handler: (signal: 'SIGINT' | 'SIGTERM') => void) => () => void;
  /** Ends the process at once (a second interrupt). */
  readonly exit: (code: number) => never;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function readStdin(stream: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolvePrompt, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolvePrompt(Buffer.concat(chunks).toString('utf8')));
    stream.on('error', reject);
  });
}
