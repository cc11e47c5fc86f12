// Runs the test suites with node's own test runner. Node 20 has no glob support in `--test`,
// so the files are listed here. Usage: node scripts/run-tests.mjs [unit] [integration] [e2e]
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const suites = process.argv.slice(2);
const chosen = suites.length > 0 ? suites : ['unit', 'integration', 'e2e'];

function testFiles(dir) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = chosen.flatMap((suite) => testFiles(join('test', suite))).sort();
if (files.length === 0) {
  console.error(`no test files found in: ${chosen.join(', ')}`);
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
