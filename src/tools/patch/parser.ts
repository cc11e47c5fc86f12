/**
 * The patch envelope models are widely trained on (Codex's `apply_patch` format):
 *
 *     *** Begin Patch
 *     *** Add File: path          then `+` lines, the whole new file
 *     *** Delete File: path
 *     *** Update File: path
 *     *** Move to: new/path       optional, right after Update File
 *     @@ header                   optional; narrows the search to after the line it names
 *      context / -removed / +added
 *     *** End of File             optional; the hunk must match the end of the file
 *     *** End Patch
 *
 * Parsing is strict, and every error names the patch line and what was expected there, because
 * the reader is a model that must repair the patch in one try. The leniencies are the ones Codex
 * has too, because models write these forms (issue 15, checked against Codex's own tests in
 * test/fixtures/codex-apply-patch):
 * - blank lines around the envelope, between sections, after `*** End of File` and before a
 *   hunk's `@@` are ignored;
 * - an empty line inside a hunk is an empty context line (models and editors strip the lone
 *   space such lines should carry);
 * - markers may be indented or padded with spaces, except inside a hunk, where a line starting
 *   with a space is a context line, whatever follows;
 * - the envelope may come wrapped in a shell heredoc (`<<EOF`, `<<'EOF'` or `<<"EOF"` first,
 *   a line ending in `EOF` last), as models that learned to call apply_patch through a shell do.
 */
import { quoteLine } from './format';

export type HunkLineKind = 'context' | 'remove' | 'add';

export interface HunkLine {
  readonly kind: HunkLineKind;
  readonly text: string;
}

export interface Hunk {
  /** `@@` headers in order; each narrows the search to after the line it matches. */
  readonly headers: readonly string[];
  readonly lines: readonly HunkLine[];
  /** Marked `*** End of File`: the hunk's old lines must be the last lines of the file. */
  readonly endOfFile: boolean;
  /** 1-based line in the patch where the hunk starts, for error messages. */
  readonly patchLine: number;
}

export type PatchOperation =
  | { readonly kind: 'add'; readonly path: string; readonly lines: readonly string[]; readonly patchLine: number }
  | { readonly kind: 'delete'; readonly path: string; readonly patchLine: number }
  | {
      readonly kind: 'update';
      readonly path: string;
      readonly moveTo: string | undefined;
      readonly hunks: readonly Hunk[];
      readonly patchLine: number;
    };

export class PatchSyntaxError extends Error {
  override readonly name = 'PatchSyntaxError';
}

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File: ';
const DELETE = '*** Delete File: ';
const UPDATE = '*** Update File: ';
const MOVE = '*** Move to: ';
const END_OF_FILE = '*** End of File';
const HEADER = '@@';

/** What may start a new section: the reminder every "unexpected line" error carries. */
const SECTION_STARTS = `"${ADD}<path>", "${DELETE}<path>", "${UPDATE}<path>" or "${END}"`;

/** The old lines of a hunk: context and removed lines, in file order. */
export function oldLinesOf(hunk: Hunk): string[] {
  return hunk.lines.filter((line) => line.kind !== 'add').map((line) => line.text);
}

class Cursor {
  private index: number;

  constructor(
    private readonly lines: readonly string[],
    start: number,
    private readonly end: number,
  ) {
    this.index = start;
  }

  get atEnd(): boolean {
    return this.index >= this.end;
  }

  /** The current line; only called when not at the end. */
  get line(): string {
    return this.lines[this.index] ?? '';
  }

  /** 1-based, as a person counts lines in the patch. */
  get lineNumber(): number {
    return this.index + 1;
  }

  advance(): void {
    this.index++;
  }

  /**
   * True when only blank lines remain before the next section, the next hunk or the end: such
   * blank lines separate sections and are not empty context lines or empty added lines.
   */
  atSeparator(): boolean {
    for (let index = this.index; index < this.end; index++) {
      const line = this.lines[index] ?? '';
      if (line.trim() !== '') return isIndentedSectionStart(line) || line.startsWith(HEADER);
    }
    return true;
  }

  skipSeparator(): void {
    while (!this.atEnd && this.line.trim() === '') this.advance();
  }

  /** Throws an error naming this line, what was expected, and optionally how to fix it. */
  fail(expected: string, hint?: string): never {
    const found = this.atEnd ? 'the end of the patch' : quoteLine(this.line);
    throw new PatchSyntaxError(`Patch line ${this.lineNumber}: expected ${expected}, found ${found}.${hint ? ` ${hint}` : ''}`);
  }
}

/** Inside a hunk only an unindented marker starts a section; a line starting with a space is context. */
function isSectionStart(line: string): boolean {
  return line.startsWith(ADD) || line.startsWith(DELETE) || line.startsWith(UPDATE) || line.trimEnd() === END;
}

/** Where a section may start (not inside a hunk), its marker may be indented. */
function isIndentedSectionStart(line: string): boolean {
  return isSectionStart(line.trimStart());
}

function readPath(cursor: Cursor, prefix: string): string {
  const path = cursor.line.trimStart().slice(prefix.length).trim();
  if (path === '') cursor.fail(`a path after "${prefix.trim()}"`);
  return path;
}

function parseAdd(cursor: Cursor): PatchOperation {
  const patchLine = cursor.lineNumber;
  const path = readPath(cursor, ADD);
  cursor.advance();
  const lines: string[] = [];
  while (!cursor.atEnd && !isIndentedSectionStart(cursor.line)) {
    if (cursor.line.trim() === '' && cursor.atSeparator()) {
      cursor.skipSeparator();
      break;
    }
    if (!cursor.line.startsWith('+')) {
      cursor.fail(`a line starting with "+", or ${SECTION_STARTS}`, 'Every line of an added file starts with "+".');
    }
    lines.push(cursor.line.slice(1));
    cursor.advance();
  }
  return { kind: 'add', path, lines, patchLine };
}

function parseHunk(cursor: Cursor, path: string, isFirst: boolean): Hunk {
  const patchLine = cursor.lineNumber;
  const headers: string[] = [];
  while (!cursor.atEnd && cursor.line.startsWith(HEADER)) {
    const header = cursor.line.slice(HEADER.length).trim();
    // A bare "@@" only separates hunks; git-style "@@ -1,3 +1,4 @@" ranges are line numbers the
    // model guessed, which the context verification makes unnecessary, so they are not headers.
    if (header !== '' && !/^-\d+(,\d+)? \+\d+(,\d+)? @@/.test(header)) headers.push(header);
    cursor.advance();
  }
  if (headers.length === 0 && patchLine === cursor.lineNumber && !isFirst) {
    cursor.fail(`"@@" to start the next hunk of ${path}, or ${SECTION_STARTS}`);
  }
  const lines: HunkLine[] = [];
  let endOfFile = false;
  while (!cursor.atEnd && !isSectionStart(cursor.line) && !cursor.line.startsWith(HEADER)) {
    const line = cursor.line;
    if (line.trimEnd() === END_OF_FILE) {
      endOfFile = true;
      cursor.advance();
      break;
    }
    if (line === '' && cursor.atSeparator()) {
      cursor.skipSeparator();
      break;
    }
    const marker = line[0];
    if (marker === ' ' || line === '') lines.push({ kind: 'context', text: line.slice(1) });
    else if (marker === '-') lines.push({ kind: 'remove', text: line.slice(1) });
    else if (marker === '+') lines.push({ kind: 'add', text: line.slice(1) });
    // Indented with something other than one space (a tab), so not a context line: a new section.
    else if (isIndentedSectionStart(line)) break;
    else {
      cursor.fail(
        `a hunk line starting with " " (context), "-" (removed) or "+" (added), or "@@", "${END_OF_FILE}" or ${SECTION_STARTS}`,
        'If it is an unchanged context line, prefix it with one space.',
      );
    }
    cursor.advance();
  }
  if (!lines.some((line) => line.kind !== 'context')) {
    throw new PatchSyntaxError(
      `Patch line ${patchLine}: the hunk of ${path} that starts here changes nothing; a hunk needs at least one "-" or "+" line.`,
    );
  }
  return { headers, lines, endOfFile, patchLine };
}

function parseUpdate(cursor: Cursor): PatchOperation {
  const patchLine = cursor.lineNumber;
  const path = readPath(cursor, UPDATE);
  cursor.advance();
  let moveTo: string | undefined;
  if (!cursor.atEnd && cursor.line.trimStart().startsWith(MOVE)) {
    moveTo = readPath(cursor, MOVE);
    cursor.advance();
  }
  const hunks: Hunk[] = [];
  while (!cursor.atEnd) {
    // Blank lines before a hunk's "@@", after "*** End of File", or after a rename-only section
    // separate; they are not an empty context line of a hunk that changes nothing.
    if (cursor.line.trim() === '' && cursor.atSeparator()) {
      cursor.skipSeparator();
      continue;
    }
    if (isIndentedSectionStart(cursor.line)) break;
    hunks.push(parseHunk(cursor, path, hunks.length === 0));
  }
  if (hunks.length === 0 && moveTo === undefined) {
    throw new PatchSyntaxError(
      `Patch line ${patchLine}: "${UPDATE}${path}" has no hunks; expected "@@" and context/-/+ lines after it (or "${MOVE}<path>" to only rename).`,
    );
  }
  return { kind: 'update', path, moveTo, hunks, patchLine };
}

const HEREDOC_STARTS: readonly string[] = ['<<EOF', "<<'EOF'", '<<"EOF"'];

/** Parses the envelope; throws a PatchSyntaxError naming the patch line on any deviation. */
export function parsePatch(patch: string): PatchOperation[] {
  const lines = patch.split(/\r?\n/);
  let start = 0;
  let end = lines.length;
  const trimBlankLines = (): void => {
    while (start < end && (lines[start] ?? '').trim() === '') start++;
    while (end > start && (lines[end - 1] ?? '').trim() === '') end--;
  };
  trimBlankLines();
  if (end - start >= 4 && HEREDOC_STARTS.includes((lines[start] ?? '').trim()) && (lines[end - 1] ?? '').trimEnd().endsWith('EOF')) {
    start++;
    end--;
    trimBlankLines();
  }
  if (start === end) throw new PatchSyntaxError(`The patch is empty; expected "${BEGIN}" on the first line.`);
  if ((lines[start] ?? '').trim() !== BEGIN) {
    new Cursor(lines, start, end).fail(`"${BEGIN}" as the first line`);
  }
  if ((lines[end - 1] ?? '').trim() !== END) {
    new Cursor(lines, end - 1, end).fail(`"${END}" as the last line`);
  }
  const cursor = new Cursor(lines, start + 1, end - 1);
  const operations: PatchOperation[] = [];
  while (!cursor.atEnd) {
    const line = cursor.line.trimStart();
    if (line.startsWith(ADD)) operations.push(parseAdd(cursor));
    else if (line.startsWith(DELETE)) {
      operations.push({ kind: 'delete', path: readPath(cursor, DELETE), patchLine: cursor.lineNumber });
      cursor.advance();
    } else if (line.startsWith(UPDATE)) operations.push(parseUpdate(cursor));
    else if (line.trim() === '') cursor.advance();
    else if (line.trim() === END) cursor.fail(`"${END}" only once, as the last line of the patch`);
    else if (line.startsWith(MOVE)) cursor.fail(`"${MOVE}<path>" only directly after "${UPDATE}<path>"`);
    else cursor.fail(SECTION_STARTS);
  }
  if (operations.length === 0) {
    throw new PatchSyntaxError(`The patch between "${BEGIN}" and "${END}" contains no file operations.`);
  }
  return operations;
}
