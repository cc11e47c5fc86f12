/**
 * The host file system on node:fs/promises. Paths are absolute; tools resolve them first.
 */
import { createReadStream, promises as fsp, type Stats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import type { DirectoryEntry, FileStat, FileType, HostFileSystem } from '../../core/host';

/** Symlink hops followed while resolving a path that does not exist yet, as the kernel's own limit. */
const MAX_SYMLINK_HOPS = 40;

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : undefined;
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

async function* readChunks(path: string, signal: AbortSignal | undefined): AsyncGenerator<Uint8Array> {
  // Breaking out of the loop runs the generator's finally, which destroys the stream: a reader
  // that stops early stops the disk reads too.
  const stream = createReadStream(path, { highWaterMark: 64 * 1024, ...(signal ? { signal } : {}) });
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } finally {
    stream.destroy();
  }
}

async function writeFileAtomic(path: string, data: Uint8Array): Promise<void> {
  // Write through a symlink to its target, so the link itself survives.
  const target = await realpathAllowingMissing(path);
  const directory = dirname(target);
  await fsp.mkdir(directory, { recursive: true });
  const existingMode = await fsp.stat(target).then(
    (stats) => stats.mode & 0o7777,
    () => undefined,
  );
  const temporary = join(directory, `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await fsp.open(temporary, 'wx', existingMode ?? 0o666);
  try {
    await handle.writeFile(data);
    // The umask applies at open; the old file's mode must survive exactly.
    if (existingMode !== undefined) await handle.chmod(existingMode);
    await handle.sync();
    await handle.close();
    await fsp.rename(temporary, target);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await fsp.rm(temporary, { force: true });
    throw error;
  }
}

export function createNodeFileSystem(): HostFileSystem {
  return {
    stat: (path) => statOrUndefined(() => fsp.stat(path)),
    lstat: (path) => statOrUndefined(() => fsp.lstat(path)),
    realpath: (path) => realpathAllowingMissing(path),
    readFile: async (path) => fsp.readFile(path),
    readStream: (path, signal) => readChunks(path, signal),
    async readDirectory(path): Promise<DirectoryEntry[]> {
      const entries = await fsp.readdir(path, { withFileTypes: true });
      return entries.map((entry) => ({
        name: entry.name,
        type: entry.isFile() ? 'file' : entry.isDirectory() ? 'directory' : entry.isSymbolicLink() ? 'symlink' : 'other',
      }));
    },
    writeFileAtomic,
    async mkdir(path) {
      await fsp.mkdir(path, { recursive: true });
    },
    async remove(path) {
      const stats = await fsp.lstat(path).catch((error: unknown) => {
        if (isMissing(error)) return undefined;
        throw error;
      });
      if (!stats) return;
      if (stats.isDirectory()) await fsp.rmdir(path);
      else await fsp.rm(path, { force: true });
    },
    rename: (from, to) => fsp.rename(from, to),
  };
}
