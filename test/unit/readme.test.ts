// The README's tool table is documentation people rely on; this keeps it honest against the
// registry (issue 3: "a table in the README lists each tool with its declarations").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinToolRegistrations } from '../../src/tools/index';

const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
const table = readme.slice(readme.indexOf('## The tools'));
const rows = table
  .split('\n')
  .filter((line) => line.startsWith('| ') && !line.startsWith('| tool') && !line.startsWith('|---'))
  .map((line) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim()),
  );

/** Arguments that pick each tool's primary classification (T3: some classify per call). */
const primaryArguments: Record<string, unknown> = {
  bg: { action: 'list' },
  execute: { action: 'list' },
};

test('T1/S1-S3: every registered tool has a README row whose declarations match the registry', () => {
  for (const { tool, defaultSurface } of builtinToolRegistrations()) {
    const row = rows.find((cells) => (cells[0] ?? '').split(' / ').includes(tool.name));
    assert.ok(row, `README lists ${tool.name}`);
    const [, effect = '', replay = '', concurrency = '', surface = ''] = row;
    const declared = tool.declarationsFor(primaryArguments[tool.name] ?? {});
    assert.ok(effect.startsWith(declared.effect), `${tool.name} effect: README "${effect}", registry ${declared.effect}`);
    assert.ok(replay.startsWith(declared.replay), `${tool.name} replay: README "${replay}", registry ${declared.replay}`);
    assert.ok(
      concurrency.startsWith(declared.concurrency),
      `${tool.name} concurrency: README "${concurrency}", registry ${declared.concurrency}`,
    );
    assert.equal(surface.startsWith('slot'), !defaultSurface, `${tool.name} surface: README "${surface}"`);
  }
});

test('issue 5: the README keeps the two fresh-machine commands', () => {
  assert.match(readme, /npm install && npm start/);
  assert.match(readme, /npm test\b/);
});
