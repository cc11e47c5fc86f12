// `npm install && npm start` on a fresh machine (issue 14, item 15): npm start installs missing
// system packages itself when it may, and otherwise prints the one command and exits 2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT_NEEDS_SETUP, planSystemSetup, runSetupCommands, type SetupEnvironment } from '../../../scripts/system-setup';

const krb5 = { name: 'libkrb5-dev', why: 'code-server builds its kerberos native module against it' };
const tools = { name: 'build-essential', why: 'node-gyp compiles code-server native modules' };

function environment(overrides: Partial<SetupEnvironment>): SetupEnvironment {
  return { missing: [krb5, tools], isRoot: false, hasAptGet: true, passwordlessSudo: () => false, ...overrides };
}

test('issue 14 item 15: nothing missing means nothing to do, and sudo is not even probed', () => {
  let probed = false;
  const plan = planSystemSetup(environment({ missing: [], passwordlessSudo: () => (probed = true) }));
  assert.deepEqual(plan, { kind: 'ready' });
  assert.equal(probed, false);
});

test('issue 14 item 15: as root, npm start installs the missing packages with apt-get itself, non-interactively', () => {
  const plan = planSystemSetup(environment({ isRoot: true }));
  assert.equal(plan.kind, 'install');
  if (plan.kind !== 'install') return;
  assert.deepEqual(
    plan.commands.map((command) => command.display),
    ['apt-get update', 'apt-get install -y --no-install-recommends libkrb5-dev build-essential'],
  );
  assert.deepEqual(plan.commands[1]?.argv, [
    'env',
    'DEBIAN_FRONTEND=noninteractive',
    'apt-get',
    'install',
    '-y',
    '--no-install-recommends',
    'libkrb5-dev',
    'build-essential',
  ]);
});

test('issue 14 item 15: with passwordless sudo, the same commands run through sudo -n (never waiting for a password)', () => {
  const plan = planSystemSetup(environment({ passwordlessSudo: () => true }));
  assert.equal(plan.kind, 'install');
  if (plan.kind !== 'install') return;
  for (const command of plan.commands) {
    assert.deepEqual(command.argv.slice(0, 4), ['sudo', '-n', 'env', 'DEBIAN_FRONTEND=noninteractive']);
    assert.match(command.display, /^sudo apt-get /);
  }
});

test('issue 14 item 15: without root or passwordless sudo, it prints one command naming every package and why, and exits 2', () => {
  const plan = planSystemSetup(environment({}));
  assert.equal(plan.kind, 'instruct');
  if (plan.kind !== 'instruct') return;
  assert.match(plan.message, /libkrb5-dev: code-server builds its kerberos/);
  assert.match(plan.message, /build-essential: node-gyp/);
  const commandLines = plan.message.split('\n').filter((line) => line.includes('apt-get install'));
  assert.deepEqual(commandLines, [
    "  sudo sh -c 'apt-get update && apt-get install -y --no-install-recommends libkrb5-dev build-essential'",
  ]);
  assert.equal(EXIT_NEEDS_SETUP, 2);
});

test('issue 14 item 15: a machine without apt-get is told to use its own package manager, not handed an apt-get line', () => {
  const plan = planSystemSetup(environment({ isRoot: true, hasAptGet: false }));
  assert.equal(plan.kind, 'instruct');
  if (plan.kind !== 'instruct') return;
  assert.match(plan.message, /no apt-get/);
  assert.doesNotMatch(plan.message, /apt-get install/);
});

test('issue 14 item 15: the commands run in order, each said before it runs; the first failure stops the rest and is named', () => {
  const dir = mkdtempSync(join(tmpdir(), 'zuno-setup-'));
  const said: string[] = [];
  const first = { argv: ['sh', '-c', `echo one > ${join(dir, 'one')}`], display: 'first step' };
  const failing = { argv: ['sh', '-c', 'exit 3'], display: 'apt-get install -y nothing' };
  const never = { argv: ['sh', '-c', `echo three > ${join(dir, 'three')}`], display: 'third step' };
  assert.throws(
    () => runSetupCommands([first, failing, never], (line) => said.push(line), 'ignore'),
    /"apt-get install -y nothing" exited with 3; fix what it printed above, then run npm start again/,
  );
  assert.equal(readFileSync(join(dir, 'one'), 'utf8'), 'one\n');
  assert.equal(existsSync(join(dir, 'three')), false);
  assert.deepEqual(said, ['running: first step', 'running: apt-get install -y nothing']);
});

test('issue 14 item 15: a program that cannot be started is reported by its command line', () => {
  assert.throws(
    () => runSetupCommands([{ argv: ['/nonexistent/apt-get', 'update'], display: 'apt-get update' }], () => undefined, 'ignore'),
    /could not run "apt-get update"/,
  );
});
