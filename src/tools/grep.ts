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
  pattern: z.string().min(1).describe(
    'Regular expression (Rust syntax: like PCRE without look-around or backreferences). Escape ( ) [ ] { } . * + ? | \\ to match them literally, e.g. "foo\\(" for "foo(".',
  ),
  path: z.string().min(1).optional().describe('File or folder to search, relative to the workspace root; default the whole workspace'),
  glob: z.string().min(1).optional().describe(
    'Only search files whose path (relative to `path`) matches, e.g. "*.ts" or "src/**/*.{js,jsx}"; without a slash it matches the file name at any depth; a leading "!" excludes.',
  ),
  case_insensitive: z.boolean().optional().describe('Ignore case; default false (case-sensitive)'),
  context: z.number().int().min(0).max(20).optional().describe('Lines shown before and after each match (content mode); default 0'),
  output_mode: z.enum(['content', 'files', 'count']).optional().describe(
    '"content" (default): matching lines as path:line:text, context lines as path-line-text, "--" between groups; "files": only the paths of matching files; "count": path:count per file',
  ),
  limit: z.number().int().min(1).max(5000).optional().describe(`The most matching lines (content) or files (files, count) to return; default ${DEFAULT_LIMIT}`),
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
const decodeText = (value: z.infer<typeof jsonText>): string => ('text' in value ? value.text : Buffer.from(value.bytes, 'base64').toString('utf8'));

const lineMessage = z.object({
  type: z.enum(['match', 'context']),
  data: z.object({ path: jsonText, lines: jsonText, line_number: z.number().int() }),
});
const endMessage = z.object({ type: z.literal('end'), data: z.object({ path: jsonText }) });

interface Line {
  readonly line: number;
  readonly text: string;
  readonly match: boolean;
}

interface FileMatches {
  readonly path: string;
  readonly lines: Line[];
  matchedLines: number;
  /** No more lines are kept for this file once it alone fills the limit (trailing context aside). */
  full: boolean;
}

/** A JSON record too long to keep whole: its type and path are in the head, its line number in the tail. */
function parseOverlong(record: RipgrepRecord): { type: string; path: string; line: number; text: string } | undefined {
  const type = /^\{"type":"(\w+)"/.exec(record.head)?.[1];
  const path = /"path":\{"text":("(?:[^"\\]|\\.)*")\}/.exec(record.head)?.[1];
  const line = /"line_number":(\d+)/.exec(record.tail)?.[1];
  if (type === undefined || path === undefined) return undefined;
  return { type, path: JSON.parse(path) as string, line: line === undefined ? 0 : Number(line), text: `[a line of about ${record.length} characters, too long to show]` };
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
  const addLine = (path: string, line: number, text: string, match: boolean): void => {
    if (!current || current.path !== path) {
      if (!included(path) || hidden(path)) return;
      current = { path, lines: [], matchedLines: 0, full: false };
    }
    if (match) {
      totalLines++;
      current.matchedLines++;
      if (current.matchedLines > limit) current.full = true;
    }
    if (!current.full) current.lines.push({ line, text: clip(text), match });
  };

  const run = await runRipgrep(context, {
    args: searchArgs(args, root, ['--json', ...(contextLines > 0 ? [`--context=${contextLines}`] : [])]),
    cwd: root.cwd,
    separator: '\n',
    onRecord: (record) => {
      if (record.overlong) {
        const parsed = parseOverlong(record);
        if (parsed && (parsed.type === 'match' || parsed.type === 'context')) addLine(parsed.path, parsed.line, parsed.text, parsed.type === 'match');
        return;
      }
      if (record.text.startsWith('{"type":"match"') || record.text.startsWith('{"type":"context"')) {
        const message = lineMessage.safeParse(JSON.parse(record.text));
        if (message.success) {
          const { data } = message.data;
          addLine(decodeText(data.path), data.line_number, decodeText(data.lines), message.data.type === 'match');
        }
      } else if (record.text.startsWith('{"type":"end"')) {
        const message = endMessage.safeParse(JSON.parse(record.text));
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
      const contiguous = previous !== undefined && entry.line === previous + 1;
      if (contextLines > 0 && out.length > 0 && !contiguous) out.push('--');
      out.push(`${name}${entry.match ? ':' : '-'}${entry.line}${entry.match ? ':' : '-'}${entry.text}`);
      if (entry.match) shown++;
      else if (shown >= limit) trailing++;
      previous = entry.line;
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
    const result = mode === 'content' ? await searchContent(args, context, root, limit) : await searchFiles(args, context, root, limit, mode === 'count');
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
    const more = total > result.shown ? `\n[${total - result.shown} more ${unit}s not shown: narrow the pattern, path or glob, or raise limit.]` : '';
    const capped = await capText(context, `${header} for ${JSON.stringify(args.pattern)} in ${where}${partial}:\n${result.text}${more}${withheld}${problems}`);
    return {
      output: capped.output,
      truncated: capped.truncated,
      metadata: { matches: result.totalLines, files: result.totalFiles, shown: result.shown, hiddenFiles: result.hiddenFiles },
    };
  },
});
