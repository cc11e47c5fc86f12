/**
 * grep against raw rg (issue 2 §12) on a generated tree of 20,000 files (~200 MB): the grep tool
 * run directly (no scheduler), against the same rg binary with the same flags run as `rg --json`
 * (what the tool parses) and as plain `rg` (what a person would type). The tree lives under the OS
 * temp dir and is removed at the end; set ZUNO_BENCH_KEEP_TREE=1 to keep it for the next run.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../src/core/config';
import { OutputCapture } from '../src/core/output';
import { pathVisibility } from '../src/core/policy';
import { checkedPathsOf, type ToolContext } from '../src/core/tool';
import { createNodeHost } from '../src/hosts/node/host';
import { grepTool } from '../src/tools/grep';
import { pathSubject } from '../src/tools/paths';
import { COMMON_RIPGREP_FLAGS, EXCLUDE_GIT_DIRECTORY } from '../src/tools/ripgrep-run';
import type { BenchResult } from './run';

const FILES = 20_000;
const FOLDERS = 200;
const LINES_PER_FILE = 160;
const RUNS = 5;
const TREE = join(tmpdir(), `zuno-bench-grep-tree-${FILES}x${LINES_PER_FILE}`);
const COMPLETE_MARKER = join(TREE, '.complete');

const WORDS = [
  'alpha',
  'bravo',
  'charlie',
  'delta',
  'echo',
  'foxtrot',
  'golf',
  'hotel',
  'india',
  'juliet',
  'kilo',
  'lima',
  'mike',
  'november',
];

/** Deterministic content: the same tree on every machine. */
function generateTree(): void {
  rmSync(TREE, { recursive: true, force: true });
  let seed = 42;
  const next = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
  for (let folder = 0; folder < FOLDERS; folder++) mkdirSync(join(TREE, `pkg-${folder}`, 'src'), { recursive: true });
  for (let file = 0; file < FILES; file++) {
    const lines: string[] = [];
    for (let line = 0; line < LINES_PER_FILE; line++) {
      const words = Array.from({ length: 10 }, () => WORDS[next() % WORDS.length]);
      // About one line in 150 mentions the common needle; one file in 1000 the rare one.
      if (next() % 150 === 0) words.push('commonNeedle');
      if (line === 0 && file % 1000 === 0) words.push('rareNeedle');
      lines.push(`  const v${line} = "${words.join(' ')}"; // ${next().toString(36)}`);
    }
    writeFileSync(join(TREE, `pkg-${file % FOLDERS}`, 'src', `module-${file}.ts`), `${lines.join('\n')}\n`);
  }
  writeFileSync(COMPLETE_MARKER, '');
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * Runs the contenders in turns (after one warm-up round) and takes each one's median: on a shared,
 * noisy machine, interleaving keeps a slow spell from landing on one contender only.
 */
async function timeInTurns(contenders: readonly (() => Promise<unknown>)[]): Promise<number[]> {
  for (const run of contenders) await run();
  const samples = contenders.map((): number[] => []);
  for (let round = 0; round < RUNS; round++) {
    for (const [index, run] of contenders.entries()) {
      const started = performance.now();
      await run();
      samples[index]?.push(performance.now() - started);
    }
  }
  return samples.map(median);
}

/** rg as a person would run it, its output read and dropped. */
function rawRipgrep(binary: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { cwd: TREE, stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.on('data', () => undefined);
    child.on('error', reject);
    child.on('close', (code) => (code === 0 || code === 1 ? resolve() : reject(new Error(`rg exited ${code}`))));
  });
}

export default async function grepBench(): Promise<BenchResult[]> {
  const generationStarted = performance.now();
  const reused = existsSync(COMPLETE_MARKER);
  if (!reused) generateTree();
  const generationMs = performance.now() - generationStarted;

  const stateDir = join(tmpdir(), `zuno-bench-grep-state-${process.pid}`);
  const config = parseConfig({});
  const host = createNodeHost({
    stateDir,
    approvals: {
      request: async () => {
        throw new Error('grep asks for no approval');
      },
    },
  });
  const context: ToolContext = {
    host,
    config,
    workspaceRoot: TREE,
    callId: 'bench',
    authorize: () => Promise.reject(new Error('nothing in this bench discovers subjects while running')),
    sessionId: 'bench',
    attempt: 1,
    signal: new AbortController().signal,
    progress: () => undefined,
    captureOutput: () =>
      new OutputCapture({ maxBytes: config.tool_output.max_bytes, maxLines: config.tool_output.max_lines }, () =>
        host.createSpill('bench.txt'),
      ),
    visibility: pathVisibility({ tool: 'grep', rules: config.permission.rules, workspaceRoot: TREE }),
    // grep searches the root: the path the scheduler would have checked.
    paths: checkedPathsOf([await pathSubject({ host, config, workspaceRoot: TREE }, '.')]),
  };
  const { path: rg } = await host.ripgrep();
  const results: BenchResult[] = [];
  try {
    for (const [label, pattern] of [
      ['rare pattern, 20 matches', 'rareNeedle'],
      ['common pattern, ~21k matches', 'commonNeedle'],
    ] as const) {
      const sameFlags = [...COMMON_RIPGREP_FLAGS, '--case-sensitive', EXCLUDE_GIT_DIRECTORY, `--regexp=${pattern}`];
      const [tool = 0, json = 0, plain = 0] = await timeInTurns([
        async () => {
          const result = await grepTool.run({ pattern }, context);
          if (!result.output.includes(pattern)) throw new Error(`grep found nothing for ${pattern}`);
        },
        () => rawRipgrep(rg, ['--json', ...sameFlags]),
        () => rawRipgrep(rg, sameFlags),
      ]);
      const detail = `${FILES} files, ${reused ? 'tree reused' : `tree generated in ${(generationMs / 1000).toFixed(1)} s`}, median of ${RUNS} interleaved runs`;
      results.push({ name: `grep tool (${label})`, value: tool, unit: 'ms', baseline: { name: 'raw rg --json', value: json }, detail });
      results.push({ name: `grep tool (${label})`, value: tool, unit: 'ms', baseline: { name: 'raw rg', value: plain } });
      results.push({ name: `raw rg --json (${label})`, value: json, unit: 'ms', baseline: { name: 'raw rg', value: plain } });
    }
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
    if (process.env.ZUNO_BENCH_KEEP_TREE !== '1') rmSync(TREE, { recursive: true, force: true });
  }
  return results;
}
