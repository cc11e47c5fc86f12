/**
 * Finding a run of lines in a file, the way both apply_patch and edit need it: exact first, then
 * progressively more tolerant passes, and a unique answer or a useful error. "Could not find
 * oldString" with no hint makes models loop (OpenCode, Cline); so a miss shows the closest
 * region of the file with line numbers, and an ambiguous match lists every candidate.
 */
import { quoteLine } from './format';

/** One way of comparing lines, from strictest to most tolerant. */
export interface MatchPass {
  readonly name: string;
  readonly normalize: (line: string) => string;
}

/** Typographic characters models and word processors substitute for their ASCII forms. */
const PUNCTUATION: ReadonlyArray<readonly [RegExp, string]> = [
  [/[\u2018\u2019\u201A\u201B\u2032]/g, "'"],
  [/[\u201C\u201D\u201E\u201F\u2033]/g, '"'],
  [/[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g, '-'],
  [/\u2026/g, '...'],
  [/[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g, ' '],
];

function normalizePunctuation(line: string): string {
  let result = line.trim();
  // Most lines are printable ASCII, and skipping the replacements for them keeps big files fast.
  if (!/[^ -~\t]/.test(result)) return result;
  for (const [pattern, replacement] of PUNCTUATION) result = result.replace(pattern, replacement);
  return result;
}

/** The most tolerant comparison; it also scores near misses. */
const LOOSEST_PASS: MatchPass = { name: 'ignoring whitespace and typographic punctuation', normalize: normalizePunctuation };

export const EXACT_PASS: MatchPass = { name: 'exactly', normalize: (line) => line };

/** The passes after the exact one, for callers that did their own exact search. */
export const TOLERANT_PASSES: readonly MatchPass[] = [
  { name: 'ignoring trailing whitespace', normalize: (line) => line.trimEnd() },
  { name: 'ignoring leading and trailing whitespace', normalize: (line) => line.trim() },
  LOOSEST_PASS,
];

export const MATCH_PASSES: readonly MatchPass[] = [EXACT_PASS, ...TOLERANT_PASSES];

export interface Candidates {
  /** The pass that found them: the strictest one that found any. */
  readonly pass: MatchPass;
  /** 0-based start lines, ascending. */
  readonly starts: readonly number[];
}

export interface SearchOptions {
  /** The first line a match may start at. */
  readonly from: number;
  /** Only a match that ends at the last line of the file counts (`*** End of File`). */
  readonly atEnd?: boolean;
  /** The passes to try; all of them by default. */
  readonly passes?: readonly MatchPass[];
}

export interface ClosestRegion {
  /** 0-based start of the best-scoring window of the pattern's length. */
  readonly start: number;
  /** The first line in that window that differs from the pattern, if any does. */
  readonly difference?: { readonly line: number; readonly expected: string; readonly actual: string | undefined };
}

/** Above this many line comparisons, near misses are scored by equality only, to stay fast. */
const FUZZY_SCORING_BUDGET = 1_000_000;

/** A line's character pairs as sorted numbers, so two lines compare by one merge pass. */
function bigrams(text: string): Uint32Array {
  const pairs = new Uint32Array(Math.max(0, text.length - 1));
  for (let index = 0; index + 1 < text.length; index++) {
    pairs[index] = text.charCodeAt(index) * 65536 + text.charCodeAt(index + 1);
  }
  return pairs.sort();
}

/** Dice coefficient over character pairs: 1 for equal text, near 0 for unrelated text. */
function similarity(left: Uint32Array, right: Uint32Array): number {
  if (left.length === 0 || right.length === 0) return 0;
  let shared = 0;
  let leftIndex = 0;
  let rightIndex = 0;
  while (leftIndex < left.length && rightIndex < right.length) {
    const leftPair = left[leftIndex] ?? 0;
    const rightPair = right[rightIndex] ?? 0;
    if (leftPair === rightPair) {
      shared++;
      leftIndex++;
      rightIndex++;
    } else if (leftPair < rightPair) leftIndex++;
    else rightIndex++;
  }
  return (2 * shared) / (left.length + right.length);
}

/** A file's lines, with each pass's normalized form computed once and reused by every search. */
export class LineIndex {
  private readonly normalizedByPass = new Map<MatchPass, readonly string[]>();

  constructor(readonly lines: readonly string[]) {}

  private normalized(pass: MatchPass): readonly string[] {
    let normalized = this.normalizedByPass.get(pass);
    if (!normalized) {
      normalized = this.lines.map(pass.normalize);
      this.normalizedByPass.set(pass, normalized);
    }
    return normalized;
  }

  private matchesAt(lines: readonly string[], pattern: readonly string[], start: number): boolean {
    for (let offset = 0; offset < pattern.length; offset++) {
      if (lines[start + offset] !== pattern[offset]) return false;
    }
    return true;
  }

  /** Every start where the pattern matches, under the strictest pass that finds any. */
  find(pattern: readonly string[], options: SearchOptions): Candidates | undefined {
    const lastStart = this.lines.length - pattern.length;
    const firstStart = options.atEnd ? Math.max(lastStart, options.from) : options.from;
    if (lastStart < firstStart) return undefined;
    for (const pass of options.passes ?? MATCH_PASSES) {
      const lines = this.normalized(pass);
      const wanted = pattern.map(pass.normalize);
      const starts: number[] = [];
      for (let start = firstStart; start <= lastStart; start++) {
        if (this.matchesAt(lines, wanted, start)) starts.push(start);
      }
      if (starts.length > 0) return { pass, starts };
    }
    return undefined;
  }

  /**
   * The nearest line at or after `from` that an `@@` header names: equal under a pass, or, last,
   * containing the header (models often write `@@ def name` for `def name(args):`).
   */
  findHeader(header: string, from: number): number | undefined {
    for (const pass of MATCH_PASSES) {
      const lines = this.normalized(pass);
      const wanted = pass.normalize(header);
      for (let index = from; index < lines.length; index++) if (lines[index] === wanted) return index;
    }
    const wanted = normalizePunctuation(header);
    const lines = this.normalized(LOOSEST_PASS);
    for (let index = from; index < lines.length; index++) if (lines[index]?.includes(wanted)) return index;
    return undefined;
  }

  /**
   * The window of the pattern's length that resembles it most. Windows rank by how many lines
   * are equal first (after whitespace and punctuation), and only then by how similar the other
   * lines are: when one line changed since the model read the file, the window where every other
   * line is equal is the place it meant, even if another window has more look-alike lines
   * (issue 15). Windows from `from` on are preferred, as that is where the search looked; the
   * whole file counts when the rest is shorter than the pattern.
   */
  closest(pattern: readonly string[], from = 0): ClosestRegion {
    const lines = this.normalized(LOOSEST_PASS);
    const wanted = pattern.map(normalizePunctuation);
    const lastStart = Math.max(0, lines.length - wanted.length);
    const firstStart = from <= lastStart ? from : 0;
    const fuzzy = lines.length * wanted.length <= FUZZY_SCORING_BUDGET;
    const wantedPairs = wanted.map(bigrams);
    const linePairs = fuzzy ? lines.map(bigrams) : [];
    let bestStart = firstStart;
    let bestScore = -1;
    // Each similarity is below 1, so their sum is below the pattern's length: weighting an equal
    // line by length + 1 makes one more equal line outrank any amount of similarity.
    const equalWeight = wanted.length + 1;
    for (let start = firstStart; start <= lastStart; start++) {
      let score = 0;
      for (let offset = 0; offset < wanted.length && start + offset < lines.length; offset++) {
        const line = lines[start + offset] ?? '';
        const expected = wanted[offset] ?? '';
        if (line === expected) score += equalWeight;
        else if (fuzzy) score += similarity(wantedPairs[offset] ?? new Uint32Array(), linePairs[start + offset] ?? new Uint32Array());
      }
      if (score > bestScore) {
        bestScore = score;
        bestStart = start;
      }
    }
    for (let offset = 0; offset < wanted.length; offset++) {
      const line = bestStart + offset;
      if (lines[line] !== wanted[offset]) {
        return { start: bestStart, difference: { line, expected: pattern[offset] ?? '', actual: this.lines[line] } };
      }
    }
    return { start: bestStart };
  }

  /** Lines `start` to `end` (0-based, exclusive) as `  42 | text`, 1-based like an editor. */
  render(start: number, end: number): string {
    const first = Math.max(0, start);
    const last = Math.min(this.lines.length, end);
    const width = String(last).length;
    const rendered: string[] = [];
    for (let index = first; index < last; index++) {
      rendered.push(`${String(index + 1).padStart(width)} | ${this.lines[index] ?? ''}`);
    }
    return rendered.join('\n');
  }
}

/** Lines shown around a near miss, so a shifted or missing line is still visible. */
const REGION_MARGIN = 3;
/** The most lines a near-miss excerpt shows, so one long hunk cannot flood the model's context. */
const REGION_MAX_LINES = 60;

/** The closest region, rendered for an error message: where it is and how it differs. */
export function describeClosestRegion(index: LineIndex, pattern: readonly string[], from = 0): string {
  if (index.lines.length === 0) return 'The file is empty.';
  const region = index.closest(pattern, from);
  const start = Math.max(0, region.start - REGION_MARGIN);
  const end = Math.min(start + REGION_MAX_LINES, region.start + pattern.length + REGION_MARGIN);
  const last = Math.min(end, index.lines.length);
  const range = last === start + 1 ? `line ${last}` : `lines ${start + 1}-${last}`;
  const lines = [`The closest region of the file is ${range}:`, index.render(start, end)];
  if (region.difference) {
    const { line, expected, actual } = region.difference;
    lines.push(
      actual === undefined
        ? `The file ends at line ${index.lines.length}, but the expected text continues with ${quoteLine(expected)}.`
        : `First difference, at line ${line + 1}: expected ${quoteLine(expected)}, the file has ${quoteLine(actual)}.`,
    );
  }
  return lines.join('\n');
}

/** The candidates as 1-based line numbers, for an "ambiguous" error. */
export function describeCandidates(candidates: Candidates): string {
  const lines = candidates.starts.map((start) => start + 1);
  const shown = lines.length > 20 ? `${lines.slice(0, 20).join(', ')} and ${lines.length - 20} more` : lines.join(', ');
  return `${candidates.starts.length} places (lines ${shown})`;
}
