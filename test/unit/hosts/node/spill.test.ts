import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createSpill } from '../../../../src/hosts/node/spill';
import { makeTempDir, removeDir } from '../../../support/tool-context';

const stateDir = makeTempDir('zuno-spill-');
after(() => removeDir(stateDir));

test('O1 a spill file lives under <stateDir>/outputs and receives every chunk as it is written', async () => {
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

test('O1 a second spill of the same name does not overwrite the first, and names cannot leave outputs/', async () => {
  const first = await createSpill(stateDir, 'same');
  const second = await createSpill(stateDir, 'same');
  assert.notEqual(first.path, second.path);
  await first.close();
  await second.close();
  const sneaky = await createSpill(stateDir, '../../etc/passwd');
  assert.equal(dirname(sneaky.path), join(stateDir, 'outputs'));
  await sneaky.close();
});
