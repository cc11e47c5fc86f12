/**
 * read: a file as numbered lines, or a folder as a listing. Files are streamed and reading stops
 * as soon as the requested window is full, so a 1 GB log costs what its first 2000 lines cost.
 */
import { join } from 'node:path';
import { z } from 'zod';
import type { Declarations } from '../core/declarations';
import { ToolError } from '../core/errors';
import type { FileStat } from '../core/host';
import { defineTool, type ToolContext, type ToolResult } from '../core/tool';
import { checkedPath, pathSubject, type ResolvedPath } from './paths';
import { comparePaths } from './ripgrep-run';
import { suggestNearNames, suggestionText } from './suggest';

const DECLARATIONS: Declarations = { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' };
const DEFAULT_LIMIT = 2000;
const MAX_LINE_CHARS = 2000;
/** How much of a file is inspected to tell text from binary. */
const SNIFF_BYTES = 8192;
/** Above this share of undecodable characters a NUL-free file is still treated as binary. */
const MAX_INVALID_RATIO = 0.1;
/** Room kept under `tool_output.max_bytes` for the closing note. */
const NOTE_BYTES = 512;

const DESCRIPTION = `Read a file or list a folder. Use it to look at a file before editing it, or to see what a folder contains.

A file comes back as numbered lines, like \`cat -n\`: the line number, a tab, then the line. Lines longer than ${MAX_LINE_CHARS} characters are cut with a marker. The note at the end says which lines were shown, of how many, and the offset to continue from; output is also kept under the size cap, so large files are read in pages. A folder comes back as its entries sorted by name, folders marked with a trailing "/". A binary file is not shown: you get its size instead. A path that does not exist gets suggestions of similar names.`;

const parameters = z.strictObject({
  path: z.string().min(1).describe('File or folder, relative to the workspace root, or absolute'),
  offset: z.number().int().min(1).optional().describe('The 1-based line (for a folder, entry) to start at; default 1'),
  limit: z.number().int().min(1).max(100_000).optional().describe(`How many lines (or entries) to return; default ${DEFAULT_LIMIT}`),
});
type ReadArgs = z.output<typeof parameters>;

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** NUL bytes, or mostly undecodable bytes, in the first few KiB mean binary. */
function looksBinary(sample: Uint8Array): boolean {
  if (sample.includes(0)) return true;
  // A multi-byte character cut by the sample's end is not counted as invalid (`stream: true`).
  const text = new TextDecoder('utf-8').decode(sample, { stream: true });
  if (text.length === 0) return false;
  let invalid = 0;
  for (const char of text) if (char === '\uFFFD') invalid++;
  return invalid / text.length > MAX_INVALID_RATIO;
}

async function listDirectory(context: ToolContext, resolved: ResolvedPath, args: ReadArgs): Promise<ToolResult> {
  const all = await context.host.fs.readDirectoryChecked(resolved.real);
  // Entries that permission rules hide are left out; the model learns only how many (issue 8 §5).
  const entries = all.filter((entry) => !context.visibility.isHidden(join(resolved.real, entry.name)));
  const hidden = all.length - entries.length;
  const names = await Promise.all(
    entries.map(async (entry) => {
      const type = entry.type === 'symlink' ? (await context.host.fs.stat(join(resolved.real, entry.name)))?.type : entry.type;
      return type === 'directory' ? `${entry.name}/` : entry.name;
    }),
  );
  names.sort(comparePaths);
  const start = (args.offset ?? 1) - 1;
  const shown = names.slice(start, start + (args.limit ?? DEFAULT_LIMIT));
  const withheld = hidden > 0 ? ` (and ${hidden} hidden by permission rules, not shown)` : '';
  const heading = `${resolved.display === '.' ? 'The workspace root' : `${resolved.display}/`} is a folder with ${names.length} entr${names.length === 1 ? 'y' : 'ies'}${withheld}`;
  if (names.length === 0) return { output: `${heading}.`, metadata: { entries: 0, hidden } };
  if (shown.length === 0) throw new ToolError(`${heading}; offset ${start + 1} is past the end. Use an offset from 1 to ${names.length}.`);
  const end = start + shown.length;
  const paging =
    end < names.length
      ? ` (showing ${start + 1}–${end}; continue with offset=${end + 1})`
      : start > 0
        ? ` (showing ${start + 1}–${end})`
        : '';
  return { output: `${heading}${paging}:\n${shown.join('\n')}`, metadata: { entries: names.length, shown: shown.length, hidden } };
}

interface Window {
  readonly lines: string[];
  /** Lines seen so far, the shown ones included. */
  seen: number;
  /** The file has content past the last line seen. */
  more: boolean;
  /** Reading stopped because the output reached the size cap. */
  hitSizeCap: boolean;
}

/** Streams the file and fills the window of lines `offset..offset+limit-1`, then stops reading. */
async function readWindow(context: ToolContext, path: string, offset: number, limit: number): Promise<Window | 'binary'> {
  const budget = context.config.tool_output.max_bytes - NOTE_BYTES;
  const window: Window = { lines: [], seen: 0, more: false, hitSizeCap: false };
  const decoder = new TextDecoder('utf-8');
  let outputBytes = 0;
  let line = '';
  let lineLength = 0;
  let lineStarted = false;
  let done = false;
  let sniff: Uint8Array | undefined = new Uint8Array(0);

  const inWindow = (): boolean => window.seen + 1 >= offset;
  const append = (text: string): void => {
    if (text.length === 0) return;
    lineStarted = true;
    lineLength += text.length;
    // Only the kept part of a line in the window is held: a 1 GB line costs 2000 characters.
    if (inWindow() && line.length <= MAX_LINE_CHARS) line += text.slice(0, MAX_LINE_CHARS + 1 - line.length);
  };
  const finishLine = (): void => {
    if (inWindow()) {
      const bare = line.endsWith('\r') && lineLength === line.length ? line.slice(0, -1) : line;
      const shown = lineLength > MAX_LINE_CHARS ? `${bare.slice(0, MAX_LINE_CHARS)}… [line cut: ${lineLength} characters]` : bare;
      const formatted = `${String(window.seen + 1).padStart(6)}\t${shown}`;
      const bytes = Buffer.byteLength(formatted) + 1;
      if (window.lines.length > 0 && outputBytes + bytes > budget) {
        window.hitSizeCap = true;
        window.more = true;
        done = true;
        return;
      }
      outputBytes += bytes;
      window.lines.push(formatted);
    }
    window.seen++;
    line = '';
    lineLength = 0;
    lineStarted = false;
    if (window.lines.length >= limit) done = true;
  };
  const consume = (text: string): void => {
    let start = 0;
    for (let newline = text.indexOf('\n', start); newline !== -1 && !done; newline = text.indexOf('\n', start)) {
      append(text.slice(start, newline));
      finishLine();
      start = newline + 1;
    }
    if (done) {
      if (start < text.length) window.more = true;
      return;
    }
    append(text.slice(start));
  };

  for await (const chunk of context.host.fs.readStreamChecked(path, context.signal)) {
    if (done) {
      // One more chunk tells whether the file goes on past the window.
      if (chunk.length > 0) window.more = true;
      break;
    }
    if (sniff !== undefined) {
      const joined: Uint8Array = new Uint8Array(sniff.length + chunk.length);
      joined.set(sniff);
      joined.set(chunk, sniff.length);
      if (joined.length < SNIFF_BYTES) {
        sniff = joined;
        continue;
      }
      sniff = undefined;
      if (looksBinary(joined.subarray(0, SNIFF_BYTES))) return 'binary';
      consume(decoder.decode(joined, { stream: true }));
      continue;
    }
    consume(decoder.decode(chunk, { stream: true }));
  }
  context.signal.throwIfAborted();
  if (!done) {
    if (sniff !== undefined) {
      if (looksBinary(sniff)) return 'binary';
      consume(decoder.decode(sniff, { stream: true }));
    }
    if (!done) consume(decoder.decode());
    if (!done && lineStarted) finishLine();
  }
  return window;
}

async function readFile(context: ToolContext, resolved: ResolvedPath, stat: FileStat, args: ReadArgs): Promise<ToolResult> {
  if (stat.size === 0) return { output: `${resolved.display} is empty (0 bytes).`, metadata: { lines: 0 } };
  const offset = args.offset ?? 1;
  const limit = args.limit ?? DEFAULT_LIMIT;
  const window = await readWindow(context, resolved.real, offset, limit);
  if (window === 'binary') {
    return {
      output: `${resolved.display} is a binary file (${formatSize(stat.size)}), so it is not shown. To inspect it, run a command such as \`file\` or \`xxd | head\` with shell.`,
      metadata: { binary: true, bytes: stat.size },
    };
  }
  if (window.lines.length === 0) {
    throw new ToolError(
      `${resolved.display} has ${window.seen} line${window.seen === 1 ? '' : 's'}; offset ${offset} is past the end. Use an offset from 1 to ${window.seen}.`,
    );
  }
  const last = offset + window.lines.length - 1;
  const whole = offset === 1 && !window.more;
  let note: string;
  if (whole) note = `[${resolved.display}: all ${window.seen} lines.]`;
  else if (!window.more) note = `[${resolved.display}: lines ${offset}–${last} of ${window.seen}.]`;
  else {
    const why = window.hitSizeCap ? ` Output stopped at the size cap of ${formatSize(context.config.tool_output.max_bytes)}.` : '';
    note = `[${resolved.display}: lines ${offset}–${last} of at least ${last + 1} (the file is ${formatSize(stat.size)}).${why} To read on, call read with offset=${last + 1}.]`;
  }
  return {
    output: `${window.lines.join('\n')}\n\n${note}`,
    metadata: { firstLine: offset, lastLine: last, complete: !window.more, bytes: stat.size },
  };
}

export const readTool = defineTool({
  name: 'read',
  description: DESCRIPTION,
  parameters,
  declarations: DECLARATIONS,
  subjects: async (args, env) => [await pathSubject(env, args.path)],
  async run(args, context) {
    const resolved = checkedPath(context, args.path);
    const stat = await context.host.fs.stat(resolved.real);
    if (!stat) {
      const suggestions = await suggestNearNames(context, resolved);
      throw new ToolError(
        `${args.path} does not exist (looked for ${resolved.real}).${suggestionText(suggestions)}${suggestions.length === 0 ? ' Use glob to find the file.' : ''}`,
      );
    }
    if (stat.type === 'directory') return listDirectory(context, resolved, args);
    // A pipe or a device could block the read forever, or never end.
    if (stat.type !== 'file')
      throw new ToolError(`${resolved.display} is not a regular file (it is a device, socket or pipe); read shows only files and folders.`);
    return readFile(context, resolved, stat, args);
  },
});
