/**
 * The shell permission analysis (issue 8 items 1 and 7): how long one analysis blocks the host for
 * a 4 KiB line (the limit, MAX_LINE_LENGTH), 8 KiB and 64 KiB lines (refused by length, so they
 * cost a length check; measured as well without the limit, to show why it is where it is), the
 * issue's slow inputs, and one policy evaluation per shell call. The baseline from the same run
 * is the analysis of a trivial line (`git status`). Each figure is the median and the best of
 * ROUNDS runs: on a shared machine the best is closest to what an idle host sees.
 */
import type { PermissionRule } from '../src/core/config';
import { evaluatePermission } from '../src/core/policy';
import { createShellAnalyzer, MAX_LINE_LENGTH, type ShellAnalyzer } from '../src/core/shell/analysis';
import { loadBashParser, loadShellAnalyzer } from '../src/hosts/node/shell-parser';
import type { BenchResult } from './run';

const ROUNDS = 15;

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Median and best milliseconds of one call, after one warm-up call. */
function measure(run: () => unknown): { median: number; best: number } {
  run();
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint();
    run();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return { median: median(samples), best: Math.min(...samples) };
}
const time = (run: () => unknown): number => measure(run).median;

/** A realistic line of `length` characters: commands joined by &&, quoted arguments, a pipe. */
function realisticLine(length: number): string {
  const parts: string[] = [];
  let total = 0;
  for (let index = 0; total < length; index++) {
    const part =
      index % 3 === 0
        ? `git log --format="%H %s" -n ${index}`
        : index % 3 === 1
          ? `grep -e 'needle ${index}' src/file${index}.ts`
          : `npm run build:${index} 2>&1`;
    parts.push(part);
    total += part.length + 4;
  }
  return parts.join(' && ').slice(0, length);
}

export default async function bench(): Promise<BenchResult[]> {
  const loadStart = process.hrtime.bigint();
  const shell: ShellAnalyzer = await loadShellAnalyzer();
  const loadMs = Number(process.hrtime.bigint() - loadStart) / 1e6;

  const trivial = time(() => shell.analyze('git status'));
  const baseline = { name: 'analysis of "git status"', value: trivial };
  const results: BenchResult[] = [{ name: 'grammar load (once per process)', value: loadMs, unit: 'ms', baseline }];

  const unlimited = createShellAnalyzer(await loadBashParser(), { platform: 'posix', maxLineLength: Number.POSITIVE_INFINITY });
  const cases: [string, string][] = [
    [`4 KiB line (the limit, ${MAX_LINE_LENGTH} characters)`, realisticLine(MAX_LINE_LENGTH)],
    ['8 KiB line', realisticLine(8 * 1024)],
    ['64 KiB line', realisticLine(64 * 1024)],
    ['issue slow case: echo " + 1000 × "$(x "', `echo "${'$(x '.repeat(1000)}`],
    ['issue slow case: 3000 nested "$("', `echo ${'$('.repeat(3000)}rm x`],
    ['issue slow case: 100 KB line for a ** glob', `echo ${'a/'.repeat(50_000)}`],
    ['pathological 8 KiB: echo " + 2000 × "$(x "', `echo "${'$(x '.repeat(2000)}`],
  ];
  for (const [name, line] of cases) {
    const limited = measure(() => shell.analyze(line));
    const work = shell.analyze(line).work;
    results.push({
      name: `analysis, ${name}`,
      value: limited.median,
      unit: 'ms',
      baseline,
      detail: `${line.length} characters, ${work === 0 ? 'refused by length' : `work ${work} nodes`}, best ${limited.best.toFixed(3)} ms`,
    });
    if (line.length > MAX_LINE_LENGTH && line.length <= 16 * 1024) {
      const without = measure(() => unlimited.analyze(line));
      results.push({
        name: `analysis without the limit, ${name}`,
        value: without.median,
        unit: 'ms',
        baseline,
        detail: `best ${without.best.toFixed(3)} ms`,
      });
    }
  }

  const rules: PermissionRule[] = [
    { tool: 'shell', match: 'git *', action: 'allow' },
    { tool: 'shell', match: 'npm test', action: 'allow' },
    { tool: 'shell', match: 'rm *', action: 'deny' },
    { tool: 'shell', match: 'git push*', action: 'ask' },
  ];
  const evaluate = (line: string): unknown =>
    evaluatePermission({
      tool: 'shell',
      declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
      subjects: [{ kind: 'command', value: line }],
      permission: { mode: 'strict', rules },
      workspaceRoot: '/work/project',
      shell,
    });
  results.push({
    name: 'policy evaluation per shell call (typical line, 4 rules)',
    value: time(() => evaluate('git status && npm test 2>&1 | grep -v warn')),
    unit: 'ms',
    baseline,
  });
  results.push({
    name: `policy evaluation per shell call (line at the limit, 4 rules)`,
    value: time(() => evaluate(realisticLine(MAX_LINE_LENGTH))),
    unit: 'ms',
    baseline,
  });
  return results;
}
