import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { SpillFile } from '../../../src/core/host';
import { capOutput, OutputCapture, type OutputLimits } from '../../../src/core/output';
import { testEnvironment } from './fixtures';

const limits: OutputLimits = { maxBytes: 51_200, maxLines: 2000 };
const numbered = (count: number): string => Array.from({ length: count }, (_, index) => `line ${index}\n`).join('');
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Counts what reaches the spill without keeping it, so a 200 MB test does not fill the disk. */
class CountingSpill implements SpillFile {
  readonly path = '/spill/counted.txt';
  bytes = 0;
  closed = false;
  write(chunk: string): void {
    this.bytes += Buffer.byteLength(chunk);
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

test('O1: output within the caps is returned whole, and no spill file is opened', async () => {
  let opened = 0;
  const text = numbered(2000);
  const capped = await capOutput(text, limits, async () => {
    opened++;
    return new CountingSpill();
  });
  assert.deepEqual([capped.text === text, capped.truncated, capped.totalLines, opened], [true, false, 2000, 0]);
});

test('O1: over the line cap, the head and the tail are kept and the marker says how much was cut', async () => {
  const { host } = testEnvironment();
  const text = numbered(10_000);
  const capped = await capOutput(text, { maxBytes: 1024 * 1024, maxLines: 100 }, () => host.createSpill('call-1.txt'));
  assert.equal(capped.truncated, true);
  const lines = capped.text.split('\n');
  assert.deepEqual(lines.slice(0, 2), ['line 0', 'line 1']);
  assert.equal(lines.at(-2), 'line 9999', 'the end of a failed build is kept');
  assert.ok(lines.includes('line 49') && lines.includes('line 9950'));
  assert.ok(!lines.includes('line 50') && !lines.includes('line 9949'));
  assert.match(capped.text, /\[\.\.\. output truncated: 9900 of 10000 lines \(.* of .*\) omitted from the middle\./);
});

test('O1: the marker names the spill file, which holds the full output', async () => {
  const { host } = testEnvironment();
  const text = numbered(20_000);
  const capped = await capOutput(text, limits, () => host.createSpill('call-2.txt'));
  assert.ok(capped.spillPath);
  assert.ok(capped.text.includes(`The full output is saved at ${capped.spillPath}; read it with an offset`));
  assert.equal(readFileSync(capped.spillPath, 'utf8'), text);
  assert.ok(Buffer.byteLength(capped.text) < limits.maxBytes + 400, 'the kept text stays near the byte cap');
});

test('O1: streamed output matches a one-step cap, and the spill receives every chunk in order', async () => {
  const { host } = testEnvironment();
  const text = numbered(30_000);
  const capture = new OutputCapture(limits, () => host.createSpill('call-3.txt'));
  for (let offset = 0; offset < text.length; offset += 777) {
    capture.append(text.slice(offset, offset + 777));
    if (offset % (777 * 50) === 0) await tick();
  }
  const streamed = await capture.finish();
  assert.ok(streamed.spillPath);
  assert.equal(readFileSync(streamed.spillPath, 'utf8'), text);
  assert.match(streamed.text, /^line 0\n/);
  assert.match(streamed.text, /line 29999\n$/);
});

test('O1: memory stays bounded while 200 MB stream through a capture', async () => {
  const spill = new CountingSpill();
  const capture = new OutputCapture(limits, async () => spill);
  const chunk = `${'x'.repeat(99)}\n`.repeat(655); // 65,500 bytes, ends with a newline
  const chunks = Math.ceil((200 * 1024 * 1024) / chunk.length);
  let largest = 0;
  for (let index = 0; index < chunks; index++) {
    capture.append(chunk);
    largest = Math.max(largest, capture.bufferedCharacters);
    // A stream delivers its data between event-loop turns.
    if (index % 8 === 0) await tick();
  }
  const capped = await capture.finish();
  assert.ok(largest < 2 * limits.maxBytes + 2 * chunk.length, `at most ${largest} characters were held`);
  assert.equal(spill.bytes, chunks * chunk.length, 'all of it reached the spill');
  assert.equal(spill.closed, true);
  assert.equal(capped.totalBytes, chunks * chunk.length);
  assert.ok(Buffer.byteLength(capped.text) < limits.maxBytes + 400);
});

test('O1: a producer that never yields is still bounded, and the marker says what the spill lacks', async () => {
  const spill = new CountingSpill();
  const capture = new OutputCapture(limits, async () => spill);
  const chunk = 'y'.repeat(64 * 1024);
  let largest = 0;
  for (let index = 0; index < 320; index++) {
    capture.append(chunk);
    largest = Math.max(largest, capture.bufferedCharacters);
  }
  const capped = await capture.finish();
  assert.ok(largest < 5 * 1024 * 1024, `at most ${largest} characters were held`);
  assert.ok(spill.bytes < 320 * chunk.length);
  assert.match(capped.text, /saved at \/spill\/counted\.txt, except .* that arrived before that file was open/);
});

test('O1: one huge line is cut inside the line rather than dropped', async () => {
  const text = `${'a'.repeat(100_000)}${'z'.repeat(100_000)}`;
  const capped = await capOutput(text, limits, async () => new CountingSpill());
  const parts = capped.text.split('\n');
  assert.ok(parts[0] === 'a'.repeat(25_600), 'the head is the start of the line');
  assert.ok(parts.at(-1) === 'z'.repeat(25_600), 'the tail is the end of the line');
  assert.match(capped.text, /output truncated: 145\.3 KiB of 195\.3 KiB omitted from the middle/);
});

test('O1: cutting never splits a multi-byte character', async () => {
  const text = '😀é'.repeat(40_000);
  const capped = await capOutput(text, limits, async () => new CountingSpill());
  assert.equal(capped.truncated, true);
  assert.ok(!capped.text.includes('\ufffd'));
  assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(capped.text), 'no lone surrogate');
  assert.ok(Buffer.byteLength(capped.text) < limits.maxBytes + 400);
});

test('O1: a spill file that cannot be opened still yields capped text that says so', async () => {
  const capped = await capOutput(numbered(5000), limits, async () => {
    throw new Error('state dir is read-only');
  });
  assert.equal(capped.truncated, true);
  assert.equal(capped.spillPath, undefined);
  assert.match(capped.text, /The full output could not be saved \(state dir is read-only\)/);
});

test('O1: a byte cap alone also truncates (few lines, many bytes)', async () => {
  const text = `${'b'.repeat(40_000)}\n${'c'.repeat(40_000)}\n`;
  const capped = await capOutput(text, limits, async () => new CountingSpill());
  assert.equal(capped.truncated, true);
  assert.equal(capped.totalLines, 2);
  assert.ok(Buffer.byteLength(capped.text) < limits.maxBytes + 400);
});
