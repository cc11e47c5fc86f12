// Dev tool for the shell-permission corpus (issue 8, "Tests"): runs every case's line under dash
// (/bin/sh) and bash and records which programs actually ran, to check each expectation against
// the shells rather than against a guess. Usage: node scripts/corpus-check.mjs [corpus.json …]
//
// Safety: each run happens in fresh user, mount, network and pid namespaces (`unshare -rmnpf`),
// with /tmp and HOME in scratch directories, and every program the line names replaced by
// a stub that only logs its argv (bind-mounted over /usr/bin/NAME too, so `/bin/rm` is a stub as
// well). Wrappers (env, xargs, find, sh, …) log and then run the real program, so the command they
// start is seen. Linux only; needs util-linux `unshare`, dash and bash.
//
// Verdicts: an `allow` case is wrong if any logged command is not covered (strict: an allow rule;
// auto: no deny/ask rule). A `deny` case is confirmed when some logged command matches a deny
// rule in some shell; an `ask` case when some logged command is uncovered or hits an ask rule.
// Unconfirmed deny/ask cases (Zuno is stricter than the shell) must say why in `note`.
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const corpusDir = 'test/fixtures/shell-corpus';
const files =
  process.argv.slice(2).length > 0
    ? process.argv.slice(2)
    : readdirSync(corpusDir)
        .filter((name) => name.endsWith('.json'))
        .map((name) => join(corpusDir, name));

const systemDirs = ['/usr/bin', '/usr/sbin', '/usr/local/bin', '/usr/local/sbin'];
// Run for real (after logging), because what they start is the point of the case.
const wrappers = new Set(['env', 'nice', 'nohup', 'timeout', 'stdbuf', 'xargs', 'find', 'time', 'sh', 'bash', 'dash']);
// Log, then run the rest of argv (a real sudo would ask for a password inside the sandbox).
const elevators = new Set(['sudo', 'doas']);
// Needed by the sandbox set-up itself, or words that are never program names.
const neverStub = new Set([
  'mount',
  'unshare',
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'for',
  'while',
  'until',
  'do',
  'done',
  'case',
  'esac',
  'in',
  'function',
  'select',
]);

/** Glob over a whole command text: `*` any characters (newlines and `/` too), `?` one, `[…]`, `{a,b}`. */
function globToRegExp(glob) {
  let source = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') source += '[\\s\\S]*';
    else if (c === '?') source += '[\\s\\S]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) {
        source += '\\[';
        continue;
      }
      const body = glob
        .slice(i + 1, end)
        .replace(/^!/, '^')
        .replace(/\\/g, '\\\\');
      source += `[${body}]`;
      i = end;
    } else if (c === '{') {
      braces++;
      source += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      source += ')';
    } else if (c === ',' && braces > 0) source += '|';
    else if (c === '\\' && i + 1 < glob.length) source += escape(glob[++i]);
    else source += escape(c);
  }
  return new RegExp(`^${source}$`);
}
const escape = (c) => c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** Stubs see argv, not the line: leading assignments in a rule (`NODE_ENV=test npm *`) are invisible to them. */
const withoutAssignments = (match) => match.replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+/, '');
const matches = (rule, text) => [rule.match, withoutAssignments(rule.match)].some((m) => globToRegExp(m).test(text));

function programNames(line, rules) {
  const words = [
    ...line.matchAll(/[A-Za-z_][A-Za-z0-9_.+-]{0,63}/g),
    ...rules.flatMap((r) => [...r.match.matchAll(/[A-Za-z_][A-Za-z0-9_.+-]{0,63}/g)]),
  ].map((m) => m[0]);
  return [...new Set(words)].filter((name) => !neverStub.has(name));
}

function stubScript(name) {
  // NUL-separated: arguments may hold newlines.
  const log = `printf '%s\\000' "${name}\${*:+ $*}" >> /mnt/log`;
  if (wrappers.has(name)) return `#!/mnt/real/dash\n${log}\nexec /mnt/real/${name} "$@"\n`;
  if (elevators.has(name)) return `#!/mnt/real/dash\n${log}\nexec "$@"\n`;
  return `#!/mnt/real/dash\n${log}\n`;
}

// Bind real binaries to /mnt/real first, then stubs over the system paths, then run the line.
const prelude = `
d=$1; shell=$2; shift 2
mount --bind "$d" /mnt || exit 97
while [ "$1" != -- ]; do mount --bind "$(command -v "$1")" "/mnt/real/$1"; shift; done; shift
mount --bind /mnt/tmp /tmp
for n in "$@"; do for p in ${systemDirs.join(' ')}; do [ -e "$p/$n" ] && mount --bind "/mnt/bin/$n" "$p/$n"; done; done
cd /mnt/work && HOME=/mnt/work PATH=/mnt/bin:/usr/bin:/bin "/mnt/real/$shell" /mnt/case.sh </dev/null >/dev/null 2>&1
# Background jobs and >(…) outlive the shell; they die with this namespace's pid 1, so give them a moment.
[ -n "$SETTLE" ] && /mnt/real/sleep 0.3
exit 0
`;

function run(line, names, shell, scratch) {
  rmSync(scratch, { recursive: true, force: true });
  for (const sub of ['bin', 'real', 'work', 'tmp']) mkdirSync(join(scratch, sub), { recursive: true });
  // Files some cases act on (find -name x, cat file.txt), so the payload really runs.
  for (const name of seeded) writeFileSync(join(scratch, 'work', name), 'x\n');
  writeFileSync(join(scratch, 'case.sh'), line);
  writeFileSync(join(scratch, 'log'), '');
  const real = [...new Set(['dash', 'bash', 'sleep', ...names.filter((n) => wrappers.has(n))])];
  for (const name of real) writeFileSync(join(scratch, 'real', name), '');
  for (const name of names) writeFileSync(join(scratch, 'bin', name), stubScript(name), { mode: 0o755 });
  const result = spawnSync(
    'unshare',
    ['-rmnpf', '--kill-child', '/bin/sh', '-c', prelude, 'prelude', scratch, shell, ...real, '--', ...names],
    { timeout: 10_000, killSignal: 'SIGKILL', env: { ...process.env, SETTLE: /&|[<>]\(/.test(line) ? '1' : '' } },
  );
  // unshare --fork ignores SIGTERM, so the timeout sends SIGKILL; --kill-child then ends the namespace.
  if (result.error && result.error.code !== 'ETIMEDOUT') throw result.error;
  if (result.status === 97) throw new Error('unshare could not bind-mount: run on Linux with unprivileged user namespaces enabled');
  const commands = readFileSync(join(scratch, 'log'), 'utf8').split('\0').filter(Boolean);
  // A redirection's side effect: any file the line created or changed in the work dir (also HOME) or /tmp.
  const writes = ['work', 'tmp']
    .flatMap((sub) => readdirSync(join(scratch, sub), { recursive: true }).map((name) => join(sub, String(name))))
    .filter((path) => !(path.startsWith('work') && seeded.has(path.slice(5)) && readFileSync(join(scratch, path), 'utf8') === 'x\n'));
  return { commands, writes };
}
const seeded = new Set(['x', 'X', 'file.txt', 'input.txt', 'files.txt', 'package.json', 'secret']);

const base = mkdtempSync(join(realpathSync(tmpdir()), 'zuno-corpus-'));
const problems = [];
const tally = { confirmed: 0, unconfirmedWithNote: 0, total: 0 };
try {
  if (!existsSync('/usr/bin/dash') || !existsSync('/usr/bin/bash')) throw new Error('needs /usr/bin/dash and /usr/bin/bash');
  for (const file of files) {
    const { cases } = JSON.parse(readFileSync(file, 'utf8'));
    cases.forEach((c, index) => {
      tally.total++;
      const names = programNames(c.line, c.rules);
      const ran = { dash: run(c.line, names, 'dash', join(base, 'dash')), bash: run(c.line, names, 'bash', join(base, 'bash')) };
      const of = (action) => c.rules.filter((r) => r.action === action);
      const hits = (action, cmd) => of(action).some((r) => matches(r, cmd) || matches(r, cmd.split(' ')[0] + ' '));
      const covered = (cmd) =>
        c.mode === 'auto'
          ? !hits('deny', cmd) && !hits('ask', cmd)
          : of('allow').some((r) => matches(r, cmd)) && !hits('deny', cmd) && !hits('ask', cmd);
      const all = Object.entries(ran).flatMap(([sh, { commands }]) => commands.map((cmd) => [sh, cmd]));
      // No rule covers a file write in strict mode; in auto mode nothing screens it.
      const writes =
        c.mode === 'auto' ? [] : Object.entries(ran).flatMap(([sh, { writes: paths }]) => paths.map((path) => [sh, `wrote ${path}`]));
      const where = `${file} #${index} ${JSON.stringify(c.line.length > 120 ? c.line.slice(0, 120) + '…' : c.line)}`;
      if (c.expect === 'allow') {
        const bad = [...all.filter(([, cmd]) => !covered(cmd)), ...writes];
        if (bad.length > 0)
          problems.push(`MISMATCH allow, but ran uncovered: ${bad.map(([sh, cmd]) => `${sh}: ${cmd}`).join('; ')}\n  ${where}`);
        else tally.confirmed++;
        return;
      }
      const confirmed =
        c.expect === 'deny'
          ? all.some(([, cmd]) => hits('deny', cmd))
          : all.some(([, cmd]) => !covered(cmd) || hits('ask', cmd)) || writes.length > 0;
      if (confirmed) tally.confirmed++;
      else if (c.note) tally.unconfirmedWithNote++;
      else
        problems.push(
          `UNCONFIRMED ${c.expect}: no shell ran a command that makes it ${c.expect} (ran: ${[...all, ...writes].map(([sh, cmd]) => `${sh}: ${cmd}`).join('; ') || 'nothing'}); add a note saying why\n  ${where}`,
        );
    });
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
for (const problem of problems) console.log(problem);
console.log(
  `${tally.total} cases: ${tally.confirmed} confirmed by dash/bash, ${tally.unconfirmedWithNote} stricter than the shell (noted), ${problems.length} problems`,
);
process.exit(problems.length > 0 ? 1 : 0);
