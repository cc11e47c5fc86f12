/**
 * All files or none. Codex writes a multi-file patch hunk by hunk, so a failure halfway leaves a
 * half-applied patch; here every new content is computed and verified before this module is
 * reached, and this module writes them so that an I/O error midway is undone:
 *
 * 1. creates, updates and moves are done in patch order, each file written atomically, with
 *    the originals kept in memory; a move renames the file first and then writes its new
 *    content, so the file keeps its mode (an executable script stays executable);
 * 2. files to delete are renamed aside to a hidden name in their own directory, so that undoing
 *    a delete is a rename that keeps the file's mode and identity;
 * 3. only when every step has succeeded are the set-aside files removed.
 *
 * A failure in step 1 or 2 undoes the completed steps in reverse order. A failure in step 3
 * changes nothing the user sees except a leftover hidden file, which is reported.
 */
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { ToolError } from '../../core/errors';
import type { HostFileSystem } from '../../core/host';

/** One file's verified change, with the bytes to write; paths are absolute and real. */
export type FileWrite =
  | { readonly kind: 'create'; readonly path: string; readonly data: Uint8Array }
  /** `original` is what was verified; it is restored when the update is undone. */
  | { readonly kind: 'update'; readonly path: string; readonly data: Uint8Array; readonly original: Uint8Array }
  | { readonly kind: 'delete'; readonly path: string }
  /** The file at `path` is renamed to `movedTo`, and `data` replaces its `original` content. */
  | { readonly kind: 'move'; readonly path: string; readonly movedTo: string; readonly data: Uint8Array; readonly original: Uint8Array };

export interface CommitFailure {
  /** What failed, with the system's message. */
  readonly cause: string;
  /** The host's own message when it refused the step (a read-only file): already addressed to the model. */
  readonly refusal?: string | undefined;
  /** Files that had been changed and were put back. */
  readonly restored: readonly string[];
  /** Files whose original state could not be restored; empty when the rollback was complete. */
  readonly unrestored: readonly string[];
}

export type CommitOutcome =
  { readonly committed: true; readonly leftovers: readonly string[] } | { readonly committed: false; readonly failure: CommitFailure };

/** A completed change and how to undo it. */
interface Step {
  readonly path: string;
  readonly undo: () => Promise<void>;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function asideName(path: string): string {
  return join(dirname(path), `.${basename(path)}.zuno-removed-${randomBytes(6).toString('hex')}`);
}

/** Directories a write at `path` would create: the missing ancestors, innermost first. */
async function missingDirectories(fs: HostFileSystem, path: string): Promise<string[]> {
  const missing: string[] = [];
  for (let directory = dirname(path); directory !== dirname(directory); directory = dirname(directory)) {
    if (await fs.lstat(directory)) break;
    missing.push(directory);
  }
  return missing;
}

/**
 * Puts something new at `path` (a created file, or a moved one); undoing it runs `undoPlace`
 * and then removes the directories that had to be created for it.
 */
async function placeNew(fs: HostFileSystem, path: string, place: () => Promise<void>, undoPlace: () => Promise<void>): Promise<Step> {
  const directories = await missingDirectories(fs, path);
  // `remove` only removes empty directories, so removing these never loses anything else.
  const removeDirectories = async (): Promise<void> => {
    for (const directory of directories) await fs.remove(directory);
  };
  try {
    await place();
  } catch (error) {
    // A write that failed after creating directories must not leave them behind.
    await removeDirectories().catch(() => undefined);
    throw error;
  }
  return {
    path,
    undo: async () => {
      await undoPlace();
      await removeDirectories();
    },
  };
}

/** Does one create, update or move, recording each completed step so a failure can undo it. */
async function perform(fs: HostFileSystem, write: FileWrite, steps: Step[]): Promise<void> {
  switch (write.kind) {
    case 'create': {
      const { path, data } = write;
      steps.push(
        await placeNew(
          fs,
          path,
          () => fs.writeFileAtomic(path, data),
          () => fs.remove(path),
        ),
      );
      return;
    }
    case 'update': {
      const { path, original } = write;
      await fs.writeFileAtomic(path, write.data);
      steps.push({ path, undo: () => fs.writeFileAtomic(path, original) });
      return;
    }
    case 'move': {
      const { path, movedTo, original } = write;
      const rename = async (): Promise<void> => {
        await fs.mkdir(dirname(movedTo));
        await fs.rename(path, movedTo);
      };
      // Both steps are reported under the source path: that is the file the user knows.
      steps.push({ ...(await placeNew(fs, movedTo, rename, () => fs.rename(movedTo, path))), path });
      await fs.writeFileAtomic(movedTo, write.data);
      steps.push({ path, undo: () => fs.writeFileAtomic(movedTo, original) });
      return;
    }
    case 'delete':
      return;
  }
}

export async function commitWrites(fs: HostFileSystem, writes: readonly FileWrite[]): Promise<CommitOutcome> {
  const steps: Step[] = [];
  const setAside: string[] = [];
  let current = '';
  try {
    for (const write of writes) {
      current = write.kind === 'move' ? `moving ${write.path} to ${write.movedTo}` : `writing ${write.path}`;
      await perform(fs, write, steps);
    }
    for (const write of writes) {
      if (write.kind !== 'delete') continue;
      const { path } = write;
      const aside = asideName(path);
      current = `removing ${path}`;
      await fs.rename(path, aside);
      steps.push({ path, undo: () => fs.rename(aside, path) });
      setAside.push(aside);
    }
  } catch (error) {
    const cause = `${current} failed: ${message(error)}`;
    const restored: string[] = [];
    const unrestored: string[] = [];
    for (const step of [...steps].reverse()) {
      try {
        await step.undo();
        restored.push(step.path);
      } catch {
        unrestored.push(step.path);
      }
    }
    const distinct = (paths: string[]): string[] => [...new Set(paths)];
    const refusal = error instanceof ToolError ? error.message : undefined;
    return {
      committed: false,
      failure: {
        cause,
        refusal,
        restored: distinct(restored).filter((path) => !unrestored.includes(path)),
        unrestored: distinct(unrestored),
      },
    };
  }
  const leftovers: string[] = [];
  for (const aside of setAside) {
    try {
      await fs.remove(aside);
    } catch {
      leftovers.push(aside);
    }
  }
  return { committed: true, leftovers };
}
