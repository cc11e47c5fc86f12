/**
 * Moves a workspace's state out of `<workspace>/.zuno/state` to the per-user directory (issue 9,
 * "State outside the workspace"). People lose sessions in migrations (OpenCode), so the move is
 * copy, verify, then rename: the old folder is never deleted, only renamed to
 * `state.migrated-<date>`, and a migration that fails leaves it exactly as it was.
 *
 * Two first opens at once (the CLI and the editor) are kept apart by the old store's own
 * one-writer lock: the migrator holds it from before the copy until the old folder is renamed,
 * so nobody writes the old store while it is copied, and the second opener waits, then finds the
 * new directory in place.
 */
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  cpSync,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  unlinkSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import type { EventBus } from '../core/events';
import { defaultStateDir, legacyStateDir } from './location';
import { StateDirInUseError } from './errors';
import { acquireLock, LOCK_FILE, type LockHandle } from './lock';

/** A migration that could not finish; the old state dir is untouched. The message names both paths. */
export class StateMigrationError extends Error {
  override readonly name = 'StateMigrationError';
}

export interface StateDirChoice {
  /** The workspace's path; its real path keys the default directory. */
  readonly workspaceRoot: string;
  /** `--state-dir`: this exact directory, no migration (the user chose where the store is). */
  readonly explicit?: string;
  /** The setting `zuno.stateDir`: a folder for every workspace's state instead of the platform's. */
  readonly root?: string;
  readonly platform?: NodeJS.Platform;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly home?: string;
}

export interface ResolvedStateDir {
  readonly stateDir: string;
  /** The pre-issue-9 folder to migrate from, when the state dir was not chosen explicitly. */
  readonly legacyDir?: string;
}

/** The state dir for a workspace: `--state-dir` when given, else the per-user default keyed by the real path. */
export function resolveStateDir(choice: StateDirChoice): ResolvedStateDir {
  if (choice.explicit !== undefined) return { stateDir: choice.explicit };
  const platform = choice.platform ?? process.platform;
  const workspaceRoot = realpathSync.native(choice.workspaceRoot);
  const stateDir = defaultStateDir({
    workspaceRoot,
    platform,
    env: choice.env ?? process.env,
    home: choice.home ?? homedir(),
    ...(choice.root !== undefined ? { root: choice.root } : {}),
  });
  return { stateDir, legacyDir: legacyStateDir(workspaceRoot, platform) };
}

export interface MigrationOptions {
  readonly from: string;
  readonly to: string;
  /** Dates the renamed old folder; UTC. */
  readonly now?: () => Date;
  /** How long a second opener waits for a migration in progress (or an old Zuno holding the old store). */
  readonly waitMs?: number;
}

export interface MigrationResult {
  /** The old folder's new name. */
  readonly migratedTo: string;
  /** What to tell the user: where the state now lives and where the old copy is. */
  readonly notice: string;
  /** Set when the state moved but the old folder could not be renamed: it is no longer read. */
  readonly warning?: string;
}

const isDirectory = (path: string): boolean => existsSync(path) && lstatSync(path).isDirectory();
const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The lock and its drafts (`lock.<token>`, `lock.stale.<token>`) belong to a process, not to the store. */
const isLockFile = (name: string): boolean => name === LOCK_FILE || name.startsWith(`${LOCK_FILE}.`);

/** Every file under `root` (relative paths), lock files left out, symlinks listed as themselves. */
function listFiles(root: string, under = ''): string[] {
  return readdirSync(join(root, under), { withFileTypes: true }).flatMap((entry) => {
    const path = join(under, entry.name);
    if (under === '' && isLockFile(entry.name)) return [];
    return entry.isDirectory() ? listFiles(root, path) : [path];
  });
}

/** The copy holds the same files with the same bytes as the original, or this says which differs. */
function verifyCopy(from: string, copy: string): void {
  const expected = listFiles(from).sort();
  const actual = listFiles(copy).sort();
  if (expected.join('\n') !== actual.join('\n')) {
    throw new Error(`the copy in ${copy} does not hold the same files as ${from}`);
  }
  for (const file of expected) {
    const original = lstatSync(join(from, file)).isSymbolicLink() ? Buffer.from('') : readFileSync(join(from, file));
    const copied = lstatSync(join(copy, file)).isSymbolicLink() ? Buffer.from('') : readFileSync(join(copy, file));
    if (!original.equals(copied)) throw new Error(`${join(copy, file)} differs from ${join(from, file)}`);
  }
}

/** Removes our own half-made copy; failing to (its parent is not a folder) leaves nothing to remove. */
function removeQuietly(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
  } catch {
    // Reported by the caller's error, which is about the same target.
  }
}

/**
 * fsyncs a file or folder, so that the copy is on disk before the old folder is renamed away.
 * Windows cannot open a folder; NTFS journals renames.
 */
function syncPath(path: string): void {
  if (process.platform === 'win32' && lstatSync(path).isDirectory()) return;
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Every file and folder of the copy, deepest first, then the copy itself. */
function syncTree(root: string): void {
  for (const file of listFiles(root)) if (!lstatSync(join(root, file)).isSymbolicLink()) syncPath(join(root, file));
  const folders = (under: string): string[] =>
    readdirSync(join(root, under), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? [...folders(join(under, entry.name)), join(under, entry.name)] : [],
    );
  for (const folder of folders('')) syncPath(join(root, folder));
  syncPath(root);
}

/** `state.migrated-2026-12-02`, or `…-2`, `…-3` when an earlier migration of the same day is still there. */
function migratedName(from: string, now: Date): string {
  const base = `${from}.migrated-${now.toISOString().slice(0, 10)}`;
  let candidate = base;
  for (let index = 2; existsSync(candidate); index++) candidate = `${base}-${index}`;
  return candidate;
}

/** Takes the old store's lock, waiting while another process holds it; undefined when the old folder went away (moved by another opener). */
async function lockOld(from: string, to: string, waitMs: number): Promise<LockHandle | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return acquireLock(from);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      if (!(error instanceof StateDirInUseError)) throw error;
      if (isDirectory(to)) return undefined;
      if (Date.now() >= deadline) {
        throw new StateMigrationError(
          `Zuno's state moves out of the workspace, from ${from} to ${to}, but ${from} is in use: ${error.message} ` +
            'Close that Zuno (an editor window or a zuno exec, perhaps an older version), then try again; nothing was moved.',
        );
      }
      await sleep(100);
    }
  }
}

/**
 * Migrates `from` (the old `<workspace>/.zuno/state`) to `to` when `to` does not exist yet.
 * Returns undefined when there is nothing to do (no old folder, the new one already there, or
 * another process migrated it meanwhile). Throws StateMigrationError, with the old folder
 * untouched, when the copy cannot be made or verified.
 */
export async function migrateStateDir(options: MigrationOptions): Promise<MigrationResult | undefined> {
  const { from, to } = options;
  if (isDirectory(to) || !isDirectory(from)) return undefined;
  const lock = await lockOld(from, to, options.waitMs ?? 15_000);
  if (!lock) return undefined;
  let moved = false;
  try {
    // Another opener may have finished while we waited for the lock.
    if (isDirectory(to)) return undefined;
    const staging = join(dirname(to), `.${basename(to)}.migrating-${randomUUID()}`);
    try {
      mkdirSync(dirname(to), { recursive: true });
      cpSync(from, staging, { recursive: true, verbatimSymlinks: true, filter: (source) => !isLockFile(relative(from, source)) });
      verifyCopy(from, staging);
      syncTree(staging);
      // Atomic: a reader sees no directory or the whole verified copy.
      renameSync(staging, to);
      syncPath(dirname(to));
    } catch (error) {
      removeQuietly(staging);
      // A store was created at `to` meanwhile by a process that did not migrate (e.g. one given --state-dir): keep both.
      if (isDirectory(to) && (errorCode(error) === 'ENOTEMPTY' || errorCode(error) === 'EEXIST')) return undefined;
      throw new StateMigrationError(
        `Zuno's state moves out of the workspace, from ${from} to ${to}, and the copy failed: ${error instanceof Error ? error.message : String(error)}. ` +
          `${from} is untouched. Make ${dirname(to)} writable (or choose another folder with --state-dir, or the setting zuno.stateDir), ` +
          `or keep using the old state with --state-dir ${from}.`,
      );
    }
    const migratedTo = migratedName(from, options.now?.() ?? new Date());
    const notice = `Zuno's state for this workspace now lives in ${to}, outside the workspace.`;
    try {
      renameSync(from, migratedTo);
    } catch (error) {
      return {
        migratedTo: from,
        notice,
        warning: `The old state in ${from} was copied to ${to} but could not be renamed (${error instanceof Error ? error.message : String(error)}); it is no longer used. Rename or delete it yourself.`,
      };
    }
    moved = true;
    // The lock file went along with the folder; it is ours, and a lock in a folder nobody opens means nothing.
    unlinkSync(join(migratedTo, LOCK_FILE));
    syncPath(dirname(from));
    return { migratedTo, notice: `${notice} The old copy is kept in ${migratedTo}; delete it once you no longer need it.` };
  } finally {
    if (!moved) lock.release();
  }
}

/**
 * Creates the state dir and returns its real path: the policy refuses tool writes inside it by
 * comparing real paths (issue 8 §3), and the per-user folder may sit behind a symlinked home.
 */
export function ensureStateDir(stateDir: string): string {
  mkdirSync(stateDir, { recursive: true });
  return realpathSync.native(stateDir);
}

/**
 * Tells the move in the next session that starts, as `notice` events: they reach the chat view
 * and `--json` readers, and stay in that session's record. Returns a function that stops waiting.
 */
export function announceMigration(events: EventBus, migration: MigrationResult): () => void {
  const stop = events.on((event) => {
    if (event.type !== 'session-started') return;
    stop();
    events.emit(event.session_id, { type: 'notice', level: 'info', text: migration.notice });
    if (migration.warning) events.emit(event.session_id, { type: 'notice', level: 'warning', text: migration.warning });
  });
  return stop;
}

/** Resolves the state dir and migrates the old in-workspace state into it on first open. */
export async function prepareStateDir(
  choice: StateDirChoice,
  options: Pick<MigrationOptions, 'now' | 'waitMs'> = {},
): Promise<{ stateDir: string; migration?: MigrationResult }> {
  const { stateDir, legacyDir } = resolveStateDir(choice);
  if (legacyDir === undefined) return { stateDir };
  const migration = await migrateStateDir({ from: legacyDir, to: stateDir, ...options });
  return migration ? { stateDir, migration } : { stateDir };
}
