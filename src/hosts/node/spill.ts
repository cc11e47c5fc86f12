/**
 * Spill files: the full text of an output too large to return, under `<stateDir>/outputs/`.
 * A file stops growing at its cap (`tool_output.max_spill_bytes`, issue 12): it keeps the first
 * half of the cap and the last half, with a marker between, so `yes` cannot fill the disk. The
 * tail is kept in a ring file beside it and joined on close, so memory stays small.
 */
import { closeSync, mkdirSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
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

/** Opens `path`, or a numbered sibling when it exists, never overwriting. */
function openNew(path: string, flags: 'wx' | 'wx+' = 'wx'): { readonly path: string; readonly fd: number } {
  for (let suffix = 2, candidate = path; ; suffix++, candidate = `${path}-${suffix - 1}`) {
    try {
      return { path: candidate, fd: openSync(candidate, flags) };
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
    }
  }
}

/** The length of the longest prefix of `bytes` within `limit` that does not end inside a UTF-8 sequence. */
function utf8Boundary(bytes: Buffer, limit: number): number {
  let end = Math.min(limit, bytes.length);
  if (end === bytes.length) return end;
  // Step back over continuation bytes (10xxxxxx) to the start of the character that would be cut.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return end;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** The last `size` bytes written, on disk, in a file used as a ring. */
class TailRing {
  private position = 0;
  private wrapped = false;

  constructor(
    readonly path: string,
    private readonly fd: number,
    private readonly size: number,
  ) {}

  get kept(): number {
    return this.wrapped ? this.size : this.position;
  }

  write(bytes: Buffer): void {
    const data = bytes.length > this.size ? bytes.subarray(bytes.length - this.size) : bytes;
    const first = Math.min(data.length, this.size - this.position);
    writeSync(this.fd, data, 0, first, this.position);
    if (first < data.length) writeSync(this.fd, data, first, data.length - first, 0);
    const end = this.position + data.length;
    if (end >= this.size) this.wrapped = true;
    this.position = end % this.size;
  }

  /** Appends the ring's bytes, oldest first, to `target`, then removes the ring. */
  drainInto(target: number): void {
    const ranges: [number, number][] = this.wrapped
      ? [
          [this.position, this.size],
          [0, this.position],
        ]
      : [[0, this.position]];
    const buffer = Buffer.alloc(1024 * 1024);
    for (const [from, to] of ranges) {
      for (let offset = from; offset < to;) {
        const read = readSync(this.fd, buffer, 0, Math.min(buffer.length, to - offset), offset);
        if (read <= 0) break;
        writeSync(target, buffer, 0, read);
        offset += read;
      }
    }
    closeSync(this.fd);
    unlinkSync(this.path);
  }
}

/**
 * Opens a new spill file; an existing file of that name gets a numbered sibling instead of being
 * overwritten. With `maxBytes`, the file keeps at most that much plus the marker.
 */
export async function createSpill(stateDir: string, name: string, maxBytes?: number): Promise<SpillFile> {
  const directory = join(stateDir, 'outputs');
  mkdirSync(directory, { recursive: true });
  const { path, fd: descriptor } = openNew(join(directory, safeName(name)));
  const headCap = maxBytes === undefined ? Infinity : Math.floor(maxBytes / 2);
  /** Room used in the head: what was written, or the whole cap once the tail began. */
  let headBytes = 0;
  let headWritten = 0;
  let total = 0;
  let tail: TailRing | undefined;
  let open = true;
  return {
    path,
    // Synchronous on purpose: a producer faster than the disk is slowed down to the disk's pace
    // instead of piling up pending writes in memory.
    write(chunk) {
      if (!open) return;
      const bytes = Buffer.from(chunk, 'utf8');
      total += bytes.length;
      const room = headCap - headBytes;
      const head = room >= bytes.length ? bytes.length : utf8Boundary(bytes, room);
      if (head > 0) {
        writeSync(descriptor, bytes, 0, head);
        headBytes += head;
        headWritten += head;
      }
      if (head === bytes.length) return;
      // The head is full: from now on the head cap is final, whatever is left of its room.
      headBytes = headCap;
      if (!tail) {
        // Read back on close, so opened for reading as well.
        const ring = openNew(`${path}.tail`, 'wx+');
        tail = new TailRing(ring.path, ring.fd, Math.max(1, (maxBytes ?? 0) - headCap));
      }
      tail.write(bytes.subarray(head));
    },
    async close() {
      if (!open) return;
      open = false;
      try {
        if (tail) {
          const omitted = total - headWritten - tail.kept;
          // Nothing cut when the ring never wrapped: the head and the ring are the whole output.
          if (omitted > 0) {
            writeSync(
              descriptor,
              `\n[... spill file cut at tool_output.max_spill_bytes (${formatBytes(maxBytes ?? 0)}): ${formatBytes(omitted)} of ${formatBytes(total)} omitted from the middle ...]\n`,
            );
          }
          tail.drainInto(descriptor);
        }
      } finally {
        closeSync(descriptor);
      }
    },
  };
}
