/**
 * SSE parsing cost on one huge line (issue 10 item 6: the hand-written parser rescanned the
 * unfinished line on every chunk, so a 4 MiB line took 13 s and a 50 MB one never finished).
 * A 50 MB line against a 5 MB one, both in 64 KiB chunks, in the same run: about 10x is
 * linear, about 100x would be quadratic.
 */
import { SseParser } from '../src/agent/sse';
import type { BenchResult } from './run';

const CHUNK = 65_536;

function parseMs(bytes: number): number {
  const stream = `data: ${'x'.repeat(bytes)}\n\n`;
  const start = performance.now();
  const parser = new SseParser();
  let events = 0;
  for (let offset = 0; offset < stream.length; offset += CHUNK) events += parser.push(stream.slice(offset, offset + CHUNK)).length;
  events += parser.end().length;
  const elapsed = performance.now() - start;
  if (events !== 1) throw new Error(`expected one event, got ${events}`);
  return elapsed;
}

function best(bytes: number, runs: number): number {
  return Math.min(...Array.from({ length: runs }, () => parseMs(bytes)));
}

export default async function sse(): Promise<BenchResult[]> {
  const small = best(5 * 1024 * 1024, 5);
  const large = best(50 * 1024 * 1024, 3);
  return [
    {
      name: 'SSE parse of a 50 MB single line',
      value: large,
      unit: 'ms',
      baseline: { name: 'the same over a 5 MB line', value: small },
      detail: `${CHUNK}-byte chunks; ~10x is linear, ~100x quadratic`,
    },
  ];
}
