/**
 * The host file system on node:fs/promises. Paths are absolute; tools resolve them first.
 *
 * Everything that changes the disk, and the `…Checked` reads, take a checked real path (the
 * scheduler resolved it and the policy allowed it, SPEC §9) and re-verify it at the moment they
 * open it, so a process swapping a folder for a symlink cannot redirect them (issue 8 item 4).
 */
import { constants, createReadStream, existsSync, promises as fsp, type Dirent, type ReadStream, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import { ToolError } from '../../core/errors';
import type { DirectoryEntry, FileStat, FileType, HostFileSystem } from '../../core/host';

/** Symlink hops followed while resolving a path that does not exist yet, as the kernel's own limit. */
const MAX_SYMLINK_HOPS = 40;

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

/** Errors that mean "nothing is there", as opposed to "cannot look". */
function isMissing(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function typeOf(stats: Stats): FileType {
  if (stats.isFile()) return 'file';
  if (stats.isDirectory()) return 'directory';
  if (stats.isSymbolicLink()) return 'symlink';
  return 'other';
}

function toFileStat(stats: Stats): FileStat {
  return { type: typeOf(stats), size: stats.size, mtimeMs: stats.mtimeMs };
}

async function statOrUndefined(read: () => Promise<Stats>): Promise<FileStat | undefined> {
  try {
    return toFileStat(await read());
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/**
 * Resolves symlinks in a path that may not exist yet: the nearest existing ancestor is resolved
 * and the rest appended. A dangling symlink is followed to where a write would really land.
 */
async function realpathAllowingMissing(path: string, hops = 0): Promise<string> {
  const absolute = resolve(path);
  try {
    return await fsp.realpath(absolute);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  const parent = dirname(absolute);
  if (parent === absolute) return absolute;
  const name = basename(absolute);
  const link = await fsp.readlink(absolute).catch(() => undefined);
  if (link !== undefined && hops < MAX_SYMLINK_HOPS) {
    return realpathAllowingMissing(resolve(await realpathAllowingMissing(parent, hops + 1), link), hops + 1);
  }
  return join(await realpathAllowingMissing(parent, hops), name);
}

async function* readChunks(open: () => ReadStream | Promise<ReadStream>): AsyncGenerator<Uint8Array> {
  // Opened on the first read, not before. Breaking out of the loop runs the generator's finally,
  // which destroys the stream: a reader that stops early stops the disk reads too.
  const stream = await open();
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } finally {
    stream.destroy();
  }
}

/**
 * Why a checked path was refused: what was there when the call was checked is not what is there
 * now. Paths reaching the host have every symlink resolved, so a symlink in one means a swap.
 */
export class PathChangedError extends ToolError {
  constructor(path: string, nothing: 'written' | 'read') {
    super(
      `${path} changed while the call ran (a symlink now leads outside the workspace, or somewhere else than when the call was checked); ` +
        `nothing was ${nothing}. Look at the path again (read or glob), then send the call again if it is still what you mean.`,
    );
  }
}

/**
 * Why a write was refused: the file or its directory is read-only. An atomic write replaces the
 * file by renaming a new one over it, which the file's own mode does not stop; a file the user
 * made read-only must stay unwritten, so the write path checks first (issue 15).
 */
export class ReadOnlyError extends ToolError {
  constructor(path: string, target: { readonly directory: string; readonly mode: number } | { readonly mode: number }) {
    const mode = (target.mode & 0o7777).toString(8).padStart(4, '0');
    const where =
      'directory' in target
        ? `its directory ${target.directory} is read-only (mode ${mode}), so no file there can be created, replaced, renamed or deleted`
        : `it is read-only (mode ${mode})`;
    super(
      `${path} was not changed: ${where}. The user made it so; leave it unchanged, or ask the user to make it writable. ` +
        `Do not work around it (for example with chmod in a shell).`,
    );
  }
}

/**
 * Whether the user may write what `at` names. Root passes `access` for every file, yet a file or
 * directory without any write bit was made read-only on purpose, so that counts as well.
 */
async function isWritable(at: string, stats: Stats): Promise<boolean> {
  if ((stats.mode & 0o222) === 0) return false;
  return fsp.access(at, constants.W_OK).then(
    () => true,
    () => false,
  );
}

/** Throws ReadOnlyError unless the directory `at` (naming `directory`, for `path`) is writable. */
async function assertWritableDirectory(at: string, directory: string, path: string): Promise<void> {
  const stats = await fsp.stat(at);
  if (!(await isWritable(at, stats))) throw new ReadOnlyError(path, { directory, mode: stats.mode });
}

/** O_NOFOLLOW and O_DIRECTORY are missing on Windows; there the lstat walk below does the work. */
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;

/**
 * How an opened descriptor is tied back to the checked path. `fd-path` (Linux): the kernel's own
 * name for the descriptor, `/proc/self/fd/N`, must be the checked path, and every later step goes
 * through that magic link, which resolves through the opened directory and never by name again.
 * `identity` (elsewhere): every component is lstat-ed (no symlink allowed), and the descriptor's
 * dev/inode must be the path's, checked before and after each step; a mismatch fails closed.
 */
export type VerificationMode = 'fd-path' | 'identity';

function defaultVerification(): VerificationMode {
  return process.platform === 'linux' && existsSync('/proc/self/fd') ? 'fd-path' : 'identity';
}

const fdPath = (handle: FileHandle): string => `/proc/self/fd/${handle.fd}`;

/** Every ancestor of an absolute path, outermost first, then the path itself. */
function components(path: string): string[] {
  const chain: string[] = [];
  for (let current = path; ; current = dirname(current)) {
    chain.unshift(current);
    if (dirname(current) === current) return chain;
  }
}

/**
 * The checked path's own stats, after making sure no component of it is a symlink. `undefined`
 * when the path (or an ancestor) does not exist.
 */
async function lstatChain(path: string, nothing: 'written' | 'read'): Promise<Stats | undefined> {
  let last: Stats | undefined;
  for (const component of components(path)) {
    try {
      last = await fsp.lstat(component);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    if (last.isSymbolicLink()) throw new PathChangedError(path, nothing);
  }
  return last;
}

/**
 * Whether an open of a checked real path failed because a symlink stood in it. ELOOP: the final
 * component was one (O_NOFOLLOW), and a checked real path has none. ENOTDIR (a directory was
 * asked for, or a component is not one): a swap too, unless a component really is a file now,
 * which is the model's mistake (`a.txt/b`), not a race. The link may be gone again by now.
 */
async function isSwap(error: unknown, path: string): Promise<boolean> {
  const code = errorCode(error);
  if (code === 'ELOOP') return true;
  if (code !== 'ENOTDIR') return false;
  for (const component of components(path)) {
    const stats = await fsp.lstat(component).catch(() => undefined);
    if (!stats) return true;
    if (stats.isSymbolicLink()) return true;
    if (!stats.isDirectory()) return false;
  }
  return true;
}

const sameFile = (left: Stats, right: Stats): boolean => left.dev === right.dev && left.ino === right.ino;

class VerifiedFileSystem {
  constructor(private readonly mode: VerificationMode) {}

  /**
   * Opens `path` (a checked real path) without following a final symlink, and proves the
   * descriptor is that path. `openAt` is where to open it from: the path itself, or on Linux a
   * name under an already verified directory's descriptor.
   */
  async open(path: string, flags: number, nothing: 'written' | 'read', openAt = path): Promise<FileHandle> {
    let handle: FileHandle;
    try {
      handle = await fsp.open(openAt, flags | O_NOFOLLOW);
    } catch (error) {
      if (await isSwap(error, path)) throw new PathChangedError(path, nothing);
      throw error;
    }
    try {
      await this.verify(handle, path, nothing);
      return handle;
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  /** Throws PathChangedError unless `handle` is the file or directory at `path`, reached without symlinks. */
  async verify(handle: FileHandle, path: string, nothing: 'written' | 'read'): Promise<void> {
    if (this.mode === 'fd-path') {
      // A swapped-in symlink anywhere along the path shows here as a different name.
      if ((await fsp.readlink(fdPath(handle))) !== path) throw new PathChangedError(path, nothing);
      return;
    }
    const [byName, opened] = await Promise.all([lstatChain(path, nothing), handle.stat()]);
    if (!byName || !sameFile(byName, opened)) throw new PathChangedError(path, nothing);
  }

  /** Where to reach `name` inside the verified directory `directory` opened as `handle`. */
  child(handle: FileHandle, directory: string, name: string): string {
    return this.mode === 'fd-path' ? join(fdPath(handle), name) : join(directory, name);
  }

  async openDirectory(path: string, nothing: 'written' | 'read'): Promise<FileHandle> {
    return this.open(path, constants.O_RDONLY | O_DIRECTORY, nothing);
  }

  /**
   * `mkdir -p` that never follows a symlink: each missing directory is created inside its
   * verified parent (through the parent's descriptor on Linux) and verified in turn.
   */
  async openDirectoryCreating(path: string): Promise<FileHandle> {
    try {
      return await this.openDirectory(path, 'written');
    } catch (error) {
      if (errorCode(error) !== 'ENOENT' || dirname(path) === path) throw error;
    }
    const parent = await this.openDirectoryCreating(dirname(path));
    try {
      const at = this.child(parent, dirname(path), basename(path));
      await fsp.mkdir(at).catch((error: unknown) => {
        if (errorCode(error) !== 'EEXIST') throw error;
      });
      return await this.open(path, constants.O_RDONLY | O_DIRECTORY, 'written', at);
    } finally {
      await parent.close();
    }
  }

  async readFile(path: string): Promise<Uint8Array> {
    const handle = await this.open(path, constants.O_RDONLY, 'read');
    try {
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  readStream(path: string, signal: AbortSignal | undefined): AsyncGenerator<Uint8Array> {
    // The stream owns the descriptor once opened and closes it, also when the reader stops early.
    return readChunks(async () =>
      createReadStream('', { fd: await this.open(path, constants.O_RDONLY, 'read'), ...streamOptions(signal) }),
    );
  }

  async readDirectory(path: string): Promise<DirectoryEntry[]> {
    const handle = await this.openDirectory(path, 'read');
    try {
      const entries = await fsp.readdir(this.child(handle, path, ''), { withFileTypes: true });
      // Elsewhere the listing went by name: make sure it was still the checked directory.
      if (this.mode === 'identity') await this.verify(handle, path, 'read');
      return entries.map((entry) => ({ name: entry.name, type: direntType(entry) }));
    } finally {
      await handle.close();
    }
  }

  /** Runs `step` with `path`'s parent directory opened and verified, given how to reach `path` inside it. */
  async inParent<T>(path: string, step: (at: string, verifyParent: () => Promise<void>) => Promise<T>, create = false): Promise<T> {
    const directory = dirname(path);
    const handle = create ? await this.openDirectoryCreating(directory) : await this.openDirectory(directory, 'written');
    try {
      return await step(this.child(handle, directory, basename(path)), () => this.verify(handle, directory, 'written'));
    } finally {
      await handle.close();
    }
  }

  async writeFileAtomic(path: string, data: Uint8Array): Promise<void> {
    await this.inParent(
      path,
      async (at, verifyParent) => {
        const existing = await fsp.lstat(at).catch((error: unknown) => {
          if (isMissing(error)) return undefined;
          throw error;
        });
        if (existing?.isSymbolicLink()) throw new PathChangedError(path, 'written');
        if (existing && !(await isWritable(at, existing))) throw new ReadOnlyError(path, { mode: existing.mode });
        await assertWritableDirectory(dirname(at), dirname(path), path);
        const existingMode = existing ? existing.mode & 0o7777 : undefined;
        const temporary = join(dirname(at), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
        const handle = await fsp.open(
          temporary,
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW,
          existingMode ?? 0o666,
        );
        try {
          await handle.writeFile(data);
          // The umask applies at open; the old file's mode must survive exactly.
          if (existingMode !== undefined) await handle.chmod(existingMode);
          await handle.sync();
          await handle.close();
          // Through the descriptor on Linux this cannot be redirected; elsewhere check again right before.
          await verifyParent();
          await fsp.rename(temporary, at);
        } catch (error) {
          await handle.close().catch(() => undefined);
          await fsp.rm(temporary, { force: true });
          throw error;
        }
        // Elsewhere a swap between the check and the rename is caught here: fail closed.
        await verifyParent();
      },
      true,
    );
  }

  async mkdir(path: string): Promise<void> {
    await (await this.openDirectoryCreating(path)).close();
  }

  async remove(path: string): Promise<void> {
    await this.inParent(path, async (at, verifyParent) => {
      const stats = await fsp.lstat(at).catch((error: unknown) => {
        if (isMissing(error)) return undefined;
        throw error;
      });
      if (!stats) return;
      await verifyParent();
      if (stats.isDirectory()) await fsp.rmdir(at);
      else await fsp.rm(at, { force: true });
    }).catch((error: unknown) => {
      // Nothing to remove when the parent is gone too.
      if (isMissing(error)) return;
      throw error;
    });
  }

  async rename(from: string, to: string): Promise<void> {
    await this.inParent(from, (source, verifySource) =>
      this.inParent(to, async (target, verifyTarget) => {
        // Moving or setting aside a read-only file, or renaming in a read-only directory, is
        // writing it too; refused before anything moves.
        const moved = await fsp.lstat(source);
        if (moved.isFile() && !(await isWritable(source, moved))) throw new ReadOnlyError(from, { mode: moved.mode });
        await assertWritableDirectory(dirname(source), dirname(from), from);
        await assertWritableDirectory(dirname(target), dirname(to), to);
        await verifySource();
        await verifyTarget();
        await fsp.rename(source, target);
      }),
    );
  }
}

/**
 * A checked real directory held open for a child process to start in (`ProcessSpec.verifiedCwd`).
 * `cwd` is where the child is started: on Linux the parent's descriptor as
 * `/proc/<pid>/fd/N`, which the kernel resolves to the opened folder when the child changes
 * into it; elsewhere the path itself. `verify` rejects with PathChangedError unless the child
 * went where the check said: nothing to do through the descriptor, an identity check of the
 * path otherwise (call it once the child has started). Close it once the child has started.
 */
export interface PinnedDirectory {
  readonly cwd: string;
  verify(): Promise<void>;
  close(): Promise<void>;
}

export async function pinDirectory(path: string, verification: VerificationMode = defaultVerification()): Promise<PinnedDirectory> {
  const verified = new VerifiedFileSystem(verification);
  const handle = await verified.openDirectory(path, 'read');
  return {
    // `/proc/<pid>`, not `/proc/self`: the child resolves it, and its own table lacks the descriptor (O_CLOEXEC).
    cwd: verification === 'fd-path' ? `/proc/${process.pid}/fd/${handle.fd}` : path,
    verify: () => (verification === 'fd-path' ? Promise.resolve() : verified.verify(handle, path, 'read')),
    close: () => handle.close(),
  };
}

function streamOptions(signal: AbortSignal | undefined): { highWaterMark: number; signal?: AbortSignal } {
  return { highWaterMark: 64 * 1024, ...(signal ? { signal } : {}) };
}

function direntType(entry: Dirent): FileType {
  return entry.isFile() ? 'file' : entry.isDirectory() ? 'directory' : entry.isSymbolicLink() ? 'symlink' : 'other';
}

export interface NodeFileSystemOptions {
  /** Tests force `identity` to exercise the portable checks on Linux too. */
  readonly verification?: VerificationMode;
}

export function createNodeFileSystem(options: NodeFileSystemOptions = {}): HostFileSystem {
  const verified = new VerifiedFileSystem(options.verification ?? defaultVerification());
  return {
    stat: (path) => statOrUndefined(() => fsp.stat(path)),
    lstat: (path) => statOrUndefined(() => fsp.lstat(path)),
    realpath: (path) => realpathAllowingMissing(path),
    readFile: async (path) => fsp.readFile(path),
    readStream: (path, signal) => readChunks(() => createReadStream(path, streamOptions(signal))),
    async readDirectory(path): Promise<DirectoryEntry[]> {
      const entries = await fsp.readdir(path, { withFileTypes: true });
      return entries.map((entry) => ({ name: entry.name, type: direntType(entry) }));
    },
    readFileChecked: (path) => verified.readFile(path),
    readStreamChecked: (path, signal) => verified.readStream(path, signal),
    readDirectoryChecked: (path) => verified.readDirectory(path),
    writeFileAtomic: (path, data) => verified.writeFileAtomic(path, data),
    mkdir: (path) => verified.mkdir(path),
    remove: (path) => verified.remove(path),
    rename: (from, to) => verified.rename(from, to),
  };
}
