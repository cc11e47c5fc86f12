// The shell analysis on tree-sitter's bash grammar (issue 8 items 1 and 7, E1 §9): the issue's
// bypass lines, its slow inputs, and property tests over lines built from a small bash grammar.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { PermissionMode, PermissionRule } from '../../../src/core/config';
import { evaluatePermission, type PermissionDecision } from '../../../src/core/policy';
import { createShellAnalyzer, MAX_LINE_LENGTH, MAX_TREE_DEPTH, type ShellAnalyzer } from '../../../src/core/shell/analysis';
import { loadBashParser, loadShellAnalyzer } from '../../../src/hosts/node/shell-parser';

let shell: ShellAnalyzer;
before(async () => {
  shell = await loadShellAnalyzer();
});

function decide(line: string, rules: readonly PermissionRule[], mode: PermissionMode = 'strict'): PermissionDecision {
  return evaluatePermission({
    tool: 'shell',
    declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
    subjects: [{ kind: 'command', value: line }],
    permission: { mode, rules },
    workspaceRoot: '/work/project',
    shell,
  });
}

const allowGit: PermissionRule[] = [{ tool: 'shell', match: 'git *', action: 'allow' }];
const denyRm: PermissionRule[] = [{ tool: 'shell', match: 'rm *', action: 'deny' }];

/** Work allowed per character of input, nested `sh -c` parses included (each re-reads a part of the line). */
const WORK_PER_CHARACTER = 8;

test('issue 8 item 1: the allow bypasses of the issue ask under {shell, "git *", allow} in strict mode, each with a reason', () => {
  const lines = ['git status \\ #; touch X', 'git status\r#; touch X', "git log $'\\''; touch X #'", 'git log &>/dev/null touch X'];
  for (const line of lines) {
    const decision = decide(line, allowGit);
    assert.equal(decision.action, 'ask', JSON.stringify(line));
    assert.match(
      decision.reason,
      /no allow rule (can approve this command line by pattern, because .+|covers the command "touch X")/,
      JSON.stringify(line),
    );
  }
  const prompt = decide('echo ${var@P}', [{ tool: 'shell', match: 'echo *', action: 'allow' }]);
  assert.equal(prompt.action, 'ask');
  assert.match(prompt.reason, /"\$\{var@P\}" is not literal \(it is a parameter expansion\)/);
  // The same rule still allows the plain line, so the cases above can fail.
  assert.equal(decide('git status', allowGit).action, 'allow');
});

test('issue 8 item 1: the deny misses of the issue are refused under {shell, "rm *", deny} in auto mode', () => {
  const lines = [
    'if true; then rm -rf x; fi',
    '{ rm -rf x; }',
    '! rm x',
    'while true; do rm x; done',
    'f() { rm x; }; f',
    'echo hi > "$(rm x)"',
    'cat <<< "$(rm x)"',
    'echo "$(echo ")"; rm x)"',
    "cat <<EOF\nit's\nEOF\nrm x",
    '/bin/rm x',
    '\\rm x',
    "'rm' x",
    'r""m x',
    'X=1 rm x',
    'env rm x',
    'command rm x',
    'exec rm x',
    'nice rm x',
    'timeout 5 rm x',
    'ls | xargs rm',
    "sh -c 'rm x'",
  ];
  for (const line of lines) {
    const decision = decide(line, denyRm, 'auto');
    assert.equal(decision.action, 'deny', JSON.stringify(line));
    assert.match(decision.reason, /refused by the permission rule \{tool: "shell", match: "rm \*", action: "deny"\}/, JSON.stringify(line));
  }
  assert.equal(decide('echo "rm x"', denyRm, 'auto').action, 'allow', 'an argument that says rm is no rm');
});

test('issue 8 item 1: screening sees commands under wrappers, in -c strings and eval, in find -exec, recursively', () => {
  const { screened } = shell.analyze(
    `sudo -u root env -i A=1 nice -n 5 timeout -s KILL 5 bash -c "eval 'find . -exec /usr/bin/r\\"\\"m {} +'"`,
  );
  assert.ok(screened.includes('rm {}'), screened.join(' | '));
  assert.ok(screened.includes('rm '), 'the bare name with a trailing space, so that `rm *` hits it');
  assert.ok(shell.analyze('ls | xargs -0 -n 1 rm').screened.includes('rm '));
});

test('issue 8 item 1: allow rules read the literal text as written, with quotes resolved and harmless redirections dropped', () => {
  assert.deepEqual(shell.analyze(`X=1 git commit -m "a  b" 'c' 2>&1 >/dev/null | grep x && npm test`).plain, [
    'X=1 git commit -m a  b c',
    'grep x',
    'npm test',
  ]);
  for (const line of ['git status &>/dev/null', 'git log *', 'git log {a,b}', 'git status # note', 'git log "$HOME"', "git log $'x'"]) {
    const analysis = shell.analyze(line);
    assert.equal(analysis.plain, undefined, line);
    assert.ok((analysis.notPlain ?? '').length > 0, line);
  }
});

test('issue 8 item 7: a line longer than the limit is uncertain without being parsed, and is asked or refused, never allowed by a pattern', () => {
  const line = `git log ${'a'.repeat(MAX_LINE_LENGTH)}`;
  const analysis = shell.analyze(line);
  assert.equal(analysis.work, 0, 'not parsed at all');
  assert.match(analysis.uncertain ?? '', new RegExp(`above the ${MAX_LINE_LENGTH} analysed`));
  assert.equal(decide(line, allowGit).action, 'ask');
  assert.equal(decide(line, denyRm, 'auto').action, 'deny');
  assert.equal(decide(line, [], 'auto').action, 'allow', 'auto without deny rules runs it, as it runs everything');
  // Just below the limit the same line is analysed and allowed.
  assert.equal(decide(`git log ${'a'.repeat(MAX_LINE_LENGTH - 8)}`, allowGit).action, 'allow');
});

test('issue 8 item 7: the slow inputs of the issue finish with bounded work and a clear outcome', () => {
  const cubic = `echo "${'$(x '.repeat(1000)}`;
  const analysis = shell.analyze(cubic);
  assert.ok(analysis.work <= WORK_PER_CHARACTER * cubic.length, `work ${analysis.work} for ${cubic.length} characters`);
  assert.equal(decide(cubic, [{ tool: 'shell', match: 'echo *', action: 'allow' }]).action, 'ask');
  assert.equal(decide(cubic, denyRm, 'auto').action, 'deny', 'unparseable under a deny rule');

  // 3,000 nested `$(` (unclosed, as in the issue: above the length limit) and 1,300 closed ones (below it, deeper than the walk goes).
  const closed = `echo ${'$('.repeat(1300)}rm x${')'.repeat(1300)}`;
  assert.ok(closed.length <= MAX_LINE_LENGTH);
  for (const nested of [`echo ${'$('.repeat(3000)}rm x`, closed]) {
    const deep = shell.analyze(nested);
    assert.ok(deep.uncertain !== undefined, 'uncertain');
    assert.ok(deep.work <= WORK_PER_CHARACTER * nested.length, `work ${deep.work}`);
    assert.equal(decide(nested, denyRm, 'auto').action, 'deny');
    assert.equal(decide(nested, allowGit).action, 'ask');
  }
  assert.match(shell.analyze(closed).uncertain ?? '', new RegExp(`deeper than ${MAX_TREE_DEPTH} syntax levels`));

  // Words the grammar misreads (a newline kept inside) make the rest be parsed again, once, not once per word.
  const misread = `git${'\n\\rm x'.repeat(500)}`;
  const many = shell.analyze(misread);
  assert.ok(many.work <= WORK_PER_CHARACTER * misread.length, `work ${many.work} for ${misread.length} characters`);
  assert.equal(decide(misread, denyRm, 'auto').action, 'deny');

  // A double-star glob over a 100 KB line: the line is above the limit, so no glob runs over it.
  const wide = `echo ${'a/'.repeat(50_000)}`;
  const decision = decide(wide, [{ tool: 'shell', match: '**/**/**/**/**/x', action: 'deny' }], 'auto');
  assert.equal(decision.action, 'deny');
  assert.match(decision.reason, /cannot be fully analysed/);
});

test('issue 8 item 7: \\r, NUL and lone surrogates make a line uncertain', () => {
  for (const line of ['git status\r', 'git status\0', 'git status \ud800']) {
    assert.ok(shell.analyze(line).uncertain !== undefined, JSON.stringify(line));
    assert.equal(decide(line, allowGit).action, 'ask', JSON.stringify(line));
  }
});

test('issue 8 item 1: on Windows (cmd.exe) a line with a cmd metacharacter is never allowed by a pattern', async () => {
  const windows = createShellAnalyzer(await loadBashParser(), { platform: 'win32' });
  const rules: PermissionRule[] = [{ tool: 'shell', match: 'git *', action: 'allow' }];
  const decideOn = (line: string): PermissionDecision =>
    evaluatePermission({
      tool: 'shell',
      declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
      subjects: [{ kind: 'command', value: line }],
      permission: { mode: 'strict', rules },
      workspaceRoot: 'C:/work/project',
      shell: windows,
    });
  for (const line of [
    'git status & calc',
    'git log ^& calc',
    'git log %PATH%',
    'git log !x!',
    'git log "a"',
    'git status | more',
    'git log > x',
    'git (x)',
    'git status\ngit log',
  ]) {
    const decision = decideOn(line);
    assert.equal(decision.action, 'ask', line);
    assert.match(decision.reason, /cmd metacharacters/, line);
  }
  assert.equal(decideOn('git status --short').action, 'allow');
  assert.equal(decide('git log "a"', allowGit).action, 'allow', 'the same line is plain for sh');
});

// Property tests: lines built from a small bash grammar.

const words = fc.constantFrom(
  'a',
  'x.txt',
  '-f',
  '--all',
  '"q s"',
  "'s q'",
  '$v',
  '${v}',
  '"$v"',
  '*',
  '\\ ',
  '2>&1',
  '>/dev/null',
  '&>x',
  '\r',
  '{',
  '}',
  '\\\n',
  'a#c',
);
/** Parts that may swallow what follows (an open quote, a comment): for the robustness property only. */
const junk = fc.constantFrom('"', "'", '\\', '(', ')', '`', '$(', '#c', '<<E');
const names = fc.constantFrom('git', 'ls', 'echo', 'cat', 'grep');
const simple = fc.tuple(names, fc.array(words, { maxLength: 4 })).map(([name, args]) => [name, ...args].join(' '));
const operators = fc.constantFrom(' ; ', ' && ', ' || ', ' | ', ' & ', '\n');

/** `touch PWNED` in every form a shell would still run it. */
const payloads = fc.constantFrom(
  'touch PWNED',
  '$(touch PWNED)',
  '`touch PWNED`',
  '"$(touch PWNED)"',
  "sh -c 'touch PWNED'",
  'bash -c "touch PWNED"',
  'eval touch PWNED',
  'env touch PWNED',
  'sudo -u root touch PWNED',
  'nice -n 5 touch PWNED',
  'timeout 5 touch PWNED',
  'xargs touch',
  'find . -exec touch PWNED \\;',
  '/usr/bin/touch PWNED',
  '\\touch PWNED',
  "'touch' PWNED",
  't""ouch PWNED',
  'X=1 touch PWNED',
  '{ touch PWNED; }',
  '(touch PWNED)',
  'if true; then touch PWNED; fi',
  'f() { touch PWNED; }; f',
  '<(touch PWNED)',
  'cat <<< "$(touch PWNED)"',
  'x=$(touch PWNED)',
  '! touch PWNED',
);
/** A payload placed as a command, or (a substitution) as an argument of another command. */
const substitution = (payload: string): boolean => /^("?\$\(|`|<\()/.test(payload);
const placed = fc
  .tuple(payloads, simple, fc.boolean())
  .map(([payload, host, inside]) => (inside && substitution(payload) ? `${host} ${payload}` : payload));

const lineWith = (filler: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc
    .tuple(fc.array(filler, { maxLength: 3 }), placed, fc.array(filler, { maxLength: 3 }), operators, operators)
    .map(([before, payload, after, left, right]) => [...before, payload, ...after].join(before.length > 0 ? left : right));
/** Fillers that cannot swallow the payload: no unbalanced quotes or comments. */
const cleanSimple = fc
  .tuple(names, fc.array(fc.constantFrom('a', 'x.txt', '-f', '"q s"', "'s q'", '2>&1'), { maxLength: 3 }))
  .map(([name, args]) => [name, ...args].join(' '));

test('issue 8 Tests (property): analysing any string never throws and does work linear in its length', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string({ unit: 'binary', maxLength: 300 }),
        fc.array(fc.oneof(words, junk, names, operators, payloads), { maxLength: 80 }).map((parts) => parts.join(' ')),
      ),
      (line) => {
        const analysis = shell.analyze(line);
        assert.ok(analysis.work <= WORK_PER_CHARACTER * (line.length + 1), `work ${analysis.work} for ${line.length} characters`);
        assert.ok(analysis.plain !== undefined || analysis.notPlain !== undefined);
      },
    ),
    { numRuns: 400 },
  );
});

test('issue 8 Tests (property): a line that runs touch is never allowed by rules that do not cover touch', () => {
  // Every command name the generator uses, except touch (and the wrappers, which would cover it).
  const rules: PermissionRule[] = ['git *', 'ls *', 'echo *', 'cat *', 'grep *', 'true', 'cat', 'f'].map((match) => ({
    tool: 'shell',
    match,
    action: 'allow',
  }));
  fc.assert(
    fc.property(lineWith(simple), (line) => {
      assert.notEqual(decide(line, rules).action, 'allow', JSON.stringify(line));
    }),
    { numRuns: 600 },
  );
});

test('issue 8 Tests (property): a deny rule for touch refuses every well-formed line that runs touch, in auto mode', () => {
  const rules: PermissionRule[] = [{ tool: 'shell', match: 'touch *', action: 'deny' }];
  fc.assert(
    fc.property(lineWith(cleanSimple), (line) => {
      assert.equal(decide(line, rules, 'auto').action, 'deny', JSON.stringify(line));
    }),
    { numRuns: 600 },
  );
});

test('issue 8 item 1: a rule written from the line as the user saw it ("Allow like this") still allows it; quotes do not hide a second command', () => {
  const line = `git commit -m "fix:  a; b" 2>&1`;
  assert.deepEqual(shell.analyze(line).plainWritten, [line]);
  const exact: PermissionRule[] = [{ tool: 'shell', match: line, action: 'allow' }];
  assert.equal(decide(line, exact).action, 'allow');
  assert.equal(decide(`${line}; touch X`, exact).action, 'ask');
});
