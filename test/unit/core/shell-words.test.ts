import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeCommandLine } from '../../../src/core/shell-words';

test('§9 rules: a command line splits into simple commands on ; && || | & and newlines', () => {
  const analysis = analyzeCommandLine('git status && npm   test ; echo done | tee\nls -la || true & wait');
  assert.deepEqual(analysis.commands, ['git status', 'npm test', 'echo done', 'tee', 'ls -la', 'true', 'wait']);
  assert.deepEqual(analysis.hazards, []);
});

test('§9 rules: operators inside quotes do not split, and quotes are kept', () => {
  const analysis = analyzeCommandLine(`git commit -m "fix: a; b && c > d" && echo 'x | y'`);
  assert.deepEqual(analysis.commands, ['git commit -m "fix: a; b && c > d"', "echo 'x | y'"]);
  assert.deepEqual(analysis.hazards, []);
});

test('§9 rules: a redirection to a file is a hazard (git show > ~/.ssh/x)', () => {
  const analysis = analyzeCommandLine('git show > ~/.ssh/authorized_keys');
  assert.deepEqual(analysis.commands, ['git show >~/.ssh/authorized_keys']);
  assert.match(analysis.hazards.join(), /redirection \(> ~\/\.ssh\/authorized_keys\)/);
  for (const line of ['cat a >> b', 'sort < input.txt', 'echo x &> log', 'echo x 2>err.log', 'echo x >| f', 'echo x >&file']) {
    assert.notDeepEqual(analyzeCommandLine(line).hazards, [], line);
  }
});

test('§9 rules: redirections to /dev/null and descriptor copies are harmless and leave the command', () => {
  const analysis = analyzeCommandLine('git status 2>/dev/null && make 2>&1 >/dev/null && ls >&2');
  assert.deepEqual(analysis.commands, ['git status', 'make', 'ls']);
  assert.deepEqual(analysis.hazards, []);
  assert.deepEqual(analyzeCommandLine('echo 2 >/dev/null').commands, ['echo 2'], 'an argument 2 is not a descriptor');
});

test('§9 rules: substitutions and subshells are hazards, and their commands are reported as nested', () => {
  const dollar = analyzeCommandLine('echo $(rm -rf ~; curl x)');
  assert.match(dollar.hazards.join(), /command substitution/);
  assert.deepEqual(dollar.nested, ['rm -rf ~', 'curl x']);
  const quoted = analyzeCommandLine('echo "today is `date` and $(whoami)"');
  assert.deepEqual(quoted.nested, ['date', 'whoami']);
  assert.match(quoted.hazards.join(), /command substitution/);
  const process = analyzeCommandLine('diff <(ls a) <(ls b)');
  assert.match(process.hazards.join(), /process substitution/);
  assert.deepEqual(process.nested, ['ls a', 'ls b']);
  const subshell = analyzeCommandLine('(cd /tmp && rm x)');
  assert.match(subshell.hazards.join(), /subshell/);
  assert.deepEqual(subshell.nested, ['cd /tmp', 'rm x']);
  const nestedDeep = analyzeCommandLine('echo $(echo $(shutdown now))');
  assert.ok(nestedDeep.nested.includes('shutdown now'));
});

test('§9 rules: single quotes keep $( and backticks literal', () => {
  const analysis = analyzeCommandLine(`echo '$(not run) and \`not run\`'`);
  assert.deepEqual(analysis.hazards, []);
  assert.deepEqual(analysis.nested, []);
});

test('§9 rules: here-documents, groups and unclosed quotes are hazards', () => {
  assert.match(analyzeCommandLine('cat <<EOF\nhi\nEOF').hazards.join(), /here-document/);
  assert.match(analyzeCommandLine('{ rm a; }').hazards.join(), /command group/);
  assert.match(analyzeCommandLine('echo "unclosed').hazards.join(), /unclosed quote/);
  assert.match(analyzeCommandLine("echo 'unclosed").hazards.join(), /unclosed quote/);
  assert.match(analyzeCommandLine('echo $(unclosed').hazards.join(), /unbalanced parenthesis/);
  assert.match(analyzeCommandLine('echo )').hazards.join(), /unbalanced parenthesis/);
});

test('§9 rules: comments are dropped and line continuations joined', () => {
  assert.deepEqual(analyzeCommandLine('git status # ; rm -rf /').commands, ['git status']);
  assert.deepEqual(analyzeCommandLine('echo a#b').commands, ['echo a#b'], 'a # inside a word is not a comment');
  assert.deepEqual(analyzeCommandLine('npm \\\n  test').commands, ['npm test']);
});

test('§9 rules: no input makes the analyzer throw', () => {
  for (const line of ['', '   ', ';;;', '&&', '|', '((((', '))))', '"', "'", '`', '$(', '<', '>', '2>', '\\', '{', '}', '$((1+2))']) {
    assert.doesNotThrow(() => analyzeCommandLine(line), line);
  }
});
