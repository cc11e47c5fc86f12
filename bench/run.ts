/**
 * One command for every benchmark: `npm run bench`. Each `bench/*.bench.ts` measures something
 * against a baseline taken in the same run (a direct call, raw `rg`), because these machines
 * are shared and noisy: ratios travel, absolute times do not.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export interface BenchResult {
  /** What was measured, e.g. "scheduler overhead per call". */
  readonly name: string;
  /** Measured value in `unit`. */
  readonly value: number;
  readonly unit: string;
  /** The same-run baseline, when there is one. */
  readonly baseline?: { readonly name: string; readonly value: number };
  /** Free-form detail, e.g. sizes or counts. */
  readonly detail?: string;
}

function format(result: BenchResult): string {
  const value = `${result.value.toFixed(result.value < 10 ? 3 : 1)} ${result.unit}`;
  const ratio = result.baseline
    ? `  ratio ${(result.value / result.baseline.value).toFixed(2)}x vs ${result.baseline.name} (${result.baseline.value.toFixed(3)} ${result.unit})`
    : '';
  const detail = result.detail ? `  [${result.detail}]` : '';
  return `${result.name}: ${value}${ratio}${detail}`;
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const files = readdirSync(__dirname)
    .filter((name) => name.endsWith('.bench.ts'))
    .filter((name) => only.length === 0 || only.some((word) => name.includes(word)))
    .sort();
  for (const file of files) {
    const module = (await import(join(__dirname, file))) as { default: () => Promise<BenchResult[]> };
    console.log(`# ${file}`);
    for (const result of await module.default()) console.log(format(result));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
