/**
 * Runs the official rg for glob, grep and read's near-name suggestions (SPEC S4). The product
 * adds typed arguments, cancellation, bounded decoding and stable ordering; nothing else.
 */
import { basename, isAbsolute, join, sep } from 'node:path';
import { ToolError } from '../core/errors';
import { compileGlob, globCostProblem, globProblem } from '../core/glob';
import type { ToolContext } from '../core/tool';

/**
 * Flags every search shares:
 * - `--no-config`: a user's RIPGREP_CONFIG_PATH must not change what the tools return;
 * - `--no-require-git`: `.gitignore` is honoured even where the workspace is not a git repository;
 * - `--hidden`: dotfiles such as `.github/` and `.eslintrc` are found (ignore files still apply);
 * - symlinks are not followed (rg's default), so a search never walks out of the workspace.
 * The `.git` exclusion goes last on the command line, where it beats any include glob.
 *
 * The model's own globs are not handed to rg's `--glob`: rg lets such a glob override the ignore
 * files, so `**` would walk straight into an ignored node_modules. They filter rg's results instead
 * (see `pathGlobFilter`).
 */
export const COMMON_RIPGREP_FLAGS: readonly string[] = ['--no-config', '--no-require-git', '--hidden'];
export const EXCLUDE_GIT_DIRECTORY = '--glob=!.git';

/**
 * `--glob=!…` exclusions for the paths permission rules hide below `cwd` (issue 8 §5), so rg does
 * not even read them. Callers still drop hidden paths from rg's output: the globs are rg's dialect,
 * not ours, and may miss a corner.
 */
export function hiddenPathExclusions(context: ToolContext, cwd: string): string[] {
  return context.visibility.excludeGlobs(cwd).map((glob) => `--glob=!${glob}`);
}

/**
 * What the model is told about withheld paths: how many, never which. `hidden` counts what was
 * dropped from rg's output; `skipped` says rg was told to leave hidden paths out, which it does
 * without counting them.
 */
export function withheldNote(hidden: number, unit: string, skipped: boolean): string {
  const count =
    hidden > 0 ? `${hidden} ${unit}${hidden === 1 ? '' : 's'} hidden by permission rules ${hidden === 1 ? 'is' : 'are'} not shown` : '';
  if (!skipped) return count.length > 0 ? `\n[${count}.]` : '';
  return count.length > 0
    ? `\n[${count}; other paths the rules hide were not searched.]`
    : '\n[Paths hidden by permission rules were not searched.]';
}

/** rg's complaints about a hidden path ("rg: secrets/key: Permission denied") would name it: they are dropped. */
function withoutHiddenPaths(context: ToolContext, cwd: string, stderr: string): string {
  const namesHidden = (line: string): boolean => {
    const text = line.replace(/^rg: /, '');
    for (let end = text.indexOf(': '); end > 0; end = text.indexOf(': ', end + 1)) {
      const path = text.slice(0, end);
      if (context.visibility.isHidden(isAbsolute(path) ? path : join(cwd, path))) return true;
    }
    return false;
  };
  return stderr
    .split('\n')
    .filter((line) => !namesHidden(line))
    .join('\n');
}

/** A line longer than this is not kept whole: its head and tail are, so its metadata survives. */
export const MAX_RECORD_CHARS = 1024 * 1024;
const OVERLONG_HEAD_CHARS = 4096;
const OVERLONG_TAIL_CHARS = 64 * 1024;
const MAX_STDERR_CHARS = 8192;

export interface RipgrepRecord {
  /** The whole record, or for an overlong one its first and last characters joined. */
  readonly text: string;
  /** The record was longer than MAX_RECORD_CHARS and `text` is only its head and tail. */
  readonly overlong: boolean;
  readonly head: string;
  readonly tail: string;
  readonly length: number;
}

/**
 * Splits a text stream into separator-terminated records with bounded memory: an overlong record
 * keeps only its head and a rolling tail.
 */
export class RecordSplitter {
  private current = '';
  private overlongHead: string | undefined;
  private overlongLength = 0;

  constructor(
    private readonly separator: string,
    private readonly onRecord: (record: RipgrepRecord) => void,
  ) {}

  push(chunk: string): void {
    let start = 0;
    for (let end = chunk.indexOf(this.separator); end !== -1; end = chunk.indexOf(this.separator, start)) {
      this.append(chunk.slice(start, end));
      this.emit();
      start = end + this.separator.length;
    }
    this.append(chunk.slice(start));
  }

  /** Emits a last record that had no separator after it. */
  end(): void {
    if (this.current.length > 0 || this.overlongHead !== undefined) this.emit();
  }

  private append(text: string): void {
    if (text.length === 0) return;
    if (this.overlongHead !== undefined) {
      this.overlongLength += text.length;
      this.current = (this.current + text).slice(-OVERLONG_TAIL_CHARS);
      return;
    }
    this.current += text;
    if (this.current.length > MAX_RECORD_CHARS) {
      this.overlongHead = this.current.slice(0, OVERLONG_HEAD_CHARS);
      this.overlongLength = this.current.length;
      this.current = this.current.slice(-OVERLONG_TAIL_CHARS);
    }
  }

  private emit(): void {
    if (this.overlongHead !== undefined) {
      const head = this.overlongHead;
      const tail = this.current;
      this.onRecord({ text: head + tail, overlong: true, head, tail, length: this.overlongLength });
    } else {
      const text = this.current;
      this.onRecord({ text, overlong: false, head: text, tail: text, length: text.length });
    }
    this.current = '';
    this.overlongHead = undefined;
    this.overlongLength = 0;
  }
}

export interface RipgrepRun {
  readonly exitCode: number | null;
  /** The first few KiB of what rg printed on stderr. */
  readonly stderr: string;
  /** The caller asked to stop early (it had all it needed). */
  readonly stopped: boolean;
}

export interface RipgrepRequest {
  readonly args: readonly string[];
  /** A checked real path (the host pins it, issue 8 item 4); rg searches it as `.`. */
  readonly cwd: string;
  /** `\n` for line output and `--json`, `\0` for `--null` output. */
  readonly separator: string;
  /** Return `false` to stop rg: the rest of its output is not needed. */
  readonly onRecord: (record: RipgrepRecord) => boolean | void;
}

/**
 * Runs rg to completion, to an early stop, or until the call is cancelled; a cancel kills rg's
 * process group and rethrows the abort. A missing or too old rg rejects with the host's
 * StartupError, untouched, so the CLI can report it as a startup failure.
 */
export async function runRipgrep(context: ToolContext, request: RipgrepRequest): Promise<RipgrepRun> {
  const binary = await context.host.ripgrep();
  const stopper = new AbortController();
  let stopped = false;
  let stderr = '';
  const splitter = new RecordSplitter(request.separator, (record) => {
    if (stopped) return;
    if (request.onRecord(record) === false) {
      stopped = true;
      stopper.abort();
    }
  });
  const result = await context.host.processes.run({
    command: binary.path,
    args: request.args,
    cwd: request.cwd,
    // Every caller's cwd is a checked real path: rg starts in that very folder, whatever is swapped in by name.
    verifiedCwd: true,
    signal: AbortSignal.any([context.signal, stopper.signal]),
    onOutput(chunk, stream) {
      if (stream === 'stdout') splitter.push(chunk);
      else if (stderr.length < MAX_STDERR_CHARS) stderr += chunk.slice(0, MAX_STDERR_CHARS - stderr.length);
    },
  });
  context.signal.throwIfAborted();
  if (!stopped) splitter.end();
  return { exitCode: result.exitCode, stderr: withoutHiddenPaths(context, request.cwd, stderr).trim(), stopped };
}

/** rg exits 0 with matches, 1 without, and 2 on an error (which may come with partial results). */
export function ripgrepFailure(run: RipgrepRun, what: string): ToolError | undefined {
  if (run.stopped || run.exitCode === 0 || run.exitCode === 1) return undefined;
  const said = run.stderr.length > 0 ? run.stderr : `it exited with code ${String(run.exitCode)} and printed nothing on stderr`;
  if (/regex parse error|error parsing regex|unclosed|unopened|repetition operator/i.test(said)) {
    return new ToolError(
      `The pattern is not a valid regular expression (Rust regex syntax). rg said:\n${said}\n` +
        'Escape special characters such as ( ) [ ] { } . * + ? | \\ with a backslash to match them literally, then search again.',
    );
  }
  return new ToolError(`${what} failed. rg said:\n${said}\nCheck the pattern, path and glob, then try again.`);
}

/** Stable order for paths: by code unit, the same on every machine and locale. */
export function comparePaths(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * Keeps the `capacity` smallest items seen, in order, with memory bounded by the capacity: the
 * answer is the same whatever order rg's threads deliver files in.
 */
export class SmallestItems<T> {
  private readonly items: T[] = [];
  total = 0;

  constructor(
    private readonly capacity: number,
    private readonly compare: (left: T, right: T) => number,
  ) {}

  add(item: T): void {
    this.total++;
    const last = this.items[this.items.length - 1];
    if (this.items.length >= this.capacity && last !== undefined && this.compare(item, last) >= 0) return;
    let low = 0;
    let high = this.items.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const candidate = this.items[middle];
      if (candidate !== undefined && this.compare(candidate, item) <= 0) low = middle + 1;
      else high = middle;
    }
    this.items.splice(low, 0, item);
    if (this.items.length > this.capacity) this.items.pop();
  }

  values(): readonly T[] {
    return this.items;
  }
}

/**
 * A model-given glob as a filter over paths relative to the folder searched, with rg's (and
 * .gitignore's) reading: a pattern without a slash matches the file name at any depth, one with a
 * slash matches the whole relative path, a trailing slash means everything below, and a leading
 * `!` negates. An invalid glob is a ToolError that says what is wrong with it.
 */
export function pathGlobFilter(pattern: string): (relativePath: string) => boolean {
  const negated = pattern.startsWith('!');
  let glob = (negated ? pattern.slice(1) : pattern).replace(/^\.\//, '').replace(/^\//, '');
  if (glob.endsWith('/')) glob += '**';
  const problem = globProblem(glob) ?? globCostProblem(glob);
  if (problem !== undefined) throw new ToolError(`The glob ${JSON.stringify(pattern)} is not valid: ${problem}.`);
  const matches = compileGlob(glob, 'path');
  const byName = !glob.includes('/');
  return (relativePath) => {
    const path = sep === '/' ? relativePath : relativePath.split(sep).join('/');
    return matches(byName ? basename(path) : path) !== negated;
  };
}
