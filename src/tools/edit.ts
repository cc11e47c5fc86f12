/**
 * edit (SPEC S3): a registered slot, off the default surface, for profiles that ask for the
 * string-replacement style of editing. It shares apply_patch's matching, error quality, format
 * preservation, preview and all-or-none commit (src/tools/patch), so the two never disagree
 * about what a file contains or how it is written.
 */
import { z } from 'zod';
import { ToolError } from '../core/errors';
import { defineTool, type CallEnvironment, type ToolContext, type ToolResult } from '../core/tool';
import { pathSubject } from './paths';
import {
  applyUserEdits,
  commitChanges,
  previewOf,
  previewPaths,
  readExisting,
  runPaths,
  type FileOnDisk,
  type PathSource,
  type PlannedChange,
} from './patch/changes';
import { adoptText, NEW_FILE_FORMAT, normalizedText, splitLines, withLines, type FileText } from './patch/format';
import { describeCandidates, describeClosestRegion, EXACT_PASS, LineIndex, TOLERANT_PASSES, type MatchPass } from './patch/matcher';
import { describeOutcome } from './patch/report';

const DESCRIPTION = `Replace text in one file: old_string becomes new_string.

- old_string must match exactly one place in the file, unless replace_all is true (then every occurrence is replaced). Include enough surrounding lines to make it unique.
- Matching is exact first. If that finds nothing and old_string is whole lines, it is matched line by line ignoring trailing whitespace, then leading and trailing whitespace, then typographic quotes and dashes; the matched lines are replaced by new_string.
- No match: the error shows the closest region of the file with line numbers. Several matches: the error lists their line numbers.
- Write old_string and new_string with \\n line endings; the file keeps its own (CRLF or LF; mixed endings become the majority), its UTF-8 BOM and whether it ends with a newline.
- An empty old_string creates a file that does not exist yet (or fills an empty one) with new_string.
- old_string and new_string must differ. Paths are relative to the workspace; files outside it are refused.
- The user may edit your proposal before approving; the result then shows what they changed as a diff.

Returns the file's line counts (+added -removed). Read the file again before editing it further.`;

const parameters = z
  .strictObject({
    path: z.string().min(1).describe('The file to edit, relative to the workspace.'),
    old_string: z.string().describe('The exact text to replace; empty to create a new file.'),
    new_string: z.string().describe('The replacement text.'),
    replace_all: z.boolean().default(false).describe('Replace every occurrence instead of requiring exactly one.'),
  })
  .refine((args) => args.old_string !== args.new_string, {
    message: 'old_string and new_string are identical, so nothing would change; send the text you want in new_string.',
    path: ['new_string'],
  });

type Arguments = z.output<typeof parameters>;

/** A span of the file's LF text to replace. */
interface Span {
  readonly start: number;
  readonly end: number;
}

/** Where each line of `text` starts, so offsets and line numbers convert both ways. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) starts.push(index + 1);
  return starts;
}

/** The 0-based line holding `offset`: the last line start at or before it, by binary search. */
function lineOf(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if ((starts[middle] ?? Infinity) <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

function exactSpans(text: string, wanted: string): Span[] {
  const spans: Span[] = [];
  for (let index = text.indexOf(wanted); index !== -1; index = text.indexOf(wanted, index + wanted.length)) {
    spans.push({ start: index, end: index + wanted.length });
  }
  return spans;
}

/** Non-overlapping whole-line matches under the tolerant passes, as spans of the text. */
function tolerantSpans(
  text: string,
  starts: readonly number[],
  index: LineIndex,
  wanted: string,
): { spans: Span[]; pass: MatchPass } | undefined {
  const { lines: wantedLines, endsWithNewline } = splitLines(wanted);
  if (wantedLines.length === 0) return undefined;
  const candidates = index.find(wantedLines, { from: 0, passes: TOLERANT_PASSES });
  if (!candidates) return undefined;
  const spans: Span[] = [];
  let free = 0;
  for (const first of candidates.starts) {
    if (first < free) continue;
    const last = first + wantedLines.length - 1;
    const lineEnd = (starts[last + 1] ?? text.length + 1) - 1;
    // The span takes the last line's newline only when old_string ended with one, so that
    // new_string's own ending decides what follows.
    const end = endsWithNewline && lineEnd < text.length ? lineEnd + 1 : lineEnd;
    spans.push({ start: starts[first] ?? 0, end });
    free = last + 1;
  }
  return { spans, pass: candidates.pass };
}

function replaceSpans(text: string, spans: readonly Span[], replacement: string): string {
  let result = '';
  let position = 0;
  for (const span of spans) {
    result += text.slice(position, span.start) + replacement;
    position = span.end;
  }
  return result + text.slice(position);
}

/** The file after the replacement, in its own format, keeping whether it ended with a newline. */
function replaceIn(before: FileOnDisk, args: Arguments, display: string): { after: FileText; note: string } {
  const text = normalizedText(before.text);
  const wanted = args.old_string.replace(/\r\n/g, '\n');
  const replacement = args.new_string.replace(/\r\n/g, '\n');
  const starts = lineStarts(text);
  const index = new LineIndex(before.text.lines);
  const exact = exactSpans(text, wanted);
  const found = exact.length > 0 ? { spans: exact, pass: EXACT_PASS } : tolerantSpans(text, starts, index, wanted);
  if (!found || found.spans.length === 0) {
    throw new ToolError(
      `old_string was not found in ${display}, not even ignoring whitespace and typographic punctuation.\n` +
        `${describeClosestRegion(index, splitLines(wanted).lines)}\n` +
        'Read the file again if it may have changed, then send old_string exactly as the file has it.',
    );
  }
  if (found.spans.length > 1 && !args.replace_all) {
    const candidates = { pass: found.pass, starts: found.spans.map((span) => lineOf(starts, span.start)) };
    throw new ToolError(
      `old_string matches ${describeCandidates(candidates)} in ${display}. ` +
        'Include more surrounding lines so it matches exactly one place, or set replace_all to replace every occurrence.',
    );
  }
  const { lines } = splitLines(replaceSpans(text, found.spans, replacement));
  const after: FileText = withLines(before.text, lines);
  const where = found.spans.map((span) => lineOf(starts, span.start) + 1).join(', ');
  const count = found.spans.length === 1 ? '1 occurrence' : `${found.spans.length} occurrences`;
  const how = found.pass !== EXACT_PASS ? `, matched ${found.pass.name}` : '';
  return { after, note: `Replaced ${count} in ${display} (line${found.spans.length === 1 ? '' : 's'} ${where}${how}):` };
}

async function planEdit(args: Arguments, env: CallEnvironment, paths: PathSource): Promise<{ change: PlannedChange; heading: string }> {
  const path = await paths(args.path);
  const before = await readExisting(env.host.fs, path);
  if (!before) {
    if (args.old_string !== '') {
      throw new ToolError(`${path.display} does not exist. Check the path, or pass an empty old_string to create it with new_string.`);
    }
    return { change: { kind: 'create', path, after: adoptText(args.new_string, NEW_FILE_FORMAT) }, heading: `Created ${path.display}:` };
  }
  if (args.old_string === '') {
    if (before.text.lines.length > 0) {
      throw new ToolError(`${path.display} already exists and is not empty, so old_string cannot be empty. Give the text to replace.`);
    }
    return {
      change: { kind: 'update', path, before, after: adoptText(args.new_string, before.text.format) },
      heading: `Filled the empty ${path.display}:`,
    };
  }
  const { after, note } = replaceIn(before, args, path.display);
  return { change: { kind: 'update', path, before, after }, heading: note };
}

async function run(args: Arguments, context: ToolContext): Promise<ToolResult> {
  // Planned again from disk at run time, so a change since the preview is verified, not overwritten.
  const { change, heading } = await planEdit(args, context, runPaths(context));
  const { changes, edits } = applyUserEdits([change], context.approvedEdits);
  if (context.signal.aborted) throw new ToolError('Cancelled before anything was written; the file was not changed.');
  const leftovers = await commitChanges(context.host.fs, changes);
  return describeOutcome(heading, changes, edits, leftovers);
}

export const editTool = defineTool({
  name: 'edit',
  description: DESCRIPTION,
  parameters,
  declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
  subjects: async (args, env) => [await pathSubject(env, args.path)],
  preview: async (args, env) => [previewOf((await planEdit(args, env, previewPaths(env))).change)],
  run,
});
