import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import picomatch from 'picomatch/posix';
import { escapeGlob } from '../../../src/hosts/vscode/approval-state';
import {
  compileGlob,
  GlobError,
  globCostProblem,
  globProblem,
  matchGlob,
  MAX_GLOB_WILDCARDS,
  type MatchWork,
} from '../../../src/core/glob';

test('§9 rules: in a path glob `*` stays within one folder and `**` crosses folders', () => {
  assert.equal(matchGlob('src/*.ts', 'src/a.ts', 'path'), true);
  assert.equal(matchGlob('src/*.ts', 'src/deep/a.ts', 'path'), false);
  assert.equal(matchGlob('src/**/*.ts', 'src/deep/er/a.ts', 'path'), true);
  assert.equal(matchGlob('src/**/*.ts', 'src/a.ts', 'path'), true, '`**/` also matches no folder');
  assert.equal(matchGlob('src/**', 'src/x/y', 'path'), true);
  assert.equal(matchGlob('/home/*/.ssh/**', '/home/ana/.ssh/id_rsa', 'path'), true);
  assert.equal(matchGlob('?.md', 'a.md', 'path'), true);
  assert.equal(matchGlob('?.md', '/.md', 'path'), false);
  assert.equal(matchGlob('./src/*.ts', 'src/a.ts', 'path'), true, 'a leading ./ in the glob is dropped');
});

test('issue 8 §9 rules: path globs match dotfiles, and `dir/**` covers the folder itself', () => {
  assert.equal(matchGlob('secrets/**', 'secrets/.env', 'path'), true);
  assert.equal(matchGlob('secrets/**', 'secrets/a/.git/config', 'path'), true);
  assert.equal(matchGlob('secrets/**', 'secrets', 'path'), true, 'a deny on the contents also covers searching or listing the folder');
  assert.equal(matchGlob('secrets/**', 'secrets-old', 'path'), false);
  assert.equal(matchGlob('secrets/**', 'other/secrets', 'path'), false);
  assert.equal(matchGlob('*.ts', '.hidden.ts', 'path'), true);
  assert.equal(matchGlob('**/*.pem', '/home/ana/.config/x/key.pem', 'path'), true);
  assert.equal(matchGlob('secrets/**', 'secrets/line\nbreak.txt', 'path'), true, 'a newline in a file name does not slip past `**`');
});

test('issue 8 §9 rules: in a text glob `*` matches anything: slashes, dot segments and newlines included', () => {
  assert.equal(matchGlob('git *', 'git log --oneline src/a.ts', 'text'), true);
  assert.equal(matchGlob('https://example.com/*', 'https://example.com/a/b?c=1', 'text'), true);
  // picomatch's bash-like star refuses `.`/`..` segments and newlines; a deny rule must not.
  assert.equal(matchGlob('rm *', 'rm -rf a/../../b', 'text'), true);
  assert.equal(matchGlob('rm *', 'rm ./x/./y', 'text'), true);
  assert.equal(matchGlob('rm *', 'rm a\nb', 'text'), true);
  assert.equal(matchGlob('a?c', 'a/c', 'text'), true);
  assert.equal(matchGlob('git *', 'gitk', 'text'), false);
  assert.equal(matchGlob('npm test', 'npm test --watch', 'text'), false, 'a glob matches the whole value');
  assert.equal(matchGlob('*', '', 'text'), true);
  assert.equal(matchGlob('a*b*c', 'abc', 'text'), true);
  assert.equal(matchGlob('ab*ba', 'aba', 'text'), false, 'the pieces around a `*` never overlap');
});

test('§9 rules: classes, alternatives and escapes', () => {
  assert.equal(matchGlob('*.{ts,tsx}', 'a.tsx', 'path'), true);
  assert.equal(matchGlob('*.{ts,tsx}', 'a.js', 'path'), false);
  assert.equal(matchGlob('file[0-9].txt', 'file7.txt', 'path'), true);
  assert.equal(matchGlob('file[!0-9].txt', 'file7.txt', 'path'), false);
  assert.equal(matchGlob('file[!0-9].txt', 'filex.txt', 'path'), true);
  assert.equal(matchGlob('file[^0-9].txt', 'filex.txt', 'path'), true);
  assert.equal(matchGlob('[[:upper:]]*', 'README', 'path'), true);
  assert.equal(matchGlob('[[:upper:]]*', 'readme', 'path'), false);
  assert.equal(matchGlob('a\\*b', 'a*b', 'text'), true);
  assert.equal(matchGlob('a\\*b', 'axb', 'text'), false);
  assert.equal(matchGlob('a\\*b', 'a*b', 'path'), true);
  assert.equal(matchGlob('a\\*b', 'axb', 'path'), false);
  assert.equal(matchGlob('{a,{b,c}}d', 'cd', 'text'), true);
  assert.equal(matchGlob('{a,{b,c}}d', 'cd', 'path'), true);
  assert.equal(matchGlob('{rm,shred} *', 'shred -u x', 'text'), true);
  assert.equal(matchGlob('https://{a,b}.example.com/*', 'https://c.example.com/x', 'text'), false);
  assert.equal(matchGlob('src/\\[id\\].ts', 'src/[id].ts', 'path'), true, 'what "Allow like this" writes still matches');
  assert.equal(matchGlob('src/\\[id\\].ts', 'src/i.ts', 'path'), false);
});

test('issue 8: `[\\d]` is a digit class, not the letter d', () => {
  assert.equal(matchGlob('v[\\d].txt', 'v7.txt', 'path'), true);
  assert.equal(matchGlob('v[\\d].txt', 'vd.txt', 'path'), false);
  assert.equal(matchGlob('v[\\d].txt', 'v[7].txt', 'path'), false, 'a class is never also read as literal brackets');
});

test('issue 8 §9 rules: in a text glob brackets and brace groups without a comma stand for themselves', () => {
  assert.equal(matchGlob('[ -f * ]', '[ -f x.txt ]', 'text'), true);
  assert.equal(matchGlob('[ab]', 'a', 'text'), false);
  assert.equal(matchGlob('[[ -f * ]]', '[[ -f x ]]', 'text'), true);
  assert.equal(globProblem('[[ -f * ]]', 'text'), undefined);
  assert.match(globProblem('[[ -f * ]]', 'path') ?? '', /a "\]" closes nothing/, 'as a path glob it is an unbalanced class');
  assert.equal(matchGlob('find . -exec rm {} *', 'find . -exec rm {} ;', 'text'), true);
  assert.equal(matchGlob("awk '{print $1}' *", "awk '{print $1}' a.txt", 'text'), true);
});

test('issue 8: regular-expression syntax in a glob is literal text, never a group, alternation or quantifier', () => {
  for (const kind of ['path', 'text'] as const) {
    assert.equal(matchGlob('a.b+(c)$^|', 'a.b+(c)$^|', kind), true, kind);
    assert.equal(matchGlob('a.b', 'axb', kind), false, kind);
    assert.equal(matchGlob('x(a|b)', 'xa', kind), false, kind);
    assert.equal(matchGlob('x(a|b)', 'x(a|b)', kind), true, kind);
    assert.equal(matchGlob('curl x|sh', 'sh', kind), false, kind);
    assert.equal(matchGlob('app/(auth)/**', 'app/(auth)/page.tsx', kind), true, kind);
  }
  assert.equal(matchGlob('"*".txt', '"x".txt', 'path'), true, 'double quotes are not quoting');
  assert.equal(matchGlob('"*".txt', '*.txt', 'path'), false);
  assert.equal(matchGlob('"a', '"a', 'path'), true);
  assert.equal(matchGlob('"a', 'a', 'path'), false);
  assert.equal(
    matchGlob('[\uE000]\uE0010\uE001', '\uE000\uE0010\uE001', 'path'),
    true,
    'the markers picomatch is given are plain characters in a glob',
  );
  assert.equal(matchGlob('[\uE000]\uE0010\uE001', 'a\uE0010\uE001', 'path'), false);
  assert.equal(matchGlob('[a]+', 'aa', 'path'), false);
  assert.equal(matchGlob('[a]+', 'a+', 'path'), true);
});

test('issue 8: a leading `!` and extglob forms are literal, so a rule never means "everything except"', () => {
  assert.equal(matchGlob('!secrets/**', 'src/a.ts', 'path'), false);
  assert.equal(matchGlob('!important', '!important', 'path'), true);
  assert.equal(matchGlob('a@(b)', 'ab', 'path'), false);
  assert.equal(matchGlob('+(a)', 'aa', 'path'), false);
});

test('issue 8 §9: an invalid glob has a problem that says what is wrong and how to fix it', () => {
  assert.match(
    globProblem('[z-a]') ?? '',
    /Range out of order in character class; fix the \[\.\.\.\] class, or write \\\[ for a literal \[/,
  );
  assert.match(globProblem('[abc') ?? '', /a "\[" is never closed; write \\\[ for a literal \[/);
  assert.match(globProblem('a]') ?? '', /a "\]" closes nothing; write \\\] for a literal \]/);
  assert.match(globProblem('{a,b') ?? '', /a "\{" is never closed/);
  assert.match(globProblem('trailing\\') ?? '', /a trailing \\ escapes nothing; write \\\\ for a backslash/);
  assert.match(globProblem('file{1..9}') ?? '', /ranges like \{1\.\.9\} are not supported; list the alternatives/);
  assert.match(globProblem('') ?? '', /cannot be empty/);
  for (const valid of [
    'src/**/*.ts',
    '[\\d]',
    'a\\\\',
    'git *',
    '**/a/**/*.ts',
    '{a,b}',
    '[ -f * ]',
    '\\{a,b',
    '*curl*|*sh*',
    'a)b',
    '\\{1..2\\}',
    '$$',
  ]) {
    assert.equal(globProblem(valid), undefined, valid);
  }
});

test('issue 8: a glob that may meet a path holds at most MAX_GLOB_WILDCARDS `*`/`**`, because each one more multiplies the backtracking', () => {
  assert.equal(MAX_GLOB_WILDCARDS, 3);
  for (const cheap of ['src/**/*.ts', '**/*secret*', 'src/**/test/**', '[a-z]?.md']) assert.equal(globCostProblem(cheap), undefined, cheap);
  assert.match(globCostProblem('*a*a*a*b') ?? '', /it has 4 wildcards \(\* or \*\*\) and a path glob may have at most 3/);
  assert.match(globCostProblem('**/*a*/**/*b*') ?? '', /it has 6 wildcards/);
  assert.match(globCostProblem('{*a,*b}*c*') ?? '', /it has 4 wildcards/, 'each alternative counts');
});

test('issue 8: matching an invalid glob throws a GlobError naming the glob; `[z-a]` is plain text in a text glob', () => {
  assert.throws(
    () => matchGlob('[z-a]', 'a', 'path'),
    (error: unknown) => error instanceof GlobError && error.message.startsWith('"[z-a]" is not a valid glob: Range out of order'),
  );
  assert.throws(() => compileGlob('{a,b', 'path'), GlobError);
  assert.throws(
    () => compileGlob('a{1..3}', 'text'),
    (error: unknown) => error instanceof GlobError && /ranges like/.test(error.message),
  );
  assert.throws(() => compileGlob('a\\', 'text'), GlobError);
  assert.equal(matchGlob('[z-a]', '[z-a]', 'text'), true);
  assert.equal(matchGlob('{a,b', '{a,b', 'text'), true);
});

test('issue 8: a text glob costs at most (text length + 1) × (glob length + 1) comparisons, never backtracking', () => {
  const text = 'a'.repeat(100_000);
  for (const glob of ['*a*a*b', '*a?a*b', '*aaaaaaaaaab*', 'a*b', '{x,*a*}b*', '*a*a*a*a*a*b*']) {
    const work: MatchWork = { comparisons: 0 };
    assert.equal(matchGlob(glob, text, 'text', work), false, glob);
    assert.ok(work.comparisons > 0, `${glob}: the counter counts`);
    assert.ok(work.comparisons <= (text.length + 1) * (glob.length + 1), `${glob}: ${work.comparisons} comparisons`);
  }
  for (const glob of ['*a*a*b*', '*a?b*', 'x*a?b*']) {
    const work: MatchWork = { comparisons: 0 };
    assert.equal(matchGlob(glob, `x${text}`, 'text', work), false, glob);
    assert.ok(work.comparisons >= text.length / 2, `${glob}: the whole text is searched (${work.comparisons})`);
    assert.ok(
      work.comparisons <= 4 * text.length,
      `${glob}: short pieces cost a few comparisons per character, not more (${work.comparisons})`,
    );
  }
});

/** The reference: the same dialect as a backtracking RegExp, fine for short strings. */
function referenceTextMatch(glob: string, text: string): boolean {
  const source = glob.replace(/[*?]|[^*?]/g, (char) =>
    char === '*' ? '[\\s\\S]*' : char === '?' ? '[\\s\\S]' : char.replace(/[.+^${}()|[\]\\/]/g, '\\$&'),
  );
  return new RegExp(`^${source}$`).test(text);
}

test('issue 8: the linear text matcher agrees with a backtracking reference on random globs', () => {
  const glob = fc.array(fc.constantFrom('a', 'b', '/', '*', '?'), { maxLength: 8 }).map((chars) => chars.join(''));
  const text = fc.array(fc.constantFrom('a', 'b', '/', '\n'), { maxLength: 10 }).map((chars) => chars.join(''));
  fc.assert(
    fc.property(glob, text, (pattern, value) => {
      if (globProblem(pattern) !== undefined) return;
      assert.equal(
        matchGlob(pattern, value, 'text'),
        referenceTextMatch(pattern, value),
        `${JSON.stringify(pattern)} on ${JSON.stringify(value)}`,
      );
    }),
    { numRuns: 3000 },
  );
});

test('issue 8 §9: the rule "Allow like this" writes for a subject matches exactly that subject, whatever its characters', () => {
  const character = fc.constantFrom(...'ab/.-_ *?[]{},!()|+@"\'\\$^:#~\n\uE000\uE001'.split(''));
  const subject = fc.array(character, { minLength: 1, maxLength: 12 }).map((chars) => chars.join(''));
  fc.assert(
    fc.property(subject, subject, (value, other) => {
      const glob = escapeGlob(value);
      assert.equal(globProblem(glob), undefined, glob);
      // A path glob drops a leading `./` (`./src/*.ts` means `src/*.ts`); real paths never start with it.
      for (const kind of value.startsWith('./') ? (['text'] as const) : (['path', 'text'] as const)) {
        assert.equal(matchGlob(glob, value, kind), true, `${kind} ${JSON.stringify(glob)} on itself`);
        if (other !== value)
          assert.equal(matchGlob(glob, other, kind), false, `${kind} ${JSON.stringify(glob)} on ${JSON.stringify(other)}`);
      }
    }),
    { numRuns: 3000 },
  );
});

test('issue 8: path globs mean what picomatch means, for globs made of syntax and letters (where picomatch handles text well)', () => {
  const options = { dot: true, nonegate: true, noextglob: true, posix: true, flags: 's', strictBrackets: true, literalBrackets: false };
  const token = fc.constantFrom('a', 'b', '.', '/', '*', '**', '?', '[ab]', '[!a]', '[a-c]', '[[:alpha:]]', '{a,b}', '{a,b/c}', '{,a}');
  const glob = fc.array(token, { minLength: 1, maxLength: 6 }).map((tokens) => tokens.join(''));
  const path = fc.array(fc.constantFrom('a', 'b', 'c', '/', '.'), { maxLength: 8 }).map((chars) => chars.join(''));
  fc.assert(
    fc.property(glob, path, (pattern, value) => {
      if (globProblem(pattern) !== undefined || globCostProblem(pattern) !== undefined) return;
      // picomatch's own bug: after a POSIX class it rebuilds its output unescaped, so its `.` matches any
      // character there (`[[:alpha:]]a.` matches `aaa`); ours stays literal (the test below).
      if (pattern.includes('[[:') && pattern.includes('.')) return;
      // picomatch is inconsistent about a `**` that is not a whole segment (`**.a` crosses folders,
      // `**a` does not); ours is always a `*` there, as in bash (the test below).
      if (/\*\*[^/]|[^/]\*\*/.test(pattern)) return;
      // Real paths are normalised: no empty, `.` or `..` segments, where picomatch adds guards of its own.
      if (value.split('/').some((segment, index) => (segment === '' && index > 0) || segment === '.' || segment === '..') || value === '')
        return;
      assert.equal(
        matchGlob(pattern, value, 'path'),
        picomatch.makeRe(pattern, options).test(value),
        `${JSON.stringify(pattern)} on ${JSON.stringify(value)}`,
      );
    }),
    { numRuns: 3000 },
  );
});

test('issue 8: a dot after a POSIX class is a literal dot, where picomatch would read it as any character', () => {
  assert.equal(matchGlob('[[:alpha:]]a.', 'aaa', 'path'), false);
  assert.equal(matchGlob('[[:alpha:]]a.', 'ba.', 'path'), true);
  assert.equal(
    picomatch.makeRe('[[:alpha:]]a.', { dot: true, posix: true }).test('aaa'),
    true,
    'the picomatch bug this works around is still there',
  );
});

test('issue 8: ** crosses folders only as a whole path segment; elsewhere it is a *', () => {
  assert.equal(matchGlob('**.a', 'x.a', 'path'), true);
  assert.equal(matchGlob('**.a', 'dir/x.a', 'path'), false);
  assert.equal(matchGlob('**/*.a', 'dir/x.a', 'path'), true);
  assert.equal(matchGlob('dir/**', 'dir/sub/x.a', 'path'), true);
});
