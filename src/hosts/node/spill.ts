/**
 * Spill files: the full text of an output too large to return, under `<stateDir>/outputs/`.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { SpillFile } from '../../core/host';

/** Keeps a caller-chosen name to one safe path segment. */
function safeName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '');
  return cleaned.length > 0 ? cleaned.slice(0, 120) : 'output';
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

/** Opens a new spill file; an existing file of that name gets a numbered sibling instead of being overwritten. */
export async function createSpill(stateDir: string, name: string): Promise<SpillFile> {
  const directory = join(stateDir, 'outputs');
  mkdirSync(directory, { recursive: true });
  const base = safeName(name);
  let path = join(directory, base);
  let fd: number | undefined;
  for (let suffix = 2; fd === undefined; suffix++) {
    try {
      fd = openSync(path, 'wx');
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
      path = join(directory, `${base}-${suffix}`);
    }
  }
  const descriptor = fd;
  let open = true;
  return {
    path,
    // Synchronous on purpose: a producer faster than the disk is slowed down to the disk's pace
    // instead of piling up pending writes in memory.
    write(chunk) {
      if (open) writeSync(descriptor, chunk);
    },
    async close() {
      if (!open) return;
      open = false;
      closeSync(descriptor);
    },
  };
}
