/**
 * Checkpoints of the whole work tree in a shadow git repository (issue 13).
 *
 * - The repository lives in the state dir (`<state>/checkpoints/shadow.git`), never in the
 *   workspace: `GIT_DIR` is there and `GIT_WORK_TREE` is the workspace, so the user's `.git` is
 *   never read or written (lessons-from-peers: Cline's shadow repository corrupted nested repos).
 * - Git runs isolated: no system or global config (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL`),
 *   no user `GIT_*` variables, no hooks, no fsmonitor, no global excludes, and an attributes file
 *   that turns off every filter and line-ending conversion, so a restore is byte for byte.
 *   The workspace's `.gitignore` files are honoured.
 * - Nested repositories (a folder with its own `.git`) are skipped, never renamed or entered:
 *   their history is their own. They are listed in the shadow's `info/exclude` and in each
 *   checkpoint, and a rewind never touches a path inside one.
 * - Files above `MAX_FILE_BYTES` are skipped and listed; a rewind leaves them alone.
 * - Incremental: the shadow index keeps stat data, so `git add -A` hashes only changed files;
 *   then write-tree, commit-tree and a ref per checkpoint (`refs/zuno/<id>`), which keeps its
 *   objects from gc.
 * - Which checkpoints exist is `index.json` beside the repository, written atomically. The
 *   store's one-writer lock on the state dir keeps two processes from writing it at once.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFile, lstat, mkdir, readdir, readFile, realpath, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { devNull } from 'node:os';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';

export const CHECKPOINTS_FOLDER = 'checkpoints';
/** Files above this size are not snapshotted (issue 13: e.g. 10 MB), and a rewind leaves them alone. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** How long one snapshot may take before it is given up with a notice. */
export const SNAPSHOT_BUDGET_MS = 30_000;

/**
 * `turn`: before a user turn's first side effect; `before-rewind`: taken by a rewind so it can be
 * undone. Both are restorable. `after-turn` and `after-rewind` record the state Zuno left, so
 * that a change made later counts as made outside Zuno.
 */
export type CheckpointKind = 'turn' | 'after-turn' | 'before-rewind' | 'after-rewind';

export interface CheckpointRecord {
  readonly id: string;
  readonly sessionId: string;
  readonly kind: CheckpointKind;
  readonly createdAt: number;
  readonly commit: string;
  readonly tree: string;
  /** The index of the turn's user message in the session's transcript (`turn` only). */
  readonly messageIndex?: number;
  /** The start of the turn's user message. */
  readonly prompt?: string;
  /** Files left out because they are larger than MAX_FILE_BYTES. */
  readonly skipped: readonly string[];
  /** Nested repositories left out (their `.git` and files are never touched). */
  readonly nested: readonly string[];
}

export const RESTORABLE_KINDS: ReadonlySet<CheckpointKind> = new Set(['turn', 'before-rewind']);

interface IndexFile {
  readonly version: 1;
  readonly next: number;
  readonly checkpoints: readonly CheckpointRecord[];
}

export interface FileChangeSince {
  readonly path: string;
  /** What happened since the checkpoint: a rewind removes an added file and restores the others. */
  readonly change: 'added' | 'removed' | 'modified';
}

/** The work tree as it is now, without recording a checkpoint. */
export interface TreeState {
  readonly tree: string;
  readonly skipped: readonly string[];
  readonly nested: readonly string[];
}

export interface SnapshotInput {
  readonly sessionId: string;
  readonly kind: CheckpointKind;
  readonly messageIndex?: number;
  readonly prompt?: string;
}

/** Git could not be run, failed, or ran past the budget. The message says which and why. */
export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
}

interface GitRun {
  readonly input?: string;
  /** Used instead of the shadow index, so a listing or a dry run leaves it alone. */
  readonly indexFile?: string;
  /** Exit codes other than 0 that are not failures. */
  readonly allow?: readonly number[];
  /** For `git init`, which refuses a work tree. */
  readonly withoutWorkTree?: boolean;
}

interface GitResult {
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly code: number;
}

const PROMPT_CHARS = 120;
/** Loose objects past which the background warm-up packs them (git's own default threshold). */
const GC_LOOSE_OBJECTS = 6700;
/** Zuno's own excludes (in place of the user's global ones): the state dir when it is inside the workspace. */
const EXCLUDES_FILE = 'excludes';
/** Up to this many changed paths are named to `git add`; more are found by its own walk. */
const MAX_NAMED_PATHS = 500;

/** Splits `-z` output. */
const nulFields = (buffer: Buffer): string[] =>
  buffer
    .toString('utf8')
    .split('\0')
    .filter((field) => field !== '');

/** A gitignore line matching exactly this path from the root (special characters escaped). */
const excludeLine = (path: string): string => `/${path.replace(/[\\*?[\]!# ]/g, (character) => `\\${character}`)}`;

/** A pathspec naming exactly this path, whatever characters it holds. */
const literal = (path: string): string => `:(literal)${path}`;

export class ShadowCheckpoints {
  readonly folder: string;
  readonly gitDir: string;
  private readonly indexPath: string;
  private ready: Promise<void> | undefined;
  /** Operations on the shadow index, one at a time. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly closing = new AbortController();

  private constructor(
    stateDir: string,
    readonly workspaceRoot: string,
    private readonly git: string,
    private readonly budgetMs: number,
  ) {
    this.folder = join(stateDir, CHECKPOINTS_FOLDER);
    this.gitDir = join(this.folder, 'shadow.git');
    this.indexPath = join(this.folder, 'index.json');
  }

  /**
   * The checkpoints of a workspace, or why there are none: without a runnable `git` on PATH
   * checkpoints are off, and the reason is what the user is told.
   */
  static async open(options: {
    readonly stateDir: string;
    readonly workspaceRoot: string;
    readonly git?: string;
    readonly budgetMs?: number;
  }): Promise<ShadowCheckpoints | { readonly unavailable: string }> {
    const git = options.git ?? 'git';
    const probe = await runProcess(git, ['--version'], { env: process.env, cwd: options.workspaceRoot, timeoutMs: 10_000 }).catch(
      (error: unknown) => error,
    );
    if (probe instanceof Error || (probe as GitResult).code !== 0) {
      const why = probe instanceof Error ? probe.message : (probe as GitResult).stderr.trim();
      return {
        unavailable: `Checkpoints are off: "${git}" could not be run (${why}). Install git and make sure it is on PATH to get a restorable checkpoint before each turn.`,
      };
    }
    return new ShadowCheckpoints(options.stateDir, options.workspaceRoot, git, options.budgetMs ?? SNAPSHOT_BUDGET_MS);
  }

  /** Every checkpoint and snapshot, oldest first. */
  async records(): Promise<readonly CheckpointRecord[]> {
    return (await this.readIndex()).checkpoints;
  }

  /** The restorable checkpoints of a session, oldest first. */
  async list(sessionId: string): Promise<readonly CheckpointRecord[]> {
    return (await this.records()).filter((record) => record.sessionId === sessionId && RESTORABLE_KINDS.has(record.kind));
  }

  /**
   * Stages the work tree without recording anything, off the turn's path (when the runtime
   * opens), so that the first checkpoint of a large workspace is incremental too; drops the
   * checkpoints of sessions the store no longer keeps (`kept`, asked when it runs); and packs
   * loose objects now and then. Never rejects.
   */
  async warm(kept?: (sessionId: string) => boolean): Promise<void> {
    const deadline = Date.now() + this.budgetMs * 10;
    await this.serially(async () => {
      await this.prepare(deadline);
      await this.capture(deadline);
    }).catch(() => undefined);
    if (kept) await this.retain(kept).catch(() => undefined);
    // Packs loose objects once there are many, outside the queue: gc never touches the index, and
    // keeps objects younger than two weeks, so a checkpoint written meanwhile is safe.
    await this.run(['-c', `gc.auto=${GC_LOOSE_OBJECTS}`, '-c', 'gc.autoDetach=false', 'gc', '--auto', '--quiet'], deadline).catch(
      () => undefined,
    );
  }

  /**
   * Snapshots the work tree and records it. Rejects with a CheckpointError saying why it could
   * not. The budget counts from now: waiting for a warm-up counts too.
   */
  snapshot(input: SnapshotInput): Promise<CheckpointRecord> {
    const deadline = Date.now() + this.budgetMs;
    return this.serially(() => this.record(input, deadline));
  }

  /**
   * Checkpoints follow their sessions' retention: the records and refs of sessions for which
   * `kept` is false are dropped, and gc frees their objects later (checkpoint commits have no
   * parents, so nothing else holds them). Returns the ids dropped. In the queue with snapshots,
   * so a checkpoint being recorded is never dropped half-way.
   */
  retain(kept: (sessionId: string) => boolean): Promise<readonly string[]> {
    return this.serially(async () => {
      const index = await this.readIndex();
      const gone = index.checkpoints.filter((record) => !kept(record.sessionId));
      if (gone.length === 0) return [];
      // The index first: a ref left behind only keeps objects a little longer; a record without its ref would fail a rewind.
      await this.writeIndex({ ...index, checkpoints: index.checkpoints.filter((record) => kept(record.sessionId)) });
      await this.run(['update-ref', '--stdin'], Date.now() + this.budgetMs, {
        input: gone.map((record) => `delete refs/zuno/${record.id}\n`).join(''),
      });
      return gone.map((record) => record.id);
    });
  }

  /** Stops every git this object runs (a warm-up, say), so a process can exit; later calls fail. */
  close(): void {
    this.closing.abort();
  }

  private serially<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.queue.then(operation);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async record(input: SnapshotInput, deadline: number): Promise<CheckpointRecord> {
    await this.prepare(deadline);
    const state = await this.capture(deadline);
    const index = await this.readIndex();
    const number = index.next;
    const id = RESTORABLE_KINDS.has(input.kind) ? `cp-${number}` : `snap-${number}`;
    const message = `${input.kind} ${id} of session ${input.sessionId}`;
    // No parent: a commit chain would keep every older checkpoint reachable, and retention could free nothing.
    const commit = (await this.run(['commit-tree', state.tree, '-m', message], deadline)).stdout.toString('utf8').trim();
    // The ref keeps the checkpoint's objects from gc. Written as git writes a loose ref, without another process.
    await mkdir(join(this.gitDir, 'refs', 'zuno'), { recursive: true });
    await writeFileAtomic(join(this.gitDir, 'refs', 'zuno', id), `${commit}\n`);
    const record: CheckpointRecord = {
      id,
      sessionId: input.sessionId,
      kind: input.kind,
      createdAt: Date.now(),
      commit,
      tree: state.tree,
      ...(input.messageIndex !== undefined ? { messageIndex: input.messageIndex } : {}),
      ...(input.prompt !== undefined ? { prompt: input.prompt.slice(0, PROMPT_CHARS) } : {}),
      skipped: state.skipped,
      nested: state.nested,
    };
    await this.writeIndex({ version: 1, next: number + 1, checkpoints: [...index.checkpoints, record] });
    return record;
  }

  /** The work tree's tree as it is now, through a scratch index: nothing is recorded and the shadow index is untouched. */
  async current(): Promise<TreeState> {
    const deadline = Date.now() + this.budgetMs;
    await this.prepare(deadline);
    const scratch = join(this.folder, `scratch-${process.pid}-${randomBytes(4).toString('hex')}.index`);
    try {
      await copyFile(join(this.gitDir, 'index'), scratch).catch(() => undefined);
      return await this.capture(deadline, scratch);
    } finally {
      await rm(scratch, { force: true });
    }
  }

  /** What changed from tree `from` to tree `to`, as a rewind to `from` sees it. */
  async changes(from: string, to: string): Promise<FileChangeSince[]> {
    if (from === to) return [];
    const deadline = Date.now() + this.budgetMs;
    const fields = nulFields((await this.run(['diff-tree', '-r', '-z', '--no-renames', '--name-status', from, to], deadline)).stdout);
    const changes: FileChangeSince[] = [];
    for (let index = 0; index + 1 < fields.length; index += 2) {
      const status = fields[index] ?? '';
      const path = fields[index + 1] ?? '';
      changes.push({ path, change: status === 'A' ? 'added' : status === 'D' ? 'removed' : 'modified' });
    }
    return changes;
  }

  /**
   * The unified diff of one path from tree `from` to tree `to` (`from` now, `to` the checkpoint:
   * what a rewind would do), without textconv or external diff; empty when the path is the same.
   */
  async diff(from: string, to: string, path: string): Promise<string> {
    const args = ['diff-tree', '-p', '--no-renames', '--no-color', '--no-ext-diff', '--no-textconv', from, to, '--', literal(path)];
    return (await this.run(args, Date.now() + this.budgetMs)).stdout.toString('utf8');
  }

  /** The text of a file in a checkpoint's tree, for previews; undefined when it is not there. */
  async fileAt(tree: string, path: string): Promise<Buffer | undefined> {
    const result = await this.run(['cat-file', 'blob', `${tree}:${path}`], Date.now() + this.budgetMs, { allow: [128] });
    return result.code === 0 ? result.stdout : undefined;
  }

  /**
   * Puts the files of `changes` back as they were in `record`: added files are removed (and the
   * folders they leave empty), removed and modified files are written from the checkpoint, modes
   * included. Nothing else is touched.
   */
  restore(record: CheckpointRecord, changes: readonly FileChangeSince[]): Promise<void> {
    return this.serially(() => this.restoreFiles(record, changes));
  }

  private async restoreFiles(record: CheckpointRecord, changes: readonly FileChangeSince[]): Promise<void> {
    const deadline = Date.now() + this.budgetMs;
    const root = await realpath(this.workspaceRoot);
    for (const { path } of changes.filter((change) => change.change === 'added')) {
      const absolute = join(root, path);
      // git never records a path below a symlink, but the tree may have changed since: stay inside.
      const parent = await realpath(dirname(absolute)).catch(() => undefined);
      if (parent === undefined || (parent !== root && !parent.startsWith(`${root}${sep}`))) continue;
      await rm(absolute, { force: true });
      await removeEmptyParents(root, dirname(absolute));
    }
    const back = changes.filter((change) => change.change !== 'added');
    if (back.length > 0) {
      await this.run(['checkout', record.commit, '--pathspec-from-file=-', '--pathspec-file-nul'], deadline, {
        input: back.map((change) => `${literal(change.path)}\0`).join(''),
      });
    }
  }

  /**
   * Paths changed while Zuno was not working, after `since`: between one turn's end and the next
   * checkpoint, and from the last recorded state to `now`. A rewind would overwrite them.
   */
  async changedOutside(since: CheckpointRecord, now: string): Promise<Set<string>> {
    const records = await this.records();
    const start = records.findIndex((record) => record.id === since.id);
    const outside = new Set<string>();
    const timeline = [...records.slice(start), { kind: 'now', tree: now, sessionId: '' } as const];
    for (let index = 0; index + 1 < timeline.length; index++) {
      const before = timeline[index];
      const after = timeline[index + 1];
      if (!before || !after) continue;
      const zunos =
        (before.kind === 'turn' && after.kind === 'after-turn' && before.sessionId === after.sessionId) ||
        (before.kind === 'before-rewind' && after.kind === 'after-rewind');
      if (zunos) continue;
      for (const change of await this.changes(before.tree, after.tree)) outside.add(change.path);
    }
    return outside;
  }

  /** Creates the shadow repository once, with its isolating config. */
  private prepare(deadline: number): Promise<void> {
    this.ready ??= this.initialise(deadline).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  private async initialise(deadline: number): Promise<void> {
    await mkdir(this.folder, { recursive: true });
    // The excludes file (core.excludesFile) is Zuno's, not the user's: it holds only the state dir,
    // when that lies inside the workspace (`--state-dir <workspace>/.zuno/state`), so that no
    // checkpoint holds the store, or the shadow repository itself, and no rewind touches them.
    const root = await realpath(this.workspaceRoot);
    const state = relative(root, await realpath(dirname(this.folder)));
    const inside = state !== '' && !state.startsWith('..') && !isAbsolute(state);
    await writeFile(join(this.folder, EXCLUDES_FILE), inside ? `${excludeLine(state.split(sep).join('/'))}/\n` : '');
    const exists = await lstat(join(this.gitDir, 'HEAD')).then(
      () => true,
      () => false,
    );
    if (exists) return;
    // Bare: `git init` with a work tree would record it in the config; GIT_WORK_TREE is given on every run instead.
    await this.run(['init', '--quiet', '--bare'], deadline, { withoutWorkTree: true });
    const settings: [string, string][] = [
      ['core.bare', 'false'],
      ['core.hooksPath', devNull],
      ['core.fsmonitor', 'false'],
      ['core.excludesFile', join(this.folder, EXCLUDES_FILE)],
      ['core.autocrlf', 'false'],
      ['core.safecrlf', 'false'],
      ['core.symlinks', 'true'],
      ['core.quotePath', 'false'],
      ['core.untrackedCache', 'true'],
      ['gc.auto', '0'],
      ['commit.gpgSign', 'false'],
    ];
    for (const [key, value] of settings) await this.run(['config', key, value], deadline);
    await mkdir(join(this.gitDir, 'info'), { recursive: true });
    // Highest-priority attributes: no filter, no eol conversion, so blobs are the bytes on disk.
    await writeFile(join(this.gitDir, 'info', 'attributes'), '* -text -filter -ident !eol !working-tree-encoding\n');
    await writeFile(join(this.gitDir, 'info', 'exclude'), '# Nested repositories, left to their own history (issue 13).\n');
  }

  /** Stages the work tree (skipping nested repositories and large files) and writes its tree. */
  private async capture(deadline: number, indexFile?: string): Promise<TreeState> {
    const options = indexFile !== undefined ? { indexFile } : {};
    const candidates = nulFields(
      (await this.run(['ls-files', '-z', '--others', '--modified', '--exclude-standard'], deadline, options)).stdout,
    );
    const nestedNow = candidates.filter((path) => path.endsWith('/')).map((path) => path.slice(0, -1));
    const known = await this.knownNested();
    const fresh = nestedNow.filter((path) => !known.includes(path));
    if (fresh.length > 0) {
      const excludes = join(this.gitDir, 'info', 'exclude');
      await writeFile(excludes, `${await readFile(excludes, 'utf8')}${fresh.map(excludeLine).join('\n')}\n`);
      // A folder that became a repository after it was snapshotted: drop its files from the index.
      await this.run(['rm', '-r', '--cached', '--quiet', '--ignore-unmatch', '--pathspec-from-file=-', '--pathspec-file-nul'], deadline, {
        ...options,
        input: fresh.map((path) => `${literal(path)}\0`).join(''),
      });
    }
    const skipped: string[] = [];
    for (const path of candidates) {
      if (path.endsWith('/')) continue;
      const stat = await lstat(join(this.workspaceRoot, path)).catch(() => undefined);
      if (stat?.isFile() && stat.size > MAX_FILE_BYTES) skipped.push(path);
    }
    const changed = candidates.filter((path) => !path.endsWith('/') && !skipped.includes(path));
    // Naming the changed paths spares git a second walk of the tree; past a few hundred, matching
    // every path against every pathspec costs more than the walk.
    const walk = ['.', ...skipped.map((path) => `:(exclude,literal)${path}`)];
    const add = (pathspecs: readonly string[]): Promise<GitResult> =>
      this.run(['add', '-A', '--pathspec-from-file=-', '--pathspec-file-nul'], deadline, {
        ...options,
        input: pathspecs.map((spec) => `${spec}\0`).join(''),
      });
    if (changed.length > MAX_NAMED_PATHS) await add(walk);
    // A named file that vanished since the listing fails the add: the walk then finds what is there.
    else if (changed.length > 0) await add(changed.map(literal)).catch(() => add(walk));
    // A file that grew past the limit leaves its older version out too, so no checkpoint holds stale content.
    if (skipped.length > 0)
      await this.run(['update-index', '-z', '--force-remove', '--stdin'], deadline, {
        ...options,
        input: skipped.map((path) => `${path}\0`).join(''),
      });
    const tree = (await this.run(['write-tree'], deadline, options)).stdout.toString('utf8').trim();
    return { tree, skipped, nested: [...new Set([...known, ...nestedNow])].sort() };
  }

  /** Nested repositories already excluded, from the shadow's `info/exclude`. */
  private async knownNested(): Promise<string[]> {
    const text = await readFile(join(this.gitDir, 'info', 'exclude'), 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter((line) => line.startsWith('/'))
      .map((line) => line.slice(1).replace(/\\(.)/g, '$1'));
  }

  private async readIndex(): Promise<IndexFile> {
    let text: string;
    try {
      text = await readFile(this.indexPath, 'utf8');
    } catch {
      return { version: 1, next: 1, checkpoints: [] };
    }
    try {
      return JSON.parse(text) as IndexFile;
    } catch (error) {
      throw new CheckpointError(
        `The checkpoint index ${this.indexPath} is not valid JSON (${error instanceof Error ? error.message : String(error)}). Move it away to start a new list; the shadow repository keeps the snapshots under refs/zuno/.`,
      );
    }
  }

  private writeIndex(index: IndexFile): Promise<void> {
    return writeFileAtomic(this.indexPath, `${JSON.stringify(index, null, 1)}\n`);
  }

  private async run(args: readonly string[], deadline: number, options: GitRun = {}): Promise<GitResult> {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new CheckpointError(`The checkpoint took longer than its ${this.budgetMs / 1000} s budget and was given up.`);
    const env = isolatedEnvironment(this.gitDir, options.withoutWorkTree ? undefined : this.workspaceRoot, this.folder, options.indexFile);
    const result = await runProcess(this.git, ['-c', `core.hooksPath=${devNull}`, '-c', 'core.fsmonitor=false', ...args], {
      env,
      cwd: this.workspaceRoot,
      timeoutMs: remaining,
      signal: this.closing.signal,
      ...(options.input !== undefined ? { input: options.input } : {}),
    }).catch(async (error: unknown) => {
      // A git stopped mid-way leaves its index lock behind, which would fail every later checkpoint.
      await rm(`${options.indexFile ?? join(this.gitDir, 'index')}.lock`, { force: true });
      throw new CheckpointError(`git ${args[0] ?? ''} could not run: ${error instanceof Error ? error.message : String(error)}`);
    });
    if (result.code !== 0 && !(options.allow ?? []).includes(result.code)) {
      throw new CheckpointError(`git ${args[0] ?? ''} failed (exit ${result.code}): ${result.stderr.trim().slice(0, 500)}`);
    }
    return result;
  }
}

/** The user's environment without any GIT_* variable, plus the shadow repository's. */
function isolatedEnvironment(
  gitDir: string,
  workTree: string | undefined,
  folder: string,
  indexFile: string | undefined,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.toUpperCase().startsWith('GIT_')) env[key] = value;
  return {
    ...env,
    GIT_DIR: gitDir,
    ...(workTree !== undefined ? { GIT_WORK_TREE: workTree } : {}),
    ...(indexFile !== undefined ? { GIT_INDEX_FILE: indexFile } : {}),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: devNull,
    GIT_ATTR_NOSYSTEM: '1',
    // Older gits read $XDG_CONFIG_HOME/git/{config,ignore,attributes}: point it at a folder with none.
    XDG_CONFIG_HOME: join(folder, 'no-config'),
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Zuno',
    GIT_AUTHOR_EMAIL: 'checkpoints@zuno.invalid',
    GIT_COMMITTER_NAME: 'Zuno',
    GIT_COMMITTER_EMAIL: 'checkpoints@zuno.invalid',
    LC_ALL: 'C',
  };
}

/** Temp file and rename: a crash leaves the old file or the new one. */
async function writeFileAtomic(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}

/** Removes folders left empty, up to (not including) the root. */
async function removeEmptyParents(root: string, folder: string): Promise<void> {
  let current = folder;
  while (current !== root && current.startsWith(`${root}${sep}`)) {
    const entries = await readdir(current).catch(() => undefined);
    if (entries === undefined || entries.length > 0) return;
    await rmdir(current).catch(() => undefined);
    current = dirname(current);
  }
}

/** Runs a program to exit, collecting stdout whole; killed when the timeout passes. */
function runProcess(
  command: string,
  args: readonly string[],
  options: {
    readonly env: NodeJS.ProcessEnv;
    readonly cwd: string;
    readonly timeoutMs: number;
    readonly input?: string;
    readonly signal?: AbortSignal;
  },
): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new Error('the checkpoints were closed'));
      return;
    }
    const child = spawn(command, args, {
      env: options.env,
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
      ...(options.signal ? { signal: options.signal, killSignal: 'SIGKILL' as const } : {}),
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut) reject(new Error(`it ran past the time budget (${Math.round(options.timeoutMs)} ms) and was stopped`));
      else resolve({ stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString('utf8'), code: code ?? -1 });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}
