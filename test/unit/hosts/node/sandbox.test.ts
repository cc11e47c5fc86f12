/**
 * issue 12: the sandbox plan, the bubblewrap argv and the Seatbelt profile, as data and text.
 * The real-bwrap behaviour is in test/unit/tools/shell-sandbox.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig, type ZunoConfigInput } from '../../../../src/core/config';
import {
  globMatchAllowed,
  planSandbox,
  sandboxRefusalNote,
  sandboxStatus,
  splitGlob,
  type SandboxPlan,
} from '../../../../src/core/sandbox';
import {
  bwrapArguments,
  bwrapProbeArguments,
  createSandboxSupport,
  expandWritableGlobs,
  rlimitExempt,
  seatbeltProfile,
  type PathKind,
} from '../../../../src/hosts/node/sandbox';

const plan = (config: ZunoConfigInput = {}): SandboxPlan => {
  const planned = planSandbox({
    config: parseConfig(config),
    workspaceRoot: '/work/project',
    stateDir: '/home/dev/.local/state/zuno',
    home: '/home/dev',
  });
  assert.ok(planned);
  return planned;
};

/** Everything in the plan exists, except what a test names. */
const existing =
  (missing: readonly string[] = [], files: readonly string[] = []) =>
  (path: string): PathKind =>
    missing.includes(path) ? undefined : files.includes(path) ? 'file' : 'directory';

/** The `--flag a b` triples of an argv, as strings, to check order. */
const mounts = (args: readonly string[]): string[] => {
  const found: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const flag = args[index] ?? '';
    if (['--bind', '--ro-bind'].includes(flag)) {
      found.push(`${flag} ${args[index + 1] ?? ''} ${args[index + 2] ?? ''}`);
      index += 2;
    } else if (['--tmpfs', '--remount-ro'].includes(flag)) {
      found.push(`${flag} ${args[index + 1] ?? ''}`);
      index++;
    }
  }
  return found;
};

test('issue 12 the default plan: workspace-write, network off, the workspace writable, .git/.zuno/.vscode read-only, state dir and home secrets hidden', () => {
  const planned = plan();
  assert.equal(planned.mode, 'workspace-write');
  assert.equal(planned.network, false);
  assert.deepEqual(planned.writable, ['/work/project']);
  assert.deepEqual(planned.readOnly, ['/work/project/.git', '/work/project/.zuno', '/work/project/.vscode']);
  assert.ok(planned.hidden.includes('/home/dev/.local/state/zuno'));
  for (const secret of ['/home/dev/.ssh', '/home/dev/.aws', '/home/dev/.config/gh', '/home/dev/.netrc'])
    assert.ok(planned.hidden.includes(secret), secret);
  assert.equal(planSandbox({ config: parseConfig({ sandbox: { mode: 'off' } }), workspaceRoot: '/w' }), undefined);
});

test('issue 12: sandbox.writable resolves ~/ against the home and relative paths against the workspace; read-only mode has nothing writable', () => {
  assert.deepEqual(plan({ sandbox: { writable: ['~/.npm', 'build/out', '/var/cache/x/'] } }).writable, [
    '/work/project',
    '/home/dev/.npm',
    '/work/project/build/out',
    '/var/cache/x',
  ]);
  const readOnly = plan({ sandbox: { mode: 'read-only', writable: ['/var/cache/x'] } });
  assert.deepEqual(readOnly.writable, []);
  assert.equal(readOnly.readOnly[0], '/work/project', 'the workspace itself is mounted read-only');
});

test('issue 12: globs in sandbox.writable are kept as absolute globs (~/ and relative resolved); a bad glob or one at the top of the disk, home or workspace is a config error', () => {
  const planned = plan({ sandbox: { writable: ['~/.cache/*', '../shared-*/out', '/var/cache/x/**', '/opt/tools'] } });
  assert.deepEqual(planned.writableGlobs, ['/home/dev/.cache/*', '/work/project/../shared-*/out', '/var/cache/x/**']);
  assert.deepEqual(planned.writable, ['/work/project', '/opt/tools']);
  assert.deepEqual(plan({ sandbox: { mode: 'read-only', writable: ['~/.cache/*'] } }).writableGlobs, [], 'read-only mode has none');
  assert.deepEqual(
    plan({ sandbox: { writable: ['/home/dev/*', '/home/dev//.*', '/work/project/*'] } }).writableGlobs,
    [],
    'the home folder and the workspace written out are tops too (their dotfiles are not made writable)',
  );
  assert.deepEqual(splitGlob('/home/dev/.cache/*/bin'), { base: '/home/dev/.cache', rest: '*/bin' });
  assert.deepEqual(splitGlob('/*'), { base: '/', rest: '*' });
  for (const top of ['/*', '/**', '~/*', '*', 'build-*'])
    assert.throws(
      () => parseConfig({ sandbox: { writable: [top] } }),
      /at the top of the disk, of the home folder or of the workspace/,
      top,
    );
  assert.throws(
    () => parseConfig({ sandbox: { writable: ['~/.cache/[a-'] } }),
    /sandbox\.writable\[0\].*is not a valid glob: a "\[" is never closed/,
  );
  assert.throws(() => parseConfig({ sandbox: { writable: ['/var/*a*b*c*d'] } }), /is not a valid glob: it has 4 wildcards/);
});

test('issue 12: a glob match never makes writable a parent of what the plan keeps read-only or hidden, nor anything inside a hidden or already writable path', () => {
  const kept = { writable: ['/work/project'], readOnly: ['/work/project/.git'], hidden: ['/home/dev/.ssh', '/home/dev/.local/state/zuno'] };
  assert.equal(globMatchAllowed('/work', kept), false, "a parent of the workspace's .git");
  assert.equal(globMatchAllowed('/home/dev/.local', kept), false, 'a parent of the state dir');
  assert.equal(globMatchAllowed('/home/dev/.ssh', kept), false, 'a hidden path itself');
  assert.equal(globMatchAllowed('/home/dev/.ssh/keys', kept), false, 'inside a hidden path');
  assert.equal(globMatchAllowed('/work/project/build', kept), false, 'inside the workspace: already writable');
  assert.equal(globMatchAllowed('/home/dev/.cache/pip', kept), true);
  assert.equal(globMatchAllowed('/work/project-2', kept), true, 'a sibling with the workspace as prefix is not inside it');
});

test('issue 12: a glob expands against the disk: real paths, no symlinks followed, no match that holds the workspace', () => {
  const root = mkdtempSync(join(tmpdir(), 'zuno-globs-'));
  try {
    for (const folder of ['cache-a', 'cache-b/bin', 'other', 'project/.git', 'deep/x/bin'])
      mkdirSync(join(root, folder), { recursive: true });
    symlinkSync(join(root, 'other'), join(root, 'cache-link'));
    writeFileSync(join(root, 'cache-file'), '');
    const base = { ...plan(), writable: [join(root, 'project')], readOnly: [join(root, 'project', '.git')], hidden: [] };
    const expand = (globs: string[]) => expandWritableGlobs({ ...base, writableGlobs: globs }).sort();
    assert.deepEqual(expand([`${root}/cache-*`]), [join(root, 'cache-a'), join(root, 'cache-b'), join(root, 'cache-file')]);
    assert.deepEqual(expand([`${root}/*/bin`]), [join(root, 'cache-b', 'bin')]);
    assert.deepEqual(expand([`${root}/**/bin`]), [join(root, 'cache-b', 'bin'), join(root, 'deep', 'x', 'bin')]);
    assert.ok(!expand([`${root}/*`]).includes(join(root, 'project')), 'the workspace (a parent of its .git) is never matched');
    assert.ok(!expand([`${root}/*`]).includes(join(root, 'cache-link')), 'a symlink is not followed');
    assert.deepEqual(expand([`${root}/nothing-*`]), []);
    assert.deepEqual(expand([`${join(root, 'absent')}/*`]), []);
    const args = bwrapArguments({ ...base, writableGlobs: [`${root}/cache-*`] }, root);
    assert.ok(
      mounts(args).indexOf(`--bind ${join(root, 'cache-a')} ${join(root, 'cache-a')}`) <
        mounts(args).indexOf(`--ro-bind ${join(root, 'project', '.git')} ${join(root, 'project', '.git')}`),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('issue 12 the bwrap argv: read-only root, then writable, then read-only inside, then hidden; new user, PID and network namespaces', () => {
  const args = bwrapArguments(plan(), '/work/project/sub', existing(['/home/dev/.aws'], ['/home/dev/.netrc']), (path) => path);
  for (const flag of ['--unshare-user', '--unshare-pid', '--unshare-net', '--die-with-parent', '--new-session'])
    assert.ok(args.includes(flag), flag);
  assert.deepEqual(args.slice(args.indexOf('--cap-drop'), args.indexOf('--cap-drop') + 2), ['--cap-drop', 'ALL']);
  const order = mounts(args);
  assert.equal(order[0], '--ro-bind / /');
  const at = (mount: string): number => order.indexOf(mount);
  assert.ok(at('--tmpfs /tmp') > 0);
  assert.ok(at('--bind /work/project /work/project') > at('--tmpfs /tmp'), 'a workspace below /tmp is mounted over the private /tmp');
  assert.ok(at('--ro-bind /work/project/.git /work/project/.git') > at('--bind /work/project /work/project'));
  assert.ok(at('--tmpfs /home/dev/.ssh') > at('--ro-bind /work/project/.git /work/project/.git'));
  assert.ok(order.includes('--remount-ro /home/dev/.ssh'));
  assert.ok(order.includes('--ro-bind /dev/null /home/dev/.netrc'), 'a secret file is replaced by an empty one');
  assert.ok(!args.includes('/home/dev/.aws'), 'a missing path is not mounted over (bwrap would create it)');
  assert.deepEqual(args.slice(-2), ['--chdir', '/work/project/sub']);
  assert.ok(!bwrapArguments(plan({ sandbox: { network: true } }), '/w', existing(), (path) => path).includes('--unshare-net'));
  const linked = bwrapArguments(plan(), '/w', existing(), (path) => path.replace('/home/dev/.ssh', '/data/keys'));
  assert.ok(mounts(linked).includes('--tmpfs /data/keys'), 'a symlinked secret folder is hidden where it really is');
});

test('issue 12 the Seatbelt profile says the same: deny by default, reads but not the hidden paths, writes only where writable and not read-only, network only when on', () => {
  const profile = seatbeltProfile(plan(), '/private/tmp/zuno-sandbox-1');
  assert.match(profile, /^\(version 1\)\n\(deny default\)\n/);
  assert.match(
    profile,
    /\(allow file-read\* \(require-all \(subpath "\/"\) \(require-not \(subpath "\/home\/dev\/\.local\/state\/zuno"\)\) \(require-not \(subpath "\/home\/dev\/\.ssh"\)\)/,
  );
  assert.match(
    profile,
    /\(allow file-write\* \(require-all \(require-any \(subpath "\/work\/project"\) \(subpath "\/private\/tmp\/zuno-sandbox-1"\)\) \(require-not \(subpath "\/work\/project\/\.git"\)\)/,
  );
  assert.doesNotMatch(profile, /\(allow network\*\)/);
  assert.match(seatbeltProfile(plan({ sandbox: { network: true } }), '/t'), /\(allow network\*\)/);
  const quoted = seatbeltProfile({ ...plan(), writable: ['/work/a "b"\\c'] }, '/t');
  assert.match(quoted, /\(subpath "\/work\/a \\"b\\"\\\\c"\)/, 'quotes and backslashes are escaped');
});

test('issue 12: a failure that looks like a sandbox refusal is named, with the way out; other failures are not', () => {
  assert.match(
    sandboxRefusalNote("touch: cannot touch '/etc/x': Read-only file system", plan()) ?? '',
    /a write was refused: outside the workspace .* "sandbox": "off"/,
  );
  assert.match(sandboxRefusalNote('Error: connect ECONNREFUSED 127.0.0.1:5432', plan()) ?? '', /the network is off in the sandbox/);
  assert.equal(sandboxRefusalNote('Error: connect ECONNREFUSED 127.0.0.1:5432', plan({ sandbox: { network: true } })), undefined);
  assert.equal(sandboxRefusalNote('error TS2322: Type string is not assignable', plan()), undefined);
  assert.match(
    sandboxRefusalNote("mkdir: cannot create directory '.vscode': File exists", plan()) ?? '',
    /\.git, \.zuno and \.vscode cannot be created or changed from the sandbox/,
  );
  assert.equal(sandboxRefusalNote("mkdir: cannot create directory '.gitignore.d': File exists", plan()), undefined);
});

test('issue 12 detection: bwrap missing from PATH, a configured path that does not exist, and Windows each say why and what to do', async () => {
  const missing = await createSandboxSupport({ path: '/nonexistent', platform: 'linux' }).availability();
  assert.deepEqual(missing, {
    available: false,
    reason: 'bwrap (bubblewrap) was not found on PATH',
    fix: 'Install bubblewrap (Debian/Ubuntu: apt install bubblewrap) or set sandbox.bwrap_path to it.',
  });
  const configured = await createSandboxSupport({ platform: 'linux' }).availability('/nonexistent/bwrap');
  assert.ok(!configured.available && /sandbox\.bwrap_path \/nonexistent\/bwrap does not exist/.test(configured.reason));
  const windows = await createSandboxSupport({ platform: 'win32' }).availability();
  assert.ok(!windows.available && /Windows has no sandbox/.test(windows.reason));
  const real = createSandboxSupport({ platform: 'linux' });
  const first = real.availability();
  assert.equal(real.availability(), first, 'the probe runs once per bwrap path');
  assert.equal((await first).available, true, 'bwrap works on this machine (CI installs it)');
});

test('issue 12 the status bar says "sandbox: off (reason)" whenever commands run unsandboxed', () => {
  const missing = { available: false as const, reason: 'bwrap (bubblewrap) was not found on PATH', fix: 'Install bubblewrap.' };
  const working = { available: true as const, mechanism: 'bubblewrap' as const, detail: '/usr/bin/bwrap' };
  assert.deepEqual(sandboxStatus(parseConfig({}), missing), {
    text: 'sandbox: off (bwrap (bubblewrap) was not found on PATH)',
    tooltip: 'The sandbox cannot be used: bwrap (bubblewrap) was not found on PATH; commands run unsandboxed. Install bubblewrap.',
    warning: true,
  });
  assert.match(
    sandboxStatus(parseConfig({ sandbox: { required: true } }), missing).tooltip,
    /shell calls are blocked \(sandbox\.required\)/,
  );
  assert.equal(sandboxStatus(parseConfig({ sandbox: { mode: 'off' } }), working).text, 'sandbox: off (sandbox.mode)');
  assert.deepEqual(sandboxStatus(parseConfig({}), working), {
    text: 'sandbox: workspace-write',
    tooltip: 'Commands run in bubblewrap: workspace-write, network off.',
    warning: false,
  });
});

test('issue 12: a bwrap the kernel refuses (a container without user namespaces) is found unavailable by the probe, with the fix', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'zuno-fake-bwrap-'));
  try {
    const fake = join(folder, 'bwrap');
    // What bwrap prints where unprivileged user namespaces are off.
    writeFileSync(
      fake,
      '#!/bin/sh\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n',
      { mode: 0o755 },
    );
    const refused = await createSandboxSupport({ platform: 'linux', path: folder }).availability();
    assert.ok(!refused.available);
    assert.equal(
      refused.reason,
      'bwrap could not create a sandbox (bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.)',
    );
    assert.match(refused.fix, /kernel\.unprivileged_userns_clone=1/);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

/** The option names (`--bind`, `--cap-drop`, …) of a bwrap argv, up to the command. */
const options = (args: readonly string[]): Set<string> =>
  new Set(args.slice(0, args.includes('--') ? args.indexOf('--') : args.length).filter((arg) => /^--[a-z]/.test(arg)));

test('issue 12 the bwrap probe comes from the argv builder: it makes every kind of mount and takes every option a real call does', () => {
  const probe = bwrapProbeArguments('/tmp/scratch', existing(['/tmp/scratch/.git'], ['/tmp/scratch/secret']), (path) => path);
  const real = bwrapArguments(plan(), '/work/project', existing(['/work/project/.vscode'], ['/home/dev/.netrc']), (path) => path);
  for (const option of options(real)) assert.ok(options(probe).has(option), `the probe takes ${option} too`);
  const order = mounts(probe);
  for (const mount of [
    '--ro-bind / /',
    '--tmpfs /tmp',
    '--bind /tmp/scratch /tmp/scratch',
    '--ro-bind /tmp/scratch/read-only /tmp/scratch/read-only',
    '--tmpfs /tmp/scratch/.git',
    '--remount-ro /tmp/scratch/.git',
    '--tmpfs /tmp/scratch/hidden',
    '--remount-ro /tmp/scratch/hidden',
    '--ro-bind /dev/null /tmp/scratch/secret',
  ])
    assert.ok(order.includes(mount), `${mount} in ${order.join(', ')}`);
  assert.deepEqual(probe.slice(probe.indexOf('--chdir'), probe.indexOf('--chdir') + 3), ['--chdir', '/tmp/scratch', '--']);
});

/** A fake bwrap in a folder of its own, for `createSandboxSupport({ path })`. */
async function availabilityWith(script: string) {
  const folder = mkdtempSync(join(tmpdir(), 'zuno-fake-bwrap-'));
  try {
    writeFileSync(join(folder, 'bwrap'), script);
    chmodSync(join(folder, 'bwrap'), 0o755);
    return await createSandboxSupport({ platform: 'linux', path: folder }).availability();
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

test('issue 12: a bwrap that refuses an option only real calls used to get (--new-session) is found unavailable by the probe', async () => {
  const refused = await availabilityWith(
    '#!/bin/sh\nfor arg; do [ "$arg" = --new-session ] && { echo "bwrap: Unknown option --new-session" >&2; exit 1; }; done\nexec /usr/bin/bwrap "$@"\n',
  );
  assert.ok(!refused.available);
  assert.equal(refused.reason, 'bwrap could not create a sandbox (bwrap: Unknown option --new-session)');
  const working = await availabilityWith('#!/bin/sh\nexec /usr/bin/bwrap "$@"\n');
  assert.equal(working.available, true, 'the same wrapper without the refusal passes');
});

test('issue 12: a bwrap that starts but does not hold its mounts (runs the command as is) is found unavailable, not trusted', async () => {
  // Skips every option, changes into --chdir's folder and runs the command unsandboxed.
  const ignoring = await availabilityWith(
    '#!/bin/sh\nwhile [ "$1" != -- ]; do [ "$1" = --chdir ] && cd "$2"; shift; done\nshift\nexec "$@"\n',
  );
  assert.ok(!ignoring.available);
  assert.match(ignoring.reason, /started a sandbox in which a path to be read-only or hidden was not$/);
  assert.match(ignoring.fix, /sandbox\.bwrap_path/);
});

test('issue 12: the pids cgroup is used only where RLIMIT_NPROC does not bind: root, or CAP_SYS_ADMIN / CAP_SYS_RESOURCE', () => {
  const status = (capabilities: string) => () => `Name:\tnode\nCapEff:\t${capabilities}\n`;
  assert.equal(rlimitExempt(0, status('0000000000000000')), true, 'root');
  assert.equal(rlimitExempt(1000, status('0000000000000000')), false, 'a user without capabilities: ulimit -p is enough');
  assert.equal(rlimitExempt(1000, status('0000000000200000')), true, 'CAP_SYS_ADMIN');
  assert.equal(rlimitExempt(1000, status('0000000001000000')), true, 'CAP_SYS_RESOURCE');
  assert.equal(rlimitExempt(1000, status('00000000000000c0')), false, 'CAP_SETGID and CAP_SETUID do not lift it');
  assert.equal(
    rlimitExempt(1000, () => ''),
    false,
    'no status: a plain user',
  );
});

test('issue 12: a .vscode, .zuno or .git that does not exist yet gets an empty read-only placeholder in workspace-write, not in read-only mode', () => {
  const missing = ['/work/project/.vscode', '/work/project/.zuno'];
  const order = mounts(bwrapArguments(plan(), '/work/project', existing(missing), (path) => path));
  for (const path of missing) {
    assert.ok(order.indexOf(`--tmpfs ${path}`) > order.indexOf('--bind /work/project /work/project'), `${path} after the workspace`);
    assert.ok(order.includes(`--remount-ro ${path}`), `${path} is read-only`);
  }
  assert.ok(order.includes('--ro-bind /work/project/.git /work/project/.git'), 'an existing one is bound read-only as before');
  const readOnly = mounts(bwrapArguments(plan({ sandbox: { mode: 'read-only' } }), '/work/project', existing(missing), (path) => path));
  assert.ok(!readOnly.some((mount) => mount.includes('.vscode')), 'nothing to hold where the workspace is read-only anyway');
});
