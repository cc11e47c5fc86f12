/**
 * The "Zuno" terminal shows every command the runtime runs, live, with its exit code (issue 4,
 * "Terminal-backed shell"). It is a mirror, not the executor: commands still run through the
 * runtime's own ProcessRunner (execa, a process group per command), so the model gets exact exit
 * codes and bounded output whether or not the editor's shell integration works, which is the
 * top complaint against agents that scrape the terminal instead. Ctrl+C typed in the mirror
 * cancels the running command, which kills its process group. No `vscode` import: the
 * Pseudoterminal adapter in `terminal.ts` only forwards to `TerminalScreen`.
 */
import type { ProcessResult, ProcessRunner, ProcessSpec } from '../../core/host';

/** The terminal's control character for Ctrl+C. */
export const INTERRUPT = '\x03';

const BOLD = '\x1b[1m';
const DIM = '\x1b[2m';
const RESET = '\x1b[0m';

/** A terminal moves to the next line only on `\r\n`; a bare `\n` would leave the cursor mid-screen. */
export function toTerminalText(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

export function commandLineOf(spec: ProcessSpec): string {
  if (spec.display !== undefined) return spec.display;
  const args = (spec.args ?? []).map((arg) => (/^[\w./:=@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`));
  return [spec.command, ...args].join(' ');
}

/** The line that closes a command: `[exit N]`, `[timed out]`, `[cancelled]` or the killing signal. */
export function resultLine(result: ProcessResult): string {
  if (result.timedOut) return '[timed out]';
  if (result.cancelled) return '[cancelled]';
  if (result.exitCode !== null) return `[exit ${result.exitCode}]`;
  return `[killed by ${result.signal ?? 'a signal'}]`;
}

/** Where mirrored text goes: the terminal, created (and shown) on the first command. */
export interface MirrorSink {
  write(text: string): void;
}

interface ActiveRun {
  readonly id: number;
  readonly controller: AbortController;
}

/**
 * Wraps the runtime's ProcessRunner. Only command lines a person would recognise are mirrored
 * (`shell: true`, or an explicit `display`); internal helper processes such as `rg --json` stay
 * out of the terminal.
 */
export class MirroredProcessRunner implements ProcessRunner {
  private readonly active: ActiveRun[] = [];
  private nextId = 1;
  /** The terminal is one screen shared by every run: where its cursor is, and who wrote last. */
  private atLineStart = true;
  private lastWriter: number | undefined;

  constructor(
    private readonly inner: ProcessRunner,
    private readonly sink: () => MirrorSink,
  ) {}

  static mirrors(spec: ProcessSpec): boolean {
    return spec.shell === true || spec.display !== undefined;
  }

  get running(): number {
    return this.active.length;
  }

  /** Ctrl+C in the terminal: cancels the most recently started command. False when none runs. */
  interrupt(): boolean {
    const last = this.active[this.active.length - 1];
    if (!last) return false;
    last.controller.abort();
    return true;
  }

  async run(spec: ProcessSpec): Promise<ProcessResult> {
    if (!MirroredProcessRunner.mirrors(spec)) return this.inner.run(spec);
    const run: ActiveRun = { id: this.nextId++, controller: new AbortController() };
    const signal = spec.signal ? AbortSignal.any([spec.signal, run.controller.signal]) : run.controller.signal;
    this.active.push(run);
    const sink = this.sink();
    this.writeLine(sink, run, `${BOLD}$ ${commandLineOf(spec)}${RESET}`);
    try {
      const result = await this.inner.run({
        ...spec,
        signal,
        onOutput: (chunk, stream) => {
          this.writeOutput(sink, run, chunk);
          spec.onOutput?.(chunk, stream);
        },
      });
      this.writeLine(sink, run, `${DIM}${resultLine(result)}${RESET}`);
      return result;
    } catch (error) {
      this.writeLine(sink, run, `${DIM}[failed to start: ${error instanceof Error ? error.message : String(error)}]${RESET}`);
      throw error;
    } finally {
      this.active.splice(this.active.indexOf(run), 1);
    }
  }

  /** While commands overlap, each line says which one it comes from. */
  private label(run: ActiveRun): string {
    return this.active.length > 1 ? `${DIM}[${run.id}]${RESET} ` : '';
  }

  private writeLine(sink: MirrorSink, run: ActiveRun, line: string): void {
    const prefix = this.atLineStart ? '' : '\r\n';
    sink.write(`${prefix}${this.label(run)}${line}\r\n`);
    this.atLineStart = true;
    this.lastWriter = run.id;
  }

  private writeOutput(sink: MirrorSink, run: ActiveRun, chunk: string): void {
    if (chunk.length === 0) return;
    const label = this.label(run);
    let text = toTerminalText(chunk);
    // Another command's unfinished line is ended first, so two outputs never share a line.
    const breakLine = !this.atLineStart && this.lastWriter !== run.id;
    if (label) {
      text = text.replace(/\r\n(?=[\s\S])/g, `\r\n${label}`);
      if (this.atLineStart || breakLine) text = label + text;
    }
    sink.write(breakLine ? `\r\n${text}` : text);
    this.atLineStart = text.endsWith('\n');
    this.lastWriter = run.id;
  }
}

/**
 * The terminal screen's side: text written before VS Code opens the terminal is kept and flushed
 * on open, and typed input is interpreted (only Ctrl+C means anything here).
 */
export class TerminalScreen implements MirrorSink {
  private opened = false;
  private readonly backlog: string[] = [];
  private toldAboutInput = false;

  constructor(
    private readonly output: (text: string) => void,
    private readonly interrupt: () => boolean,
  ) {}

  open(): void {
    this.opened = true;
    this.output(
      `${DIM}Zuno runs its commands with its own process runner and shows them here. Ctrl+C cancels the running one.${RESET}\r\n`,
    );
    for (const text of this.backlog.splice(0)) this.output(text);
  }

  write(text: string): void {
    if (this.opened) this.output(text);
    else this.backlog.push(text);
  }

  input(data: string): void {
    if (data.includes(INTERRUPT)) {
      if (!this.interrupt()) this.write(`${DIM}^C (no command is running)${RESET}\r\n`);
      return;
    }
    if (this.toldAboutInput) return;
    this.toldAboutInput = true;
    this.write(`${DIM}This terminal only mirrors Zuno's commands; it does not take input. Ctrl+C cancels the running command.${RESET}\r\n`);
  }
}
