/**
 * A text file's format, kept apart from its lines so that an edit changes the lines and nothing
 * else. Users complain when an agent flips a file's line endings or strips its BOM (Codex on
 * Windows); every editing tool decodes through here and encodes the result back the same way.
 *
 * Decisions, documented in the tools' descriptions:
 * - Line endings are detected per file. A file with mixed endings is written back with the
 *   majority ending (CRLF only when it outnumbers LF), because a line model cannot carry a
 *   per-line ending through an arbitrary replacement.
 * - A UTF-8 byte order mark is kept when present and never added.
 * - The final-newline state is kept: a file that ended without a newline still does (an empty
 *   file that gets lines ends with one, like a new file).
 * - New files are written with LF, no BOM, and a final newline when their text has one.
 * - Only UTF-8 text is edited: invalid UTF-8 or a NUL byte means a binary file, which is refused.
 */
import { ToolError } from '../../core/errors';

export type LineEnding = '\n' | '\r\n';

export interface TextFormat {
  readonly lineEnding: LineEnding;
  readonly byteOrderMark: boolean;
}

export interface FileText {
  readonly format: TextFormat;
  /** The lines without their endings; a final newline does not add an empty last line. */
  readonly lines: readonly string[];
  readonly endsWithNewline: boolean;
}

/** The format of a file created from scratch. */
export const NEW_FILE_FORMAT: TextFormat = Object.freeze({ lineEnding: '\n', byteOrderMark: false });

const BYTE_ORDER_MARK = '\uFEFF';
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** Splits text on LF or CRLF; a lone CR stays part of its line. */
export function splitLines(text: string): { lines: string[]; endsWithNewline: boolean } {
  if (text === '') return { lines: [], endsWithNewline: false };
  const lines = text.split(/\r?\n/);
  const endsWithNewline = text.endsWith('\n');
  if (endsWithNewline) lines.pop();
  return { lines, endsWithNewline };
}

function majorityLineEnding(text: string): LineEnding {
  let crlf = 0;
  let lf = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
    if (index > 0 && text[index - 1] === '\r') crlf++;
    else lf++;
  }
  return crlf > lf ? '\r\n' : '\n';
}

/**
 * Decodes a file's bytes. `displayPath` only names the file in the error a binary file gets.
 */
export function decodeText(bytes: Uint8Array, displayPath: string): FileText {
  let text: string;
  try {
    text = strictDecoder.decode(bytes);
  } catch {
    throw new ToolError(
      `${displayPath} is not valid UTF-8 text; only text files can be edited. Use write to replace it whole if you must.`,
    );
  }
  if (text.includes('\u0000')) {
    throw new ToolError(`${displayPath} looks binary (it contains NUL bytes); only text files can be edited.`);
  }
  const byteOrderMark = text.startsWith(BYTE_ORDER_MARK);
  if (byteOrderMark) text = text.slice(BYTE_ORDER_MARK.length);
  const { lines, endsWithNewline } = splitLines(text);
  return { format: { lineEnding: majorityLineEnding(text), byteOrderMark }, lines, endsWithNewline };
}

/**
 * The file with new lines and its format kept. An empty file has no final-newline state to keep,
 * so once it has lines it ends with a newline like a new file; a file emptied stays empty.
 */
export function withLines(file: FileText, lines: readonly string[]): FileText {
  const endsWithNewline = lines.length > 0 && (file.lines.length === 0 || file.endsWithNewline);
  return { ...file, lines, endsWithNewline };
}

/** The text as an editor shows it: the file's own line endings, without the BOM. */
export function renderText(file: FileText): string {
  if (file.lines.length === 0) return '';
  return file.lines.join(file.format.lineEnding) + (file.endsWithNewline ? file.format.lineEnding : '');
}

/** The text with LF endings, for diffs addressed to the model. */
export function normalizedText(file: FileText): string {
  if (file.lines.length === 0) return '';
  return file.lines.join('\n') + (file.endsWithNewline ? '\n' : '');
}

export function encodeText(file: FileText): Uint8Array {
  return encoder.encode((file.format.byteOrderMark ? BYTE_ORDER_MARK : '') + renderText(file));
}

/**
 * Text from outside the model (the user's edit in the diff view) in a file's format: its line
 * endings become the file's, the BOM follows the file, and its final newline is the user's.
 */
export function adoptText(text: string, format: TextFormat): FileText {
  const withoutMark = text.startsWith(BYTE_ORDER_MARK) ? text.slice(BYTE_ORDER_MARK.length) : text;
  const { lines, endsWithNewline } = splitLines(withoutMark);
  return { format, lines, endsWithNewline };
}

/** A line quoted for an error message, shortened so one long line cannot flood the context. */
export function quoteLine(line: string, limit = 120): string {
  return JSON.stringify(line.length > limit ? `${line.slice(0, limit - 3)}...` : line);
}
