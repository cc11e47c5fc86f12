/**
 * The append-only journal: one JSON line per committed transaction, `{"seq":N,"ops":[[sql,
 * params],...]}`; a durable record's line adds `"applied":"after"` (see JournalWriter.append).
 * Appending costs the same however large the store is, which is the point: the whole database
 * is exported only now and then, as a snapshot (see store.ts).
 *
 * Sequence numbers increase by one per line and never restart. A snapshot records the last
 * sequence it contains, so replay skips lines already inside it, and a gap (lines lost) is
 * detected instead of silently producing a store with holes.
 *
 * The journal ends at the file's first NUL byte. A writer keeps zeros written ahead of its end
 * (see JournalWriter.reserve), and no line holds a NUL: JSON escapes it. Whatever follows the
 * first NUL is reserve, or bytes of lines that were never acknowledged (a power loss can keep
 * some pages of an unsynced write and not others); readers ignore it and a new writer cuts it off.
 */
import {
  appendFileSync,
  closeSync,
  constants,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import { promisify } from 'node:util';
import { StoreCorruptError } from './errors';

export type SqlParameter = string | number | null;
export type JournalOperation = readonly [sql: string, parameters: readonly SqlParameter[]];

export interface JournalEntry {
  readonly seq: number;
  readonly operations: readonly JournalOperation[];
  /** 1-based line number in the journal file, for error messages. */
  readonly line: number;
  /** The byte offset where the line starts. */
  readonly start: number;
  /** Written before its statements ran (a durable record): one that cannot be applied was never acknowledged. */
  readonly appliedAfter: boolean;
}

export interface JournalContents {
  /** The entries after the snapshot, in order; earlier ones are skipped. */
  readonly entries: readonly JournalEntry[];
  /** The highest sequence seen in the file or the snapshot. */
  readonly lastSeq: number;
  /** Bytes up to and including the last complete line. */
  readonly validLength: number;
  /** A final line cut short by a crash mid-append: never acknowledged, so never committed. */
  readonly torn?: { readonly line: number; readonly bytes: number };
}

const NEWLINE = 0x0a;
const NUL = 0x00;

/** The journal's bytes in a file's contents: up to its first NUL (see the top of this file). */
function journalPart(data: Buffer): Buffer {
  const end = data.indexOf(NUL);
  return end === -1 ? data : data.subarray(0, end);
}

function isSqlParameter(value: unknown): value is SqlParameter {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function isOperation(value: unknown): value is JournalOperation {
  return (
    Array.isArray(value) &&
    value.length === 2 &&
    typeof value[0] === 'string' &&
    Array.isArray(value[1]) &&
    (value[1] as unknown[]).every(isSqlParameter)
  );
}

/** Parses one complete line, or returns why it is not a journal entry. */
function parseLine(text: string): { seq: number; operations: JournalOperation[]; appliedAfter: boolean } | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `it is not valid JSON (${(error as Error).message})`;
  }
  if (typeof value !== 'object' || value === null) return 'it is not a JSON object';
  const { seq, ops, applied } = value as { seq?: unknown; ops?: unknown; applied?: unknown };
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) return 'its "seq" is not a positive integer';
  if (!Array.isArray(ops) || !ops.every(isOperation)) return 'its "ops" is not a list of [sql, parameters] pairs';
  return { seq, operations: ops, appliedAfter: applied === 'after' };
}

/**
 * Reads a journal file, up to its first NUL. A missing file is an empty journal. A final line
 * without its newline is reported as torn and left out; any other bad line, or a gap in the
 * sequence, throws a StoreCorruptError naming the file and the line.
 */
export function readJournal(path: string, snapshotSeq: number): JournalContents {
  let data: Buffer;
  try {
    data = journalPart(readFileSync(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], lastSeq: snapshotSeq, validLength: 0 };
    throw error;
  }
  const entries: JournalEntry[] = [];
  let expected = snapshotSeq + 1;
  let lastSeq = snapshotSeq;
  let start = 0;
  let line = 0;
  while (start < data.length) {
    line++;
    const end = data.indexOf(NEWLINE, start);
    if (end === -1) return { entries, lastSeq, validLength: start, torn: { line, bytes: data.length - start } };
    const parsed = parseLine(data.toString('utf8', start, end));
    if (typeof parsed === 'string') {
      throw new StoreCorruptError(
        `The journal ${path} is damaged at line ${line}: ${parsed}. The lines before it are intact; ` +
          'move the file aside to open the store without the lines from this one on.',
      );
    }
    if (parsed.seq > snapshotSeq) {
      if (parsed.seq !== expected) {
        throw new StoreCorruptError(
          `The journal ${path} line ${line} has sequence ${parsed.seq}, but ${expected} was expected: ` +
            `${parsed.seq > expected ? 'the lines in between are missing (was the snapshot replaced or the journal edited?)' : 'the sequence goes backwards'}.`,
        );
      }
      entries.push({ seq: parsed.seq, operations: parsed.operations, line, start, appliedAfter: parsed.appliedAfter });
      expected++;
      lastSeq = parsed.seq;
    } else if (entries.length > 0) {
      throw new StoreCorruptError(
        `The journal ${path} line ${line} has sequence ${parsed.seq} after ${lastSeq}: the sequence goes backwards.`,
      );
    }
    start = end + 1;
  }
  return { entries, lastSeq, validLength: start };
}

/**
 * The bytes of the journal in the file at `path` without the zeros a live writer keeps after it
 * (for listings): the file up to its last byte that is not zero, read back from its end, so a
 * closed journal costs one byte's read. 0 for a missing file.
 */
export function journalBytesOnDisk(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return 0;
    // A journal without zeros ends with its last line's newline: one byte tells.
    const last = Buffer.alloc(1);
    if (readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== NUL) return size;
    const chunk = Buffer.alloc(64 * 1024);
    for (let end = size - 1; end > 0;) {
      const start = Math.max(0, end - chunk.length);
      const read = readSync(fd, chunk, 0, end - start, start);
      for (let at = read - 1; at >= 0; at--) if (chunk[at] !== NUL) return start + at + 1;
      end = start;
    }
    return 0;
  } finally {
    closeSync(fd);
  }
}

/**
 * Cuts a torn final line off before new lines are appended (otherwise the next line would be
 * glued to the fragment and damage the journal). The fragment is appended to `<path>.torn` for
 * inspection; the returned string is that path.
 */
export function removeTornTail(path: string, validLength: number): string {
  const aside = `${path}.torn`;
  const fragment = journalPart(readFileSync(path).subarray(validLength));
  appendFileSync(aside, fragment);
  truncateSync(path, validLength);
  return aside;
}

const fdatasyncAsync = promisify(fdatasync);

/** How far ahead of the journal's end a writer keeps zeros (see JournalWriter.reserve). */
export const RESERVE_BYTES = 1024 * 1024;
let zeros: Buffer | undefined;

/**
 * Appends lines to the journal of a writable store. Writes are synchronous (`writeSync`), so
 * the order of lines is the order of commits, and a line is in the OS as soon as `append`
 * returns: a killed process loses nothing it acknowledged. `syncThrough` makes lines durable
 * against an OS crash or power loss with `fdatasync`, grouping concurrent requests into one.
 */
export class JournalWriter {
  private readonly fd: number;
  /** Where the journal ends: the next line goes here. */
  private size: number;
  /** Where the file ends: past `size` it holds the reserve's zeros. */
  private capacity: number;
  private lastSeq: number;
  private durableSeq: number;
  private syncing: Promise<void> | undefined;
  private damaged: Error | undefined;
  /** Where the last line appended starts, for `retract`. */
  private lastLineStart: number;
  /** Counts retractions: an fdatasync that began before one does not make the reused sequence durable. */
  private retractions = 0;

  constructor(
    readonly path: string,
    lastSeq: number,
    size: number,
  ) {
    // Lines are written at `size`, in front of the reserve. Not O_APPEND: on Linux, a positioned
    // write to such a file still lands at its end.
    this.fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o666);
    // What follows the journal (the reserve of a writer that was killed, or bytes of lines it never
    // acknowledged) is cut off: this writer writes its own reserve.
    if (fstatSync(this.fd).size !== size) ftruncateSync(this.fd, size);
    this.size = size;
    this.capacity = size;
    this.lastLineStart = size;
    this.lastSeq = lastSeq;
    this.durableSeq = lastSeq;
  }

  get bytes(): number {
    return this.size;
  }

  get sequence(): number {
    return this.lastSeq;
  }

  /**
   * Appends one entry and returns its sequence. On a failed write the file is cut back, so no
   * partial line stays behind. `appliedAfter`: the caller runs the statements after this append
   * (and `retract`s the line if they fail); the line says so, so that a crash between the two,
   * which leaves a last line that cannot be applied, is not mistaken for damage.
   */
  append(operations: readonly JournalOperation[], appliedAfter = false): number {
    if (this.damaged) throw this.damaged;
    const seq = this.lastSeq + 1;
    const entry = appliedAfter ? { seq, ops: operations, applied: 'after' } : { seq, ops: operations };
    const buffer = Buffer.from(`${JSON.stringify(entry)}\n`, 'utf8');
    let written = 0;
    try {
      while (written < buffer.length) written += writeSync(this.fd, buffer, written, buffer.length - written, this.size + written);
    } catch (error) {
      if (written > 0) {
        try {
          ftruncateSync(this.fd, this.size);
          this.capacity = this.size;
        } catch (truncateError) {
          // A partial line is stuck at the end: appending more would bury it mid-file. Stop here;
          // on the next open it is a torn final line, which is handled.
          this.damaged = new Error(
            `The journal ${this.path} could not be cut back after a failed write (${(truncateError as Error).message}); no more writes are accepted. Reopen the store.`,
          );
        }
      }
      throw error;
    }
    this.lastLineStart = this.size;
    this.size += buffer.length;
    this.capacity = Math.max(this.capacity, this.size);
    this.lastSeq = seq;
    return seq;
  }

  /** Whether the reserve is down to less than half (see `reserve`). */
  get reserveLow(): boolean {
    return this.capacity - this.size < RESERVE_BYTES / 2;
  }

  /**
   * Writes zeros ahead of the journal's end, up to RESERVE_BYTES, and starts making them
   * durable; for when the writes pause. A line then overwrites blocks the file already has, so
   * its fdatasync writes the line's pages alone; a line that grows the file also makes the file
   * system commit the new size and blocks to its own journal: the appends of a record took
   * about 1.45x as long as the same writes into zeros here (bench/store.bench.ts shows both).
   * Returns whether it wrote. On a failure (a full disk) the file is cut back and lines grow it
   * again, as without a reserve.
   */
  reserve(): boolean {
    if (this.damaged || !this.reserveLow) return false;
    const end = this.size + RESERVE_BYTES;
    zeros ??= Buffer.alloc(RESERVE_BYTES);
    try {
      for (let at = this.capacity; at < end;) at += writeSync(this.fd, zeros, 0, Math.min(zeros.length, end - at), at);
      this.capacity = end;
    } catch {
      try {
        ftruncateSync(this.fd, this.size);
        this.capacity = this.size;
      } catch {
        // The zeros past the journal's end stay; readers stop at the first one.
      }
      return false;
    }
    this.sync().catch(() => undefined);
    return true;
  }

  /**
   * Cuts off the line just appended, whose statements failed, so the journal again holds only
   * applied lines and the next line reuses its sequence. If the file cannot be cut, the line
   * stays last (no more writes are accepted), where loading sets it aside.
   */
  retract(seq: number): void {
    if (seq !== this.lastSeq) throw new Error(`Only the last journal line (${this.lastSeq}) can be retracted, not ${seq}.`);
    // The fdatasync in flight may have started before this cut; it must not count for the sequence's next line.
    this.retractions++;
    try {
      ftruncateSync(this.fd, this.lastLineStart);
      this.capacity = this.lastLineStart;
    } catch (error) {
      this.damaged = new Error(
        `The journal ${this.path} could not be cut back after a write failed (${(error as Error).message}); no more writes are accepted. Reopen the store.`,
      );
      return;
    }
    this.size = this.lastLineStart;
    this.lastSeq = seq - 1;
    this.durableSeq = Math.min(this.durableSeq, this.lastSeq);
  }

  /** The fdatasync in flight, or a new one: one covers every line written before it starts, and later callers share it. */
  private sync(): Promise<void> {
    if (!this.syncing) {
      const target = this.lastSeq;
      const retractions = this.retractions;
      this.syncing = fdatasyncAsync(this.fd)
        .then(() => {
          if (retractions === this.retractions) this.durableSeq = Math.max(this.durableSeq, target);
        })
        .finally(() => {
          this.syncing = undefined;
        });
    }
    return this.syncing;
  }

  /**
   * Starts making the lines written so far durable without waiting, so the caller's remaining
   * work (committing the transaction in memory) overlaps the fdatasync; `syncThrough` then
   * waits for it. A failure is reported to `syncThrough`, not here.
   */
  startSync(): void {
    if (this.durableSeq < this.lastSeq) this.sync().catch(() => undefined);
  }

  /** Resolves once every line up to `seq` is on stable storage. */
  async syncThrough(seq: number): Promise<void> {
    while (this.durableSeq < seq) await this.sync();
  }

  /** Empties the journal after a snapshot took in everything up to the current sequence. */
  reset(): void {
    ftruncateSync(this.fd, 0);
    this.size = 0;
    this.capacity = 0;
    this.durableSeq = this.lastSeq;
  }

  /** A closed journal keeps no reserve: the file is the journal, for whoever reads or copies it. */
  private dropReserve(): void {
    if (this.capacity === this.size) return;
    try {
      ftruncateSync(this.fd, this.size);
      this.capacity = this.size;
    } catch {
      // The zeros stay; readers stop at the first one, and the next writer cuts them off.
    }
  }

  /** Closes without waiting for a sync in flight: the lines are fdatasync'ed here instead. */
  closeSync(): void {
    try {
      this.dropReserve();
      if (this.durableSeq < this.lastSeq) fdatasyncSync(this.fd);
      this.durableSeq = this.lastSeq;
    } finally {
      closeSync(this.fd);
    }
  }

  async close(): Promise<void> {
    await this.syncing?.catch(() => undefined);
    try {
      this.dropReserve();
      if (this.durableSeq < this.lastSeq) fdatasyncSync(this.fd);
      this.durableSeq = this.lastSeq;
    } finally {
      closeSync(this.fd);
    }
  }
}
