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
  /** Where the full output was saved, when it was truncated. */
  readonly spillPath?: string;
}

const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');

function countNewlines(text: string): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count++;
  return count;
}

/** Keeps at most `maxLines` lines and `maxBytes` bytes from the start of `text`. */
function takeHead(text: string, maxBytes: number, maxLines: number): string {
  let end = 0;
  let lines = 0;
  while (end < text.length && lines < maxLines) {
    const newline = text.indexOf('\n', end);
    const next = newline === -1 ? text.length : newline + 1;
    if (byteLength(text.slice(0, next)) > maxBytes) break;
    end = next;
    lines++;
  }
  return text.slice(0, end);
}

/** Keeps at most `maxLines` whole lines and `maxBytes` bytes from the end of `text`. */
function takeTail(text: string, maxBytes: number, maxLines: number): string {
  let start = text.length;
  let lines = 0;
  const searchFrom = text.endsWith('\n') ? text.length - 2 : text.length - 1;
  let cursor = searchFrom;
  while (start > 0 && lines < maxLines) {
    const newline = cursor < 0 ? -1 : text.lastIndexOf('\n', cursor);
    const candidate = newline + 1;
    if (byteLength(text.slice(candidate)) > maxBytes) break;
    start = candidate;
    lines++;
    if (newline === -1) break;
    cursor = newline - 1;
  }
  return text.slice(start);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * Collects streamed output with bounded memory. The head is kept until it fills half the
 * budget; after that only a rolling tail is kept. Everything is also written to a spill file,
 * opened lazily on the first overflow, so nothing is lost.
 */
export class OutputCapture {
  private head = '';
  private headFull = false;
  private tail = '';
  private totalBytes = 0;
  private totalLines = 0;
  private lastChar = '';
  private spill: SpillFile | undefined;
  private spillOpening: Promise<SpillFile> | undefined;
  private readonly pendingSpill: string[] = [];
  private readonly headBytes: number;
  private readonly headLines: number;
  private readonly tailBytes: number;
  private readonly tailLines: number;

  constructor(
    private readonly limits: OutputLimits,
    private readonly openSpill: () => Promise<SpillFile>,
  ) {
    this.headBytes = Math.floor(limits.maxBytes / 2);
    this.headLines = Math.floor(limits.maxLines / 2);
    this.tailBytes = limits.maxBytes - this.headBytes;
    this.tailLines = limits.maxLines - this.headLines;
  }

  append(chunk: string): void {
    if (chunk.length === 0) return;
    this.totalBytes += byteLength(chunk);
    this.totalLines += countNewlines(chunk);
    this.lastChar = chunk[chunk.length - 1] ?? this.lastChar;
    this.writeSpill(chunk);
    if (!this.headFull) {
      this.head += chunk;
      if (byteLength(this.head) <= this.headBytes && countNewlines(this.head) < this.headLines) return;
      const kept = takeHead(this.head, this.headBytes, this.headLines);
      this.tail = this.head.slice(kept.length);
      this.head = kept;
      this.headFull = true;
      this.startSpill();
    } else {
      this.tail += chunk;
    }
    // Trim the rolling tail now and then, so memory stays near twice the tail budget.
    if (this.tail.length > this.tailBytes * 2 + 4096) {
      this.tail = this.tail.slice(this.tail.length - this.tailBytes * 2);
    }
  }

  /** Renders the capped text and closes the spill file. */
  async finish(): Promise<CappedOutput> {
    const lines = this.totalLines + (this.totalBytes > 0 && this.lastChar !== '\n' ? 1 : 0);
    const fits = this.totalBytes <= this.limits.maxBytes && lines <= this.limits.maxLines;
    if (fits) {
      await this.closeSpill();
      return { text: this.head + this.tail, truncated: false, totalBytes: this.totalBytes, totalLines: lines };
    }
    this.startSpill();
    const spill = await this.spillOpening;
    await this.closeSpill();
    const tail = takeTail(this.tail, this.tailBytes, this.tailLines);
    const keptBytes = byteLength(this.head) + byteLength(tail);
    const keptLines = countNewlines(this.head) + countNewlines(tail) + (tail.endsWith('\n') || tail === '' ? 0 : 1);
    const marker =
      `\n[... output truncated: ${lines - keptLines} of ${lines} lines (${formatBytes(this.totalBytes - keptBytes)} ` +
      `of ${formatBytes(this.totalBytes)}) omitted from the middle. The full output is saved at ${spill?.path}; ` +
      `read it with an offset to see the rest ...]\n`;
    const head = this.head.endsWith('\n') || this.head === '' ? this.head : `${this.head}\n`;
    return {
      text: head + marker + tail,
      truncated: true,
      totalBytes: this.totalBytes,
      totalLines: lines,
      ...(spill ? { spillPath: spill.path } : {}),
    };
  }

  private startSpill(): void {
    if (this.spillOpening) return;
    this.pendingSpill.unshift(this.head + this.tail);
    this.spillOpening = this.openSpill().then((file) => {
      for (const chunk of this.pendingSpill.splice(0)) file.write(chunk);
      this.spill = file;
      return file;
    });
  }

  private writeSpill(chunk: string): void {
    if (this.spill) this.spill.write(chunk);
    else if (this.spillOpening) this.pendingSpill.push(chunk);
  }

  private async closeSpill(): Promise<void> {
    if (!this.spillOpening) return;
    const file = await this.spillOpening;
    await file.close();
  }
}

/** Caps a finished text in one step. */
export async function capOutput(text: string, limits: OutputLimits, openSpill: () => Promise<SpillFile>): Promise<CappedOutput> {
  const capture = new OutputCapture(limits, openSpill);
  capture.append(text);
  return capture.finish();
}
