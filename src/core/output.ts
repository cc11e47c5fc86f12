/**
 * Output caps (SPEC O1). Large output keeps its head and its tail, because the error that
 * matters is usually at the end of a failed build; the middle is cut with a marker saying how
 * much, and the full text is spilled to a file the model may read. Memory stays bounded no
 * matter how much is appended.
 */
import type { SpillFile } from './host';

export interface OutputLimits {
  readonly maxBytes: number;
  readonly maxLines: number;
}

export interface CappedOutput {
  readonly text: string;
  readonly truncated: boolean;
  readonly totalBytes: number;
  readonly totalLines: number;
  /** Where the full output was saved, when it was truncated and the file could be written. */
  readonly spillPath?: string;
}

/**
 * What may wait in memory for the spill file to open. Streams deliver output between event-loop
 * turns, so the file is open long before this fills; only a producer that never yields gets here,
 * and then the excess is left out of the file (and the marker says so) rather than held.
 */
const MAX_PENDING_SPILL_CHARS = 4 * 1024 * 1024;

const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');

function countNewlines(text: string): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count++;
  return count;
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** The longest prefix of `text` within `maxBytes`, never splitting a surrogate pair. */
function prefixWithin(text: string, maxBytes: number): string {
  let prefix = text.slice(0, maxBytes);
  while (byteLength(prefix) > maxBytes) {
    prefix = prefix.slice(0, prefix.length - Math.max(1, Math.floor((byteLength(prefix) - maxBytes) / 3)));
  }
  if (prefix.length > 0 && isHighSurrogate(prefix.charCodeAt(prefix.length - 1))) prefix = prefix.slice(0, -1);
  return prefix;
}

/** The longest suffix of `text` within `maxBytes`, never splitting a surrogate pair. */
function suffixWithin(text: string, maxBytes: number): string {
  let suffix = text.slice(Math.max(0, text.length - maxBytes));
  while (byteLength(suffix) > maxBytes) {
    suffix = suffix.slice(Math.max(1, Math.floor((byteLength(suffix) - maxBytes) / 3)));
  }
  if (suffix.length > 0 && isLowSurrogate(suffix.charCodeAt(0))) suffix = suffix.slice(1);
  return suffix;
}

/**
 * Keeps at most `maxLines` lines and `maxBytes` bytes from the start of `text`: whole lines,
 * or part of the first line when even that one is too long.
 */
function takeHead(text: string, maxBytes: number, maxLines: number): string {
  let end = 0;
  let bytes = 0;
  for (let lines = 0; end < text.length && lines < maxLines; lines++) {
    const newline = text.indexOf('\n', end);
    const next = newline === -1 ? text.length : newline + 1;
    // A line has at least as many bytes as characters: skip measuring one that cannot fit.
    if (next - end > maxBytes - bytes) break;
    const lineBytes = byteLength(text.slice(end, next));
    if (bytes + lineBytes > maxBytes) break;
    bytes += lineBytes;
    end = next;
  }
  if (end === 0 && maxLines > 0) return prefixWithin(text, maxBytes);
  return text.slice(0, end);
}

/**
 * Keeps at most `maxLines` lines and `maxBytes` bytes from the end of `text`: whole lines, or
 * the end of the last line when even that one is too long.
 */
function takeTail(text: string, maxBytes: number, maxLines: number): string {
  let start = text.length;
  let bytes = 0;
  // The final newline belongs to the last line; the search for its start begins before it.
  let cursor = text.endsWith('\n') ? text.length - 2 : text.length - 1;
  for (let lines = 0; start > 0 && lines < maxLines; lines++) {
    const newline = cursor < 0 ? -1 : text.lastIndexOf('\n', cursor);
    const candidate = newline + 1;
    if (start - candidate > maxBytes - bytes) break;
    const lineBytes = byteLength(text.slice(candidate, start));
    if (bytes + lineBytes > maxBytes) break;
    bytes += lineBytes;
    start = candidate;
    if (newline === -1) break;
    cursor = newline - 1;
  }
  if (start === text.length && maxLines > 0) return suffixWithin(text, maxBytes);
  return text.slice(start);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * Collects streamed output with bounded memory. The head is kept until it fills half the
 * budget; after that only a rolling tail is kept. Once the output is sure not to fit, a spill
 * file is opened and receives everything, so nothing is lost.
 */
export class OutputCapture {
  private head = '';
  private headBytes = 0;
  private headLines = 0;
  private headFull = false;
  private tail = '';
  private totalBytes = 0;
  private newlines = 0;
  private lastChar = '';
  private finished = false;
  private spill: SpillFile | undefined;
  private spillOpening: Promise<SpillFile | undefined> | undefined;
  private spillError: string | undefined;
  private pending: string[] = [];
  private pendingChars = 0;
  private lostBytes = 0;
  private readonly headBudget: OutputLimits;
  private readonly tailBudget: OutputLimits;

  constructor(
    private readonly limits: OutputLimits,
    private readonly openSpill: () => Promise<SpillFile>,
  ) {
    this.headBudget = { maxBytes: Math.floor(limits.maxBytes / 2), maxLines: Math.floor(limits.maxLines / 2) };
    this.tailBudget = { maxBytes: limits.maxBytes - this.headBudget.maxBytes, maxLines: limits.maxLines - this.headBudget.maxLines };
  }

  /** Characters held in memory right now (head, tail, and text waiting for the spill file). */
  get bufferedCharacters(): number {
    return this.head.length + this.tail.length + this.pendingChars;
  }

  append(chunk: string): void {
    if (chunk.length === 0 || this.finished) return;
    const bytes = byteLength(chunk);
    this.totalBytes += bytes;
    this.newlines += countNewlines(chunk);
    this.lastChar = chunk[chunk.length - 1] ?? this.lastChar;
    const spilling = this.spillOpening !== undefined;
    if (spilling) this.writeSpill(chunk, bytes);

    if (!this.headFull) this.growHead(chunk, bytes);
    else this.tail += chunk;
    // Before the spill starts, head and tail hold everything so far, which is what it receives.
    if (!spilling && this.overflows()) this.startSpill();
    // Trim the rolling tail now and then, so memory stays near twice the tail budget.
    const keep = this.tailBudget.maxBytes * 2;
    if (this.tail.length > keep + 4096) this.tail = suffixWithin(this.tail, keep);
  }

  /** Renders the capped text and closes the spill file. */
  async finish(): Promise<CappedOutput> {
    this.finished = true;
    const lines = this.lineCount();
    if (!this.overflows()) {
      return { text: this.head + this.tail, truncated: false, totalBytes: this.totalBytes, totalLines: lines };
    }
    const spill = await this.spillOpening;
    if (spill) {
      try {
        await spill.close();
      } catch (error) {
        this.spillError ??= error instanceof Error ? error.message : String(error);
      }
    }
    const tail = takeTail(this.tail, this.tailBudget.maxBytes, this.tailBudget.maxLines);
    const keptBytes = byteLength(this.head) + byteLength(tail);
    const keptLines = countNewlines(this.head) + countNewlines(tail) + (tail.endsWith('\n') || tail === '' ? 0 : 1);
    const saved = spill && this.spillError === undefined;
    let where: string;
    if (!saved) where = `The full output could not be saved (${this.spillError ?? 'no file'}).`;
    else if (this.lostBytes > 0)
      where = `The output is saved at ${spill.path}, except ${formatBytes(this.lostBytes)} that arrived before that file was open; read it with an offset to see the rest.`;
    else where = `The full output is saved at ${spill.path}; read it with an offset to see the rest.`;
    const omittedBytes = `${formatBytes(Math.max(0, this.totalBytes - keptBytes))} of ${formatBytes(this.totalBytes)}`;
    // When a single long line is cut, no whole line is omitted: then only bytes are counted.
    const omitted = lines > keptLines ? `${lines - keptLines} of ${lines} lines (${omittedBytes})` : omittedBytes;
    const marker = `\n[... output truncated: ${omitted} omitted from the middle. ${where} ...]\n`;
    const head = this.head.endsWith('\n') || this.head === '' ? this.head : `${this.head}\n`;
    return {
      text: head + marker + tail,
      truncated: true,
      totalBytes: this.totalBytes,
      totalLines: lines,
      ...(saved ? { spillPath: spill.path } : {}),
    };
  }

  private lineCount(): number {
    return this.newlines + (this.totalBytes > 0 && this.lastChar !== '\n' ? 1 : 0);
  }

  private overflows(): boolean {
    return this.totalBytes > this.limits.maxBytes || this.lineCount() > this.limits.maxLines;
  }

  private growHead(chunk: string, bytes: number): void {
    const lines = countNewlines(chunk);
    if (this.headBytes + bytes <= this.headBudget.maxBytes && this.headLines + lines < this.headBudget.maxLines) {
      this.head += chunk;
      this.headBytes += bytes;
      this.headLines += lines;
      return;
    }
    const combined = this.head + chunk;
    const kept = takeHead(combined, this.headBudget.maxBytes, this.headBudget.maxLines);
    this.head = kept;
    this.tail = combined.slice(kept.length);
    this.headFull = true;
  }

  private startSpill(): void {
    this.pending = [this.head + this.tail];
    this.pendingChars = this.head.length + this.tail.length;
    // Through a promise, so that even a host that throws synchronously ends up in the handler.
    this.spillOpening = Promise.resolve()
      .then(() => this.openSpill())
      .then(
        (file) => {
          const waiting = this.pending;
          this.pending = [];
          this.pendingChars = 0;
          this.spill = file;
          for (const chunk of waiting) this.writeSpill(chunk, 0);
          return file;
        },
        (error: unknown) => {
          this.spillError = error instanceof Error ? error.message : String(error);
          this.pending = [];
          this.pendingChars = 0;
          return undefined;
        },
      );
  }

  private writeSpill(chunk: string, bytes: number): void {
    if (this.spillError !== undefined) return;
    if (this.spill) {
      try {
        this.spill.write(chunk);
      } catch (error) {
        this.spillError = error instanceof Error ? error.message : String(error);
      }
      return;
    }
    if (this.pendingChars + chunk.length > MAX_PENDING_SPILL_CHARS) {
      this.lostBytes += bytes;
      return;
    }
    this.pending.push(chunk);
    this.pendingChars += chunk.length;
  }
}

/** Caps a finished text in one step. */
export async function capOutput(text: string, limits: OutputLimits, openSpill: () => Promise<SpillFile>): Promise<CappedOutput> {
  const capture = new OutputCapture(limits, openSpill);
  capture.append(text);
  return capture.finish();
}
