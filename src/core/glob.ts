/**
 * The glob dialect of permission rules (SPEC §9). Small on purpose, so that what a rule means is
 * easy to state in the README:
 *
 * - `path` globs: `*` and `?` never cross `/`; `**` crosses it, and `**` followed by `/` may also
 *   stand for no folder at all, so `src/**` + `/*.ts` matches `src/a.ts` as well as `src/x/a.ts`.
 * - `text` globs (command lines, URLs, names): `*` matches anything, `/` included.
 * - Both: `[abc]`, `[a-z]`, `[!abc]` classes, `{a,b}` alternatives, and `\` escapes the next
 *   character. A glob must match the whole value.
 *
 * A malformed pattern (an unclosed `[` or `{`) is read literally rather than rejected: a rule
 * the user wrote should never crash the policy.
 */

export type GlobKind = 'path' | 'text';

const cache = new Map<string, RegExp>();

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Finds the `]` that closes a class opened at `start`, or -1. `]` right after `[` or `[!` is literal. */
function classEnd(pattern: string, start: number): number {
  let index = start + 1;
  if (pattern[index] === '!' || pattern[index] === '^') index++;
  if (pattern[index] === ']') index++;
  for (; index < pattern.length; index++) {
    if (pattern[index] === '\\') index++;
    else if (pattern[index] === ']') return index;
  }
  return -1;
}

/** Finds the `}` that closes an alternation opened at `start` (nesting allowed), or -1. */
function braceEnd(pattern: string, start: number): number {
  let depth = 0;
  for (let index = start; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === '\\') index++;
    else if (char === '[') {
      const end = classEnd(pattern, index);
      if (end !== -1) index = end;
    } else if (char === '{') depth++;
    else if (char === '}' && --depth === 0) return index;
  }
  return -1;
}

/** Splits the inside of `{...}` on its top-level commas. */
function splitAlternatives(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let index = 0; index < body.length; index++) {
    const char = body[index];
    if (char === '\\') index++;
    else if (char === '[') {
      const end = classEnd(body, index);
      if (end !== -1) index = end;
    } else if (char === '{') depth++;
    else if (char === '}') depth--;
    else if (char === ',' && depth === 0) {
      parts.push(body.slice(from, index));
      from = index + 1;
    }
  }
  parts.push(body.slice(from));
  return parts;
}

function translate(pattern: string, kind: GlobKind): string {
  const star = kind === 'path' ? '[^/]*' : '[\\s\\S]*';
  const single = kind === 'path' ? '[^/]' : '[\\s\\S]';
  let out = '';
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index] ?? '';
    if (char === '\\') {
      const next = pattern[index + 1];
      out += next === undefined ? '\\\\' : escapeRegExp(next);
      index++;
    } else if (char === '*') {
      if (pattern[index + 1] !== '*') {
        out += star;
        continue;
      }
      // `**`: any depth. Followed by `/`, it may also stand for no folder at all.
      index++;
      if (kind === 'path' && pattern[index + 1] === '/') {
        out += '(?:[\\s\\S]*/)?';
        index++;
      } else {
        out += '[\\s\\S]*';
      }
    } else if (char === '?') {
      out += single;
    } else if (char === '[') {
      const end = classEnd(pattern, index);
      if (end === -1) {
        out += '\\[';
        continue;
      }
      let body = pattern.slice(index + 1, end);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      const inside = body.replace(/\\(.)/g, '$1').replace(/[\\\]^]/g, '\\$&');
      // A negated class must not let `*`-free patterns cross a folder either.
      out += negated ? `[^${inside}${kind === 'path' ? '/' : ''}]` : `[${inside}]`;
      index = end;
    } else if (char === '{') {
      const end = braceEnd(pattern, index);
      if (end === -1) {
        out += '\\{';
        continue;
      }
      const alternatives = splitAlternatives(pattern.slice(index + 1, end)).map((part) => translate(part, kind));
      out += `(?:${alternatives.join('|')})`;
      index = end;
    } else {
      out += escapeRegExp(char);
    }
  }
  return out;
}

/** Compiles a glob to an anchored regular expression (cached: rules are matched on every call). */
export function globToRegExp(pattern: string, kind: GlobKind): RegExp {
  const key = `${kind}\u0000${pattern}`;
  let compiled = cache.get(key);
  if (!compiled) {
    compiled = new RegExp(`^${translate(pattern, kind)}$`);
    if (cache.size > 1000) cache.clear();
    cache.set(key, compiled);
  }
  return compiled;
}

/** True when `value` matches the whole glob. */
export function matchGlob(pattern: string, value: string, kind: GlobKind): boolean {
  return globToRegExp(pattern, kind).test(value);
}
