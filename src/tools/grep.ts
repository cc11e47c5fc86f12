/**
 * grep: search file contents with `rg` (SPEC S4). Content mode parses `rg --json`; results are
 * ordered by path, then line, whatever order rg's threads finish in, and memory stays bounded by
 * the limit however many lines match.
 */
import { z } from 'zod';
import type { Declarations } from '../core/declarations';
import { defineTool, type ToolContext } from '../core/tool';
import { join } from 'node:path';
import { capText } from './capped';
import { displayJoin, pathSubject } from './paths';
import {
  comparePaths,
  COMMON_RIPGREP_FLAGS,
  EXCLUDE_GIT_DIRECTORY,
  pathGlobFilter,
  ripgrepFailure,
  runRipgrep,
  SmallestItems,
  type RipgrepRecord,
  type RipgrepRun,
  withheldNote,
} from './ripgrep-run';
import { resolveSearchRoot, type SearchRoot } from './search-root';

const DECLARATIONS: Declarations = { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' };
const DEFAULT_LIMIT = 100;
const MAX_LINE_CHARS = 500;

const DESCRIPTION = `Search file contents with ripgrep. Use it to find where something is defined or used; to find files by name use glob.

Results are sorted by path, then line number, and say how many matched in total. Lines longer than ${MAX_LINE_CHARS} characters are cut. Files ignored by .gitignore, .ignore or .rgignore are skipped (even outside a git repository), as are the .git folder and binary files; other hidden files are searched; symlinks are not followed.`;

const parameters = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .describe(
      'Regular expression (Rust syntax: like PCRE without look-around or backreferences). Escape ( ) [ ] { } . * + ? | \\ to match them literally, e.g. "foo\\(" for "foo(".',
    ),
  path: z.string().min(1).optional().describe('File or folder to search, relative to the workspace root; default the whole workspace'),
  glob: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Only search files whose path (relative to `path`) matches, e.g. "*.ts" or "src/**/*.{js,jsx}"; without a slash it matches the file name at any depth; a leading "!" excludes.',
    ),
  case_insensitive: z.boolean().optional().describe('Ignore case; default false (case-sensitive)'),
  context: z.number().int().min(0).max(20).optional().describe('Lines shown before and after each match (content mode); default 0'),
  output_mode: z
    .enum(['content', 'files', 'count'])
    .optional()
    .describe(
      '"content" (default): matching lines as path:line:text, context lines as path-line-text, "--" between groups; "files": only the paths of matching files; "count": path:count per file',
    ),
  limit: z
    .number()
    .int()
    .min(1)
    .max(5000)
    .optional()
    .describe(`The most matching lines (content) or files (files, count) to return; default ${DEFAULT_LIMIT}`),
});
type GrepArgs = z.output<typeof parameters>;

function searchArgs(args: GrepArgs, root: SearchRoot, modeFlags: readonly string[]): string[] {
  return [
    ...COMMON_RIPGREP_FLAGS,
    ...modeFlags,
    args.case_insensitive ? '--ignore-case' : '--case-sensitive',
    EXCLUDE_GIT_DIRECTORY,
    ...root.exclusions,
    `--regexp=${args.pattern}`,
    ...(root.target ? ['--', root.target] : []),
  ];
}

/**
 * Whether a path rg printed (relative to the folder searched) is hidden by permission rules. The
 * verdict of the last path is kept: rg prints a file's lines together.
 */
function hiddenFilter(context: ToolContext, root: SearchRoot): (path: string) => boolean {
  let last: { path: string; hidden: boolean } | undefined;
  return (path) => {
    if (last?.path !== path) last = { path, hidden: context.visibility.isHidden(join(root.cwd, path), 'file') };
    return last.hidden;
  };
}

/** The `glob` argument as a filter on rg's paths (relative to the folder searched). */
const fileFilter = (args: GrepArgs): ((path: string) => boolean) => (args.glob ? pathGlobFilter(args.glob) : () => true);

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

function clip(text: string): string {
  const line = text.replace(/\r?\n$/, '');
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${line.length} characters]` : line;
}

/** rg's JSON carries text as `{text}`, or as `{bytes}` (base64) when it is not valid UTF-8. */
const jsonText = z.union([z.object({ text: z.string() }), z.object({ bytes: z.string() })]);
const decodeText = (value: z.infer<typeof jsonText>): string =>
  'text' in value ? value.text : Buffer.from(value.bytes, 'base64').toString('utf8');

const lineMessage = z.object({
  type: z.enum(['match', 'context']),
  data: z.object({ path: jsonText, lines: jsonText, line_number: z.number().int() }),
});
const endMessage = z.object({ type: z.literal('end'), data: z.object({ path: jsonText }) });

interface ParsedLine {
  readonly line: number;
  readonly text: string;
}

interface Line {
  /** rg's JSON record, parsed only if the line is shown (most are not); or the line itself. */
  readonly source: string | ParsedLine;
  readonly match: boolean;
}

interface FileMatches {
  readonly path: string;
  /** The path as rg's JSON wrote it (a quoted string), to recognise the file's next records cheaply. */
  readonly rawPath: string | undefined;
  readonly lines: Line[];
  matchedLines: number;
  /** No more lines are kept for this file once it alone fills the limit (trailing context aside). */
  full: boolean;
}

/**
 * rg writes a record's fields in a fixed order, so a line's type and path are a known prefix and
 * a JSON string. Reading them by position spares the full JSON.parse of every record, most of
 * whose lines are never shown; that parse was most of the tool's own time (issue 15). A record
 * that does not start this way (a non-UTF-8 path, a future rg) takes the full parse instead.
 */
const RECORD_PREFIXES = {
  match: '{"type":"match","data":{"path":{"text":',
  context: '{"type":"context","data":{"path":{"text":',
  end: '{"type":"end","data":{"path":{"text":',
} as const;

/** The JSON string literal (quotes included) that starts at `start`, or undefined when there is none. */
function jsonStringAt(text: string, start: number): string | undefined {
  if (text[start] !== '"') return undefined;
  for (let end = text.indexOf('"', start + 1); end !== -1; end = text.indexOf('"', end + 1)) {
    let backslashes = 0;
    while (text[end - 1 - backslashes] === '\\') backslashes++;
    if (backslashes % 2 === 0) return text.slice(start, end + 1);
  }
  return undefined;
}

/** The path of a record of this type, as a raw JSON string literal, when the record starts as rg writes it. */
function rawPathOf(record: string, type: keyof typeof RECORD_PREFIXES): string | undefined {
  const prefix = RECORD_PREFIXES[type];
  return record.startsWith(prefix) ? jsonStringAt(record, prefix.length) : undefined;
}

/** A match or context record's line, or undefined if it is not one. */
function parseLineRecord(record: string): ParsedLine | undefined {
  const message = lineMessage.safeParse(JSON.parse(record));
  return message.success ? { line: message.data.data.line_number, text: decodeText(message.data.data.lines) } : undefined;
}

/** A JSON record too long to keep whole: its type and path are in the head, its line number in the tail. */
function parseOverlong(record: RipgrepRecord): { type: string; path: string; line: number; text: string } | undefined {
  const type = /^\{"type":"(\w+)"/.exec(record.head)?.[1];
  const path = /"path":\{"text":("(?:[^"\\]|\\.)*")\}/.exec(record.head)?.[1];
  const line = /"line_number":(\d+)/.exec(record.tail)?.[1];
  if (type === undefined || path === undefined) return undefined;
  return {
    type,
    path: JSON.parse(path) as string,
    line: line === undefined ? 0 : Number(line),
    text: `[a line of about ${record.length} characters, too long to show]`,
  };
}

/**
 * Content mode. Files arrive whole (rg prints each file's results together) in any order; the
 * kept set is the smallest prefix of files, by path, that holds `limit` matching lines.
 */
async function searchContent(args: GrepArgs, context: ToolContext, root: SearchRoot, limit: number) {
  const contextLines = args.context ?? 0;
  const files: FileMatches[] = [];
  let current: FileMatches | undefined;
  let totalLines = 0;
  let totalFiles = 0;

  const keep = (file: FileMatches): void => {
    totalFiles++;
    let index = files.findIndex((other) => comparePaths(file.path, other.path) < 0);
    if (index === -1) index = files.length;
    files.splice(index, 0, file);
    let kept = 0;
    const enough = files.findIndex((other) => (kept += other.matchedLines) >= limit);
    if (enough !== -1) files.length = enough + 1;
  };

  const included = fileFilter(args);
  const hidden = hiddenFilter(context, root);
  let hiddenFiles = 0;
  /** `rawPath` when known; otherwise `path` is compared, decoded. */
  const addLine = (
    file: { readonly path: () => string; readonly rawPath: string | undefined },
    source: string | ParsedLine,
    match: boolean,
  ): void => {
    if (
      !current ||
      (file.rawPath !== undefined && current.rawPath !== undefined ? current.rawPath !== file.rawPath : current.path !== file.path())
    ) {
      const path = file.path();
      if (!included(path) || hidden(path)) {
        current = undefined;
        return;
      }
      current = { path, rawPath: file.rawPath, lines: [], matchedLines: 0, full: false };
    }
    if (match) {
      totalLines++;
      current.matchedLines++;
      if (current.matchedLines > limit) current.full = true;
    }
    if (!current.full) current.lines.push({ source, match });
  };
  const decodedPath = (rawPath: string) => (): string => JSON.parse(rawPath) as string;

  const run = await runRipgrep(context, {
    args: searchArgs(args, root, ['--json', ...(contextLines > 0 ? [`--context=${contextLines}`] : [])]),
    cwd: root.cwd,
    separator: '\n',
    onRecord: (record) => {
      if (record.overlong) {
        const parsed = parseOverlong(record);
        if (parsed && (parsed.type === 'match' || parsed.type === 'context')) {
          addLine({ path: () => parsed.path, rawPath: undefined }, { line: parsed.line, text: parsed.text }, parsed.type === 'match');
        }
        return;
      }
      const { text } = record;
      const match = text.startsWith('{"type":"match"');
      if (match || text.startsWith('{"type":"context"')) {
        const rawPath = rawPathOf(text, match ? 'match' : 'context');
        if (rawPath !== undefined) {
          addLine({ path: decodedPath(rawPath), rawPath }, text, match);
          return;
        }
        const message = lineMessage.safeParse(JSON.parse(text));
        if (message.success) {
          const { data } = message.data;
          addLine(
            { path: () => decodeText(data.path), rawPath: undefined },
            { line: data.line_number, text: decodeText(data.lines) },
            match,
          );
        }
      } else if (text.startsWith('{"type":"end"')) {
        const rawPath = rawPathOf(text, 'end');
        if (rawPath !== undefined && current?.rawPath === rawPath) {
          if (current.matchedLines > 0) keep(current);
          current = undefined;
          return;
        }
        const message = endMessage.safeParse(JSON.parse(text));
        if (!message.success) return;
        const path = decodeText(message.data.data.path);
        if (current && current.path === path) {
          if (current.matchedLines > 0) keep(current);
          current = undefined;
        } else if (included(path) && hidden(path)) {
          // Counted per file, as the model would have seen it: hidden files, not lines.
          hiddenFiles++;
        }
      }
    },
  });

  // rg's own layout: `path:line:text` for matches, `path-line-text` for context, `--` between groups.
  let shown = 0;
  const out: string[] = [];
  for (const file of files) {
    const name = displayJoin(root.displayBase, file.path);
    let previous: number | undefined;
    let trailing = 0;
    for (const entry of file.lines) {
      if (shown >= limit && (entry.match || trailing >= contextLines)) break;
      const parsed = typeof entry.source === 'string' ? parseLineRecord(entry.source) : entry.source;
      if (!parsed) continue;
      const contiguous = previous !== undefined && parsed.line === previous + 1;
      if (contextLines > 0 && out.length > 0 && !contiguous) out.push('--');
      out.push(`${name}${entry.match ? ':' : '-'}${parsed.line}${entry.match ? ':' : '-'}${clip(parsed.text)}`);
      if (entry.match) shown++;
      else if (shown >= limit) trailing++;
      previous = parsed.line;
    }
    if (shown >= limit) break;
  }
  return { run, text: out.join('\n'), shown, totalLines, totalFiles, hiddenFiles };
}

async function searchFiles(args: GrepArgs, context: ToolContext, root: SearchRoot, limit: number, counts: boolean) {
  const found = new SmallestItems<{ path: string; count: number }>(limit, (left, right) => comparePaths(left.path, right.path));
  let totalLines = 0;
  let hiddenFiles = 0;
  const included = fileFilter(args);
  const hidden = hiddenFilter(context, root);
  const run: RipgrepRun = await runRipgrep(context, {
    args: searchArgs(args, root, counts ? ['--count', '--with-filename', '--null'] : ['--files-with-matches', '--null']),
    cwd: root.cwd,
    separator: counts ? '\n' : '\0',
    onRecord: (record) => {
      if (record.text.length === 0) return;
      const path = counts ? record.text.slice(0, record.text.lastIndexOf('\0')) : record.text;
      if (!included(path)) return;
      if (hidden(path)) {
        hiddenFiles++;
        return;
      }
      if (!counts) {
        found.add({ path, count: 0 });
        return;
      }
      const count = Number(record.text.slice(record.text.lastIndexOf('\0') + 1));
      totalLines += count;
      found.add({ path, count });
    },
  });
  const lines = found.values().map((entry) => `${displayJoin(root.displayBase, entry.path)}${counts ? `:${entry.count}` : ''}`);
  return { run, text: lines.join('\n'), shown: lines.length, totalFiles: found.total, totalLines, hiddenFiles };
}

export const grepTool = defineTool({
  name: 'grep',
  description: DESCRIPTION,
  parameters,
  declarations: DECLARATIONS,
  subjects: async (args, env) => [await pathSubject(env, args.path ?? '.')],
  async run(args, context) {
    const root = await resolveSearchRoot(context, args.path);
    const limit = args.limit ?? DEFAULT_LIMIT;
    const mode = args.output_mode ?? 'content';
    const result =
      mode === 'content'
        ? await searchContent(args, context, root, limit)
        : await searchFiles(args, context, root, limit, mode === 'count');
    const failure = ripgrepFailure(result.run, `Searching for ${JSON.stringify(args.pattern)}`);
    if (failure && result.totalFiles === 0) throw failure;
    const where = root.displayBase === '.' && !root.target ? 'the workspace' : displayJoin(root.displayBase, root.target ?? '');
    const problems = failure && result.run.stderr.length > 0 ? `\n[rg could not search everything: ${result.run.stderr}]` : '';
    const withheld = withheldNote(result.hiddenFiles, 'matching file', root.exclusions.length > 0);
    if (result.totalFiles === 0) {
      return {
        output:
          `No matches for ${JSON.stringify(args.pattern)} in ${where}${args.glob ? ` (files matching ${JSON.stringify(args.glob)})` : ''}.` +
          `${args.case_insensitive ? '' : ' The search was case-sensitive; try case_insensitive: true.'} Files ignored by .gitignore are not searched.${withheld}${problems}`,
        metadata: { matches: 0, files: 0, hiddenFiles: result.hiddenFiles },
      };
    }
    const unit = mode === 'content' ? 'matching line' : 'file';
    const total = mode === 'content' ? result.totalLines : result.totalFiles;
    const header =
      mode === 'content'
        ? `${plural(result.totalLines, 'matching line')} in ${plural(result.totalFiles, 'file')}`
        : mode === 'count'
          ? `${plural(result.totalFiles, 'file')} with ${plural(result.totalLines, 'matching line')}`
          : `${plural(result.totalFiles, 'file')} match`;
    const partial = total > result.shown ? `; showing the first ${result.shown} by path and line` : '';
    const more =
      total > result.shown ? `\n[${total - result.shown} more ${unit}s not shown: narrow the pattern, path or glob, or raise limit.]` : '';
    const capped = await capText(
      context,
      `${header} for ${JSON.stringify(args.pattern)} in ${where}${partial}:\n${result.text}${more}${withheld}${problems}`,
    );
    return {
      output: capped.output,
      truncated: capped.truncated,
      metadata: { matches: result.totalLines, files: result.totalFiles, shown: result.shown, hiddenFiles: result.hiddenFiles },
    };
  },
});
