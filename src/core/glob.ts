/**
 * The glob dialect of permission rules (SPEC §9), parsed by `picomatch` rather than by hand.
 * The README's permission section states it for users; in short:
 *
 * - `path` globs (picomatch, POSIX on every OS): `*` and `?` never cross `/`, `**` does, `**` +
 *   `/` may stand for no folder at all, and dotfiles match, so `secrets/**` also covers
 *   `secrets/.env` and the folder `secrets` itself. `[a-z]`, `[!a]`, `[[:alpha:]]` classes and
 *   `{a,b}` alternatives work; `\` escapes the next character.
 * - `text` globs (command lines, URLs, names): `*` matches any run of characters, `/` and newlines
 *   included, `?` any one character, `{a,b}` alternatives; `\` escapes. Every other character,
 *   `[` and `]` included, stands for itself: command lines are full of them (`[ -f x ]`).
 *
 * A glob must match the whole value. Whether a glob is valid (`globProblem`) is asked when the
 * config loads, so a bad rule is a config error instead of a failure of every call it meets.
 *
 * Cost: picomatch compiles to a backtracking RegExp, and several `*` can make one path take
 * seconds (`*a*a*a*b` against a 255-character name). A glob that may meet a path therefore holds
 * at most `MAX_GLOB_WILDCARDS` of them (`globCostProblem`). Text globs never reach a RegExp: their
 * matcher below is linear in the text for a given glob, because command lines can be 64 KiB
 * long and command rules such as `*curl*|*sh*` need their `*`s.
 */
import picomatch from 'picomatch/posix';

export type GlobKind = 'path' | 'text';

/** More `*`/`**` than this and a path glob's backtracking can block the host for seconds. */
export const MAX_GLOB_WILDCARDS = 3;

/** Text globs expand `{a,b}` into whole globs; this bounds the product of nested groups. */
const MAX_TEXT_ALTERNATIVES = 64;

const PATH_OPTIONS: picomatch.PicomatchOptions = {
  dot: true,
  // A leading `!` is literal: a rule never silently means "everything except".
  nonegate: true,
  // `+(a)`, `@(a)`, `!(a)` stay literal text; the dialect is small on purpose.
  noextglob: true,
  // `[!a]` negates and `[[:alpha:]]` works, as in sh.
  posix: true,
  // `**` compiles to `.`: let it cross a file name that holds a newline.
  flags: 's',
  // An unbalanced `[` or `]` is an error, not a literal that silently matches nothing.
  strictBrackets: true,
  // `[\d]` is a class only; by default picomatch also matches the literal text `[\d]`.
  literalBrackets: false,
  // An invalid pattern throws instead of compiling to a RegExp that matches nothing.
  debug: true,
};

const RANGE_PROBLEM = 'ranges like {1..9} are not supported; list the alternatives, e.g. {1,2,3}';

/** Thrown by `compileGlob` for a glob that `globProblem` rejects. */
export class GlobError extends Error {
  override readonly name = 'GlobError';
}

/** Marks a literal run in the glob handed to picomatch: U+E000, its index, U+E001 (which picomatch may escape). */
const LITERAL_OPEN = '\uE000';
const LITERAL_CLOSE = '\uE001';
const LITERAL_MARK = /\\?\uE000(\d+)\\?\uE001/g;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Index of the `]` closing the class opened at `start`, or -1: `]` first in a class is literal, `[:name:]` nests, `\` escapes. */
function classEnd(pattern: string, start: number): number {
  let index = start + 1;
  if (pattern[index] === '!' || pattern[index] === '^') index++;
  if (pattern[index] === ']') index++;
  for (; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === '\\') index++;
    else if (char === '[' && pattern[index + 1] === ':') {
      const close = pattern.indexOf(':]', index + 2);
      if (close !== -1) index = close + 1;
    } else if (char === ']') return index;
  }
  return -1;
}

/**
 * picomatch's own handling of plain characters is unreliable: it passes `(`, `|`, `+` through to
 * the RegExp (`x(a|b)` matched `xa`), reads `"…"` as quoting, escapes only the first of `$$`,
 * and drops a backslash escaped before punctuation (`\\\*` became a wildcard). So picomatch
 * only sees the glob's syntax (`*`, `?`, `/`, `{`, `,`, `}` and `[…]` classes); every run of
 * plain characters goes in as a marker that is replaced by the escaped text afterwards.
 */
function markLiterals(pattern: string): { glob: string; literals: string[] } {
  // picomatch drops a leading `./` from a glob; the markers would hide it, so drop it here.
  const body = pattern.startsWith('./') && pattern.length > 2 ? pattern.slice(2) : pattern;
  const literals: string[] = [];
  let glob = '';
  let run = '';
  const flush = (): void => {
    if (run === '') return;
    glob += `${LITERAL_OPEN}${literals.length}${LITERAL_CLOSE}`;
    literals.push(run);
    run = '';
  };
  for (let index = 0; index < body.length; index++) {
    const char = body[index] ?? '';
    const end = char === '[' ? classEnd(body, index) : -1;
    if (char === '\\' && index + 1 < body.length) {
      run += body[++index] ?? '';
    } else if (end !== -1) {
      flush();
      // Inside a class the markers' own characters are written as RegExp escapes, so they stay plain.
      glob += body.slice(index, end + 1).replace(/[\uE000\uE001]/g, (marker) => `\\u${marker.charCodeAt(0).toString(16)}`);
      index = end;
    } else if ('*?/{},[]'.includes(char)) {
      // An unclosed `[` or a stray `]` goes through too, so picomatch reports it.
      flush();
      glob += char;
    } else {
      run += char;
    }
  }
  flush();
  return { glob, literals };
}

function compilePathRegExp(pattern: string): RegExp {
  const { glob, literals } = markLiterals(pattern);
  const compiled = picomatch.makeRe(glob, PATH_OPTIONS);
  const source = compiled.source.replace(LITERAL_MARK, (_, index: string) => escapeRegExp(literals[Number(index)] ?? ''));
  return new RegExp(source, compiled.flags);
}

const OPENING: Readonly<Record<string, string>> = { ']': '[', '}': '{' };
const CLOSING: Readonly<Record<string, string>> = { '[': ']', '{': '}' };

/**
 * Why `pattern` cannot be a glob of this kind, or undefined when it can. A text glob reads `[`,
 * `]` and an unclosed `{` as plain characters, so `[[ -f * ]]` is a valid command rule; a glob
 * that may be matched as both kinds must pass as a path glob.
 */
export function globProblem(pattern: string, kind: GlobKind = 'path'): string | undefined {
  if (pattern.length === 0) return 'a glob cannot be empty';
  if ((/\\*$/.exec(pattern)?.[0].length ?? 0) % 2 === 1) return 'a trailing \\ escapes nothing; write \\\\ for a backslash';
  if (/\{[^{},]*\.\.[^{},]*\}/.test(pattern.replace(/\\./gs, '_'))) return RANGE_PROBLEM;
  if (textAlternatives(pattern) === undefined) return `its {…} groups expand to more than ${MAX_TEXT_ALTERNATIVES} alternatives`;
  if (kind === 'text') return undefined;
  try {
    compilePathRegExp(pattern);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const unclosed = /^Missing closing: "(.)"/.exec(message)?.[1];
    if (unclosed !== undefined) {
      const opening = OPENING[unclosed] ?? unclosed;
      return `a "${opening}" is never closed; write \\${opening} for a literal ${opening}`;
    }
    const unopened = /^Missing opening: "(.)"/.exec(message)?.[1];
    if (unopened !== undefined) {
      const closing = CLOSING[unopened] ?? unopened;
      return `a "${closing}" closes nothing; write \\${closing} for a literal ${closing}`;
    }
    // The compiled RegExp is an implementation detail; keep only what was wrong.
    const reason = message.replace(/^Invalid regular expression: \/.*\/\w*: /s, '');
    return /character class/i.test(reason) ? `${reason}; fix the [...] class, or write \\[ for a literal [` : reason;
  }
  return undefined;
}

/**
 * Why matching `pattern` (a valid glob) against paths could block the host, or undefined. Asked of every glob
 * that may meet a path and that the matcher has not seen vetted: rules that can apply to path
 * subjects (config.ts) and the model's own globs (glob and grep tools).
 */
export function globCostProblem(pattern: string): string | undefined {
  const { glob } = markLiterals(pattern);
  const wildcards = picomatch.parse(glob, PATH_OPTIONS).tokens.filter((token) => token.type === 'star' || token.type === 'globstar').length;
  if (wildcards <= MAX_GLOB_WILDCARDS) return undefined;
  return `it has ${wildcards} wildcards (* or **) and a path glob may have at most ${MAX_GLOB_WILDCARDS}, because each one more multiplies the time one path can take to match (seconds for *a*a*a*b against a long file name); split it into simpler globs`;
}

// ---- Text globs: linear-time matching ----

/** One character of a text glob after escapes are resolved: a literal, or `?` (any character). */
type TextChar = string | null;
/** The text between two `*`s; `literal` when it has no `?`, so a native search can find it. */
interface Piece {
  readonly chars: readonly TextChar[];
  readonly literal: string | undefined;
}
/** The pieces between `*`s; a text matches when they occur in order, the first at the start and the last at the end. */
type StarPattern = readonly Piece[];

/** Index of the `}` closing the `{` at `start`, or -1; also reports whether a top-level comma was seen. */
function closingBrace(pattern: string, start: number): { end: number; hasComma: boolean } {
  let depth = 0;
  let hasComma = false;
  for (let index = start; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === '\\') index++;
    else if (char === '{') depth++;
    else if (char === ',' && depth === 1) hasComma = true;
    else if (char === '}' && --depth === 0) return { end: index, hasComma };
  }
  return { end: -1, hasComma };
}

/** Splits the body of `{…}` on its top-level commas. */
function splitAlternatives(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let index = 0; index < body.length; index++) {
    const char = body[index];
    if (char === '\\') index++;
    else if (char === '{') depth++;
    else if (char === '}') depth--;
    else if (char === ',' && depth === 0) {
      parts.push(body.slice(from, index));
      from = index + 1;
    }
  }
  parts.push(body.slice(from));
  return parts;
}

/** `{a,b}` expanded into brace-free globs (escapes kept), or undefined past the cap. A `{x}` without a comma is literal, as in sh. */
function textAlternatives(pattern: string): string[] | undefined {
  for (let index = 0; index < pattern.length; index++) {
    if (pattern[index] === '\\') {
      index++;
      continue;
    }
    if (pattern[index] !== '{') continue;
    const { end, hasComma } = closingBrace(pattern, index);
    if (end === -1 || !hasComma) continue;
    const prefix = pattern.slice(0, index);
    const rests = textAlternatives(pattern.slice(end + 1));
    if (rests === undefined) return undefined;
    const expanded: string[] = [];
    for (const part of splitAlternatives(pattern.slice(index + 1, end))) {
      const inner = textAlternatives(part);
      if (inner === undefined) return undefined;
      for (const head of inner) for (const rest of rests) expanded.push(`${prefix}${head}${rest}`);
      if (expanded.length > MAX_TEXT_ALTERNATIVES) return undefined;
    }
    return expanded;
  }
  return [pattern];
}

function toStarPattern(glob: string): StarPattern {
  const pieces: TextChar[][] = [[]];
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index] ?? '';
    const piece = pieces[pieces.length - 1] ?? [];
    if (char === '\\' && index + 1 < glob.length) piece.push(glob[++index] ?? '');
    else if (char === '*') pieces.push([]);
    else if (char === '?') piece.push(null);
    else piece.push(char);
  }
  return pieces.map((chars) => ({ chars, literal: chars.includes(null) ? undefined : chars.join('') }));
}

/** Counts character comparisons, so tests can check the bound without a clock. */
export interface MatchWork {
  comparisons: number;
}

function pieceAt(piece: Piece, text: string, at: number, work: MatchWork): boolean {
  for (let offset = 0; offset < piece.chars.length; offset++) {
    work.comparisons++;
    const expected = piece.chars[offset];
    if (expected !== null && expected !== text[at + offset]) return false;
  }
  return true;
}

/** Where `piece` first occurs in `text` at or after `from`, or -1. */
function findPiece(piece: Piece, text: string, from: number, work: MatchWork): number {
  if (piece.literal !== undefined) {
    const found = text.indexOf(piece.literal, from);
    work.comparisons += (found === -1 ? text.length - from : found - from) + piece.literal.length;
    return found;
  }
  for (let at = from; at + piece.chars.length <= text.length; at++) if (pieceAt(piece, text, at, work)) return at;
  return -1;
}

/**
 * Matches `*`/`?` patterns greedily: each middle piece at its leftmost place. That is exact for
 * this dialect (pieces have fixed lengths, so an earlier place never blocks a later piece), and
 * costs at most (text length) × (glob length) comparisons, with no backtracking.
 */
function matchStarPattern(pattern: StarPattern, text: string, work: MatchWork): boolean {
  const first = pattern[0];
  const last = pattern[pattern.length - 1];
  if (first === undefined || last === undefined) return false;
  if (pattern.length === 1) return first.chars.length === text.length && pieceAt(first, text, 0, work);
  const end = text.length - last.chars.length;
  if (end < first.chars.length || !pieceAt(first, text, 0, work) || !pieceAt(last, text, end, work)) return false;
  let position = first.chars.length;
  for (const piece of pattern.slice(1, -1)) {
    const at = findPiece(piece, text, position, work);
    if (at === -1 || at + piece.chars.length > end) return false;
    position = at + piece.chars.length;
  }
  return true;
}

function compileText(pattern: string): (text: string, work: MatchWork) => boolean {
  const patterns = (textAlternatives(pattern) ?? []).map(toStarPattern);
  return (text, work) => patterns.some((starPattern) => matchStarPattern(starPattern, text, work));
}

// ---- Compiled matchers, cached: rules are matched on every call ----

const cache = new Map<string, (text: string, work: MatchWork) => boolean>();

function compiled(pattern: string, kind: GlobKind): (text: string, work: MatchWork) => boolean {
  const key = `${kind}\u0000${pattern}`;
  let matcher = cache.get(key);
  if (!matcher) {
    const problem = globProblem(pattern, kind);
    if (problem !== undefined) throw new GlobError(`${JSON.stringify(pattern)} is not a valid glob: ${problem}`);
    if (kind === 'text') {
      matcher = compileText(pattern);
    } else {
      const regExp = compilePathRegExp(pattern);
      matcher = (text) => regExp.test(text);
    }
    if (cache.size >= 1000) cache.clear();
    cache.set(key, matcher);
  }
  return matcher;
}

/** A matcher for `pattern`; throws a GlobError naming the problem when the glob is invalid. */
export function compileGlob(pattern: string, kind: GlobKind): (text: string) => boolean {
  const matcher = compiled(pattern, kind);
  return (text) => matcher(text, { comparisons: 0 });
}

/** True when `text` matches the whole glob. Throws a GlobError for an invalid glob (config rejects those on load). */
export function matchGlob(pattern: string, text: string, kind: GlobKind, work: MatchWork = { comparisons: 0 }): boolean {
  return compiled(pattern, kind)(text, work);
}
