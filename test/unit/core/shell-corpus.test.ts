// Runs every command-line corpus in test/fixtures/shell-corpus/*.json through the real policy with
// the real bash grammar (issue 8 "Tests", E1 §9). Each file is
// {"source", "cases": [{line, rules, mode, expect, note?, source?}]}; `expect` is the action of
// evaluatePermission for the shell tool (SideEffecting, Never, Exclusive).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { permissionRuleSchema, type PermissionMode, type PermissionRule } from '../../../src/core/config';
import { evaluatePermission, type PermissionAction } from '../../../src/core/policy';
import type { ShellAnalyzer } from '../../../src/core/shell/analysis';
import { loadShellAnalyzer } from '../../../src/hosts/node/shell-parser';

interface CorpusCase {
  readonly line: string;
  readonly rules: readonly PermissionRule[];
  readonly mode: PermissionMode;
  readonly expect: PermissionAction;
  readonly note?: string;
  readonly source?: string;
}

const directory = join(__dirname, '..', '..', 'fixtures', 'shell-corpus');
const MODES: readonly PermissionMode[] = ['strict', 'auto-edit', 'auto'];
const ACTIONS: readonly PermissionAction[] = ['allow', 'ask', 'deny'];

/** Reads one corpus file, failing with the file and case index when the format is off. */
function readCorpus(file: string): { source: string; cases: CorpusCase[] } {
  const data = JSON.parse(readFileSync(join(directory, file), 'utf8')) as { source?: unknown; cases?: unknown };
  assert.equal(typeof data.source, 'string', `${file}: "source" must be a string`);
  assert.ok(Array.isArray(data.cases) && data.cases.length > 0, `${file}: "cases" must be a non-empty array`);
  const cases = (data.cases as Record<string, unknown>[]).map((entry, index): CorpusCase => {
    const where = `${file} case ${index}`;
    assert.equal(typeof entry.line, 'string', `${where}: "line" must be a string`);
    assert.ok(MODES.includes(entry.mode as PermissionMode), `${where}: "mode" must be one of ${MODES.join(', ')}`);
    assert.ok(ACTIONS.includes(entry.expect as PermissionAction), `${where}: "expect" must be one of ${ACTIONS.join(', ')}`);
    assert.ok(Array.isArray(entry.rules), `${where}: "rules" must be an array`);
    const rules = (entry.rules as unknown[]).map((rule) => permissionRuleSchema.parse(rule));
    return { ...(entry as unknown as CorpusCase), rules };
  });
  return { source: data.source as string, cases };
}

let shell: ShellAnalyzer;
before(async () => {
  shell = await loadShellAnalyzer();
});

const files = readdirSync(directory)
  .filter((name) => name.endsWith('.json'))
  .sort();

test('issue 8: the shell corpus directory holds the issue-8 corpus', () => {
  assert.ok(files.includes('issue-8.json'), `found: ${files.join(', ')}`);
});

for (const file of files) {
  test(`issue 8, E1 §9: every case of shell-corpus/${file} gets its expected decision`, () => {
    const corpus = readCorpus(file);
    const failures: string[] = [];
    for (const entry of corpus.cases) {
      const decision = evaluatePermission({
        tool: 'shell',
        declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
        subjects: [{ kind: 'command', value: entry.line }],
        permission: { mode: entry.mode, rules: entry.rules },
        workspaceRoot: '/work/project',
        shell,
      });
      if (decision.action !== entry.expect) {
        failures.push(
          `${JSON.stringify(entry.line)} [${entry.mode}, rules ${JSON.stringify(entry.rules.map((rule) => `${rule.action} ${rule.match ?? '*'}`))}]: ` +
            `expected ${entry.expect}, got ${decision.action} (${decision.reason})` +
            `${entry.note ? `; note: ${entry.note}` : ''}; source: ${entry.source ?? corpus.source}`,
        );
      }
    }
    assert.deepEqual(failures, [], `${failures.length} of ${corpus.cases.length} cases failed:\n${failures.join('\n')}`);
  });
}
