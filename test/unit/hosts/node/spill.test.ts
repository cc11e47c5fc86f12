import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createSpill } from '../../../../src/hosts/node/spill';
import { makeTempDir, removeDir } from '../../../support/tool-context';

const stateDir = makeTempDir('zuno-spill-');
after(() => removeDir(stateDir));

test('O1: a spill file lives under <stateDir>/outputs and receives every chunk as it is written', async () => {
  const spill = await createSpill(stateDir, 'call-1.txt');
  assert.equal(spill.path, join(stateDir, 'outputs', 'call-1.txt'));
  spill.write('hello ');
  // Written synchronously: the bytes are on disk before close.
  assert.equal(statSync(spill.path).size, 6);
  spill.write('wörld');
  await spill.close();
  await spill.close();
  spill.write('ignored after close');
  assert.equal(readFileSync(spill.path, 'utf8'), 'hello wörld');
});

test('O1: a second spill of the same name does not overwrite the first, and names cannot leave outputs/', async () => {
  const first = await createSpill(stateDir, 'same');
  const second = await createSpill(stateDir, 'same');
  assert.notEqual(first.path, second.path);
  await first.close();
  await second.close();
  const sneaky = await createSpill(stateDir, '../../etc/passwd');
  assert.equal(dirname(sneaky.path), join(stateDir, 'outputs'));
  await sneaky.close();
});

test('issue 12: a spill file stops growing at its cap, keeping the head and the tail with a marker between', async () => {
  const cap = 1024 * 1024;
  const spill = await createSpill(stateDir, 'capped.txt', cap);
  spill.write('HEAD-START\n');
  const line = `${'y'.repeat(1023)}\n`;
  // 8 MiB through a 1 MiB cap: the file must stay near 1 MiB while it is written.
  for (let index = 0; index < 8 * 1024; index++) spill.write(line);
  assert.ok(statSync(spill.path).size <= cap / 2, 'the head never passes half the cap');
  spill.write('TAIL-END\n');
  await spill.close();
  const text = readFileSync(spill.path, 'utf8');
  assert.ok(Buffer.byteLength(text) <= cap + 200, `${Buffer.byteLength(text)} bytes kept`);
  assert.ok(text.startsWith('HEAD-START\nyyy'));
  assert.ok(text.endsWith('yyy\nTAIL-END\n'));
  assert.match(
    text,
    /\n\[\.\.\. spill file cut at tool_output\.max_spill_bytes \(1\.0 MiB\): 7\.\d MiB of 8\.0 MiB omitted from the middle \.\.\.\]\n/,
  );
  assert.deepEqual(
    readdirSync(join(stateDir, 'outputs')).filter((name) => name.endsWith('.tail')),
    [],
    'the tail ring is removed',
  );
});

test('issue 12: a spill under its cap is written whole, without a marker, even past half the cap', async () => {
  const spill = await createSpill(stateDir, 'under-cap.txt', 1024 * 1024);
  const text = `${'é'.repeat(400 * 1024)}end\n`;
  spill.write(text);
  await spill.close();
  assert.equal(readFileSync(spill.path, 'utf8'), text, 'a character split across the head and the tail is rejoined');
});
