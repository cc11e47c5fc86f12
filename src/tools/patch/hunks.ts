/**
 * Applies an Update File section's hunks to a file's lines, in memory. Every hunk is located
 * against the file as it is now; nothing is written here.
 *
 * Rules, in the order they apply (the apply_patch description repeats them for the model):
 * - hunks are searched in order, each after the end of the previous one;
 * - `@@ header` lines move the search to after the nearest line each header names;
 * - the context and removed lines are matched exactly first, then ignoring trailing whitespace,
 *   then ignoring leading and trailing whitespace, then also typographic punctuation;
 * - without a header, the match must be unique in the rest of the file; with one, the nearest
 *   match after the header is taken, because naming the enclosing function is how a model
 *   disambiguates a repeated line;
 * - `*** End of File` means the match must end at the file's last line;
 * - a hunk with only `+` lines inserts after its header, or at the end of the file without one;
 *   without a header it does not move the search, so later hunks may still match before it
 *   (as in Codex, whose tests append first and then edit the top of the file);
 * - matched context lines keep the file's own text, so a tolerant match never rewrites them.
 */
import { ToolError } from '../../core/errors';
import { quoteLine, withLines, type FileText } from './format';
import { describeCandidates, describeClosestRegion, LineIndex } from './matcher';
import { oldLinesOf, type Hunk } from './parser';

interface Replacement {
  readonly start: number;
  readonly removed: number;
  readonly lines: readonly string[];
}

const MARKERS = { context: ' ', remove: '-', add: '+' } as const;

function label(hunk: Hunk, position: number, count: number, displayPath: string): string {
  const first = hunk.lines[0];
  const firstLine = first ? `${MARKERS[first.kind]}${first.text}` : '';
  return `Hunk ${position} of ${count} for ${displayPath} (patch line ${hunk.patchLine}, starting ${quoteLine(firstLine, 80)})`;
}

/** The hunk's new lines, with context lines taken from the file at `start`. */
function replacementLines(hunk: Hunk, fileLines: readonly string[], start: number): string[] {
  const lines: string[] = [];
  let fileLine = start;
  for (const line of hunk.lines) {
    if (line.kind === 'add') lines.push(line.text);
    else if (line.kind === 'context') lines.push(fileLines[fileLine++] ?? line.text);
    else fileLine++;
  }
  return lines;
}

/** Why a hunk that matched nowhere after `from` did not match, with the closest region. */
function mismatch(index: LineIndex, hunk: Hunk, old: readonly string[], from: number, scope: string): string {
  const reasons: string[] = [];
  const its = `Its ${old.length} context and removed line${old.length === 1 ? '' : 's'}`;
  const anywhere = index.find(old, { from: 0, atEnd: hunk.endOfFile });
  const first = anywhere?.starts[0];
  if (first !== undefined) {
    reasons.push(
      `${its} match at line ${first + 1}, but the search was ${scope}: ` +
        `hunks for one file must be in file order, must not overlap, and an @@ header must come before its hunk's lines in the file.`,
    );
  } else if (hunk.endOfFile && index.find(old, { from })) {
    reasons.push(
      `It is marked "*** End of File", so its ${old.length} context and removed line${old.length === 1 ? '' : 's'} must end at the last line of the file, and do not; ` +
        `remove the marker or match the file's real last lines.`,
    );
  } else {
    reasons.push(`${its} do not appear ${scope}, even ignoring whitespace and typographic punctuation.`);
    reasons.push(describeClosestRegion(index, old, from));
  }
  return reasons.join('\n');
}

/** Where one hunk goes: a replacement, or why it has none. */
function locate(index: LineIndex, hunk: Hunk, cursor: number, name: string): Replacement {
  let from = cursor;
  let scope = cursor === 0 ? 'in the file' : `after line ${cursor} (the end of the previous hunk)`;
  for (const header of hunk.headers) {
    const found = index.findHeader(header, from);
    if (found === undefined) {
      throw new ToolError(
        `${name}: its "@@ ${header}" line matches no line ${scope}. ` +
          `An @@ line must repeat a line of the file that comes before the hunk, such as the enclosing function's signature.\n` +
          describeClosestRegion(index, [header], from),
      );
    }
    from = found + 1;
    scope = `after line ${found + 1}, which its "@@" line names`;
  }
  const old = oldLinesOf(hunk);
  if (old.length === 0) {
    const at = hunk.headers.length > 0 ? from : index.lines.length;
    return { start: at, removed: 0, lines: replacementLines(hunk, index.lines, at) };
  }
  const candidates = index.find(old, { from, atEnd: hunk.endOfFile });
  const start = candidates?.starts[0];
  if (candidates === undefined || start === undefined) {
    throw new ToolError(`${name} does not match the current file.\n${mismatch(index, hunk, old, from, scope)}`);
  }
  if (candidates.starts.length > 1 && hunk.headers.length === 0) {
    throw new ToolError(
      `${name} matches ${describeCandidates(candidates)} ${scope} (compared ${candidates.pass.name}). ` +
        `Add context lines that exist at only one of them, or an "@@" line naming the enclosing function or class, so that it matches exactly one place.`,
    );
  }
  return { start, removed: old.length, lines: replacementLines(hunk, index.lines, start) };
}

/** Returns the file with the hunks applied, or throws a ToolError addressed to the model. */
export function applyHunks(file: FileText, hunks: readonly Hunk[], displayPath: string): FileText {
  const index = new LineIndex(file.lines);
  const replacements: Replacement[] = [];
  // Every hunk is tried even after one fails, so one error message lists every problem.
  const problems: string[] = [];
  let cursor = 0;
  hunks.forEach((hunk, position) => {
    try {
      const replacement = locate(index, hunk, cursor, label(hunk, position + 1, hunks.length, displayPath));
      replacements.push(replacement);
      const appended = hunk.headers.length === 0 && replacement.removed === 0;
      if (!appended) cursor = replacement.start + replacement.removed;
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      problems.push(error.message);
    }
  });
  if (problems.length > 0) throw new ToolError(problems.join('\n\n'));
  const lines = [...file.lines];
  // In file order (stable, so appends keep patch order), applied from the end so that each
  // splice leaves the positions of the earlier ones valid.
  const ordered = [...replacements].sort((left, right) => left.start - right.start);
  for (const replacement of ordered.reverse()) {
    lines.splice(replacement.start, replacement.removed, ...replacement.lines);
  }
  return withLines(file, lines);
}
