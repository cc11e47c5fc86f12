/**
 * Glob matching cost (issue 8: "a double-star glob over a 100 KB line takes 3.5 s"), each case
 * against `String.prototype.includes` over the same text in the same run:
 * - text globs (commands, URLs) over a 100 KB line, with `**` and with several `*` that would
 *   backtrack in a RegExp: the linear matcher should stay within a small multiple of the scan;
 * - path globs (picomatch): a realistic path, and the worst case the wildcard limit allows
 *   (`*a*a*b`, three wildcards, against a 255-character file name of `a`s).
 */
import { matchGlob, type GlobKind } from '../src/core/glob';
import type { BenchResult } from './run';

/** Median milliseconds per run of `work`, over enough runs to take about `budgetMs`. */
function median(work: () => void, budgetMs = 200): number {
  work();
  const times: number[] = [];
  const started = performance.now();
  while (times.length < 5 || (performance.now() - started < budgetMs && times.length < 1000)) {
    const start = performance.now();
    work();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

function globCase(name: string, glob: string, text: string, kind: GlobKind, needle: string): BenchResult {
  const value = median(() => matchGlob(glob, text, kind));
  const baseline = median(() => text.includes(needle));
  return {
    name,
    value,
    unit: 'ms',
    baseline: { name: `includes(${JSON.stringify(needle)}) over the same text`, value: baseline },
    detail: `${kind} glob ${JSON.stringify(glob)}, ${text.length} characters, matches: ${matchGlob(glob, text, kind)}`,
  };
}

/** Time on a text against the same glob on a tenth of it: about 10× means linear. */
function scalingCase(name: string, glob: string, text: (length: number) => string): BenchResult {
  const value = median(() => matchGlob(glob, text(100_000), 'text'));
  const baseline = median(() => matchGlob(glob, text(10_000), 'text'));
  return {
    name,
    value,
    unit: 'ms',
    baseline: { name: 'the same glob over 10 KB', value: baseline },
    detail: `text glob ${JSON.stringify(glob)}; ~10x is linear`,
  };
}

export default async function glob(): Promise<BenchResult[]> {
  const line = `git log ${'x/'.repeat(50_000)}`;
  const letters = 'a'.repeat(100_000);
  const name = 'a'.repeat(255);
  return [
    globCase('text git ** --force ** over a 100 KB command line', 'git ** --force **', line, 'text', '--force'),
    globCase('text *a*a*b* over 100 KB of a (no match)', '*a*a*b*', letters, 'text', 'b'),
    globCase('text {rm,shred} * over a 100 KB command line', '{rm,shred} *', line, 'text', 'rm'),
    scalingCase('text *a*a*a*b* scaling, 100 KB', '*a*a*a*b*', (length) => 'a'.repeat(length)),
    scalingCase('text *a?b* scaling (a ? piece is searched char by char), 100 KB', '*a?b*', (length) => 'a'.repeat(length)),
    globCase('path src/**/*.test.ts on a realistic path', 'src/**/*.test.ts', 'src/core/deep/er/glob.test.ts', 'path', '.test.ts'),
    globCase('path **/x over a 100 KB path', '**/x', `${'a/'.repeat(50_000)}y`, 'path', '/x'),
    globCase('path *a*a*b on a 255-character name (worst case within the 3-wildcard limit)', '*a*a*b', name, 'path', 'b'),
  ];
}
