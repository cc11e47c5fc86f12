// Issue 9 "State outside the workspace": moving `<workspace>/.zuno/state` to the per-user
// directory, tested on copies of a store written by Zuno 0.1.0 (test/fixtures/stores/0.1.0).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOCK_FILE } from '../../../src/store/lock';
import { migrateStateDir, prepareStateDir, StateMigrationError } from '../../../src/store/relocate';
import { Store } from '../../../src/store/store';
import { FIXTURE_0_1_0, FIXTURE_SESSIONS } from '../../support/make-store-fixture';
import { temporaryDirectory } from '../../support/store-fixtures';

const NOW = (): Date => new Date('2026-12-02T10:00:00Z');

/** A workspace holding a copy of the 0.1.0 fixture in `.zuno/state`, and a per-user state root. */
function oldWorkspace(context: TestContext): { workspace: string; legacy: string; stateHome: string } {
  const root = temporaryDirectory(context, 'zuno-relocate-');
  const workspace = join(root, 'project');
  const legacy = join(workspace, '.zuno', 'state');
  mkdirSync(join(workspace, '.zuno'), { recursive: true });
  cpSync(FIXTURE_0_1_0, legacy, { recursive: true });
  writeFileSync(join(workspace, '.zuno', 'config.json'), '{}');
  return { workspace, legacy, stateHome: join(root, 'xdg') };
}

async function sessionsAndCalls(stateDir: string): Promise<Record<string, string[]>> {
  const store = await Store.open({ stateDir, readOnly: true });
  try {
    return Object.fromEntries(
      store
        .listSessions()
        .map((session) => [session.id, store.calls(session.id).map((call) => `${call.callId}:${call.status}:${call.output ?? ''}`)]),
    );
  } finally {
    await store.close();
  }
}

const choice = (workspace: string, stateHome: string) => ({
  workspaceRoot: workspace,
  platform: 'linux' as const,
  env: { XDG_STATE_HOME: stateHome },
  home: '/nonexistent-home',
});

test('issue 9 migration: a 0.1.0 store is copied out, verified, and the old folder is renamed to state.migrated-<date>, never deleted', async (context) => {
  const { workspace, legacy, stateHome } = oldWorkspace(context);
  const before = await sessionsAndCalls(legacy);
  assert.deepEqual(Object.keys(before).sort(), Object.keys(FIXTURE_SESSIONS).sort());

  const { stateDir, migration } = await prepareStateDir(choice(workspace, stateHome), { now: NOW });
  assert.ok(stateDir.startsWith(join(stateHome, 'zuno', 'workspaces', 'project-')));
  const migrated = join(workspace, '.zuno', 'state.migrated-2026-12-02');
  assert.equal(migration?.migratedTo, migrated);
  assert.equal(existsSync(legacy), false);
  assert.deepEqual(readdirSync(migrated).sort(), readdirSync(FIXTURE_0_1_0).sort(), 'the old copy is whole, and without our lock file');
  assert.ok(migration.notice.includes(stateDir) && migration.notice.includes(migrated), migration.notice);
  assert.deepEqual(await sessionsAndCalls(stateDir), before);
  assert.equal(readFileSync(join(workspace, '.zuno', 'config.json'), 'utf8'), '{}', 'config stays in the workspace');
  assert.equal(readdirSync(join(stateHome, 'zuno', 'workspaces')).length, 1, 'no staging folder is left beside the target');

  // The next open finds the new directory and migrates nothing.
  const again = await prepareStateDir(choice(workspace, stateHome), { now: NOW });
  assert.equal(again.stateDir, stateDir);
  assert.equal(again.migration, undefined);
});

test('issue 9 migration: the store opens for writing in its new place and resumes the old sessions', async (context) => {
  const { workspace, stateHome } = oldWorkspace(context);
  const { stateDir } = await prepareStateDir(choice(workspace, stateHome), { now: NOW });
  const store = await Store.open({ stateDir });
  try {
    assert.equal(store.getSession('session-alpha')?.status, 'done');
    store.appendMessage('session-alpha', { role: 'user', content: 'and now?' });
    assert.equal(store.messages('session-alpha').at(-1)?.content, 'and now?');
  } finally {
    await store.close();
  }
});

test('issue 9 migration: a failed copy (target not writable) fails the open naming both paths, and leaves the old folder untouched', async (context) => {
  const { workspace, legacy, stateHome } = oldWorkspace(context);
  // A file where the state root's folder should be: fails as root too, unlike a chmod.
  mkdirSync(stateHome, { recursive: true });
  writeFileSync(join(stateHome, 'zuno'), 'not a folder');
  const files = readdirSync(legacy).map((name) => [name, readFileSync(join(legacy, name), 'utf8')]);
  await assert.rejects(prepareStateDir(choice(workspace, stateHome), { now: NOW }), (error: unknown) => {
    assert.ok(error instanceof StateMigrationError);
    assert.ok(error.message.includes(legacy) && error.message.includes(join(stateHome, 'zuno', 'workspaces')), error.message);
    assert.match(error.message, /is untouched/);
    assert.match(error.message, /--state-dir/);
    return true;
  });
  assert.deepEqual(
    readdirSync(legacy).map((name) => [name, readFileSync(join(legacy, name), 'utf8')]),
    files,
    'no lock file or anything else left behind',
  );
  assert.equal(existsSync(join(workspace, '.zuno', 'state.migrated-2026-12-02')), false);
});

test('issue 9 migration: folders inside the state dir (spilled outputs, checkpoints) move with it, byte for byte', async (context) => {
  const { legacy, stateHome } = oldWorkspace(context);
  const target = join(stateHome, 'target');
  mkdirSync(join(legacy, 'outputs'));
  writeFileSync(join(legacy, 'outputs', 'spill.txt'), 'full output\u0000\u00ff');
  const result = await migrateStateDir({ from: legacy, to: target, now: NOW });
  assert.ok(result);
  assert.equal(readFileSync(join(target, 'outputs', 'spill.txt'), 'utf8'), 'full output\u0000\u00ff');
  assert.equal(readFileSync(join(result.migratedTo, 'outputs', 'spill.txt'), 'utf8'), 'full output\u0000\u00ff');
});

test('issue 9 migration: two first opens at once (CLI and editor) migrate once; both find the same store', async (context) => {
  const { workspace, stateHome } = oldWorkspace(context);
  const before = await sessionsAndCalls(join(workspace, '.zuno', 'state'));
  const [first, second] = await Promise.all([
    prepareStateDir(choice(workspace, stateHome), { now: NOW }),
    prepareStateDir(choice(workspace, stateHome), { now: NOW }),
  ]);
  assert.equal(first.stateDir, second.stateDir);
  assert.equal(
    [first.migration, second.migration].filter((migration) => migration !== undefined).length,
    1,
    'exactly one of them migrated',
  );
  assert.deepEqual(readdirSync(join(workspace, '.zuno')).sort(), ['config.json', 'state.migrated-2026-12-02']);
  assert.deepEqual(await sessionsAndCalls(first.stateDir), before);
});

test('issue 9 migration: an old store held open by another process is not copied under its feet; the open fails saying who holds it', async (context) => {
  const { legacy, stateHome } = oldWorkspace(context);
  const target = join(stateHome, 'target');
  writeFileSync(join(legacy, LOCK_FILE), JSON.stringify({ pid: 4242, host: 'elsewhere.example', token: 'old-zuno' }));
  await assert.rejects(migrateStateDir({ from: legacy, to: target, now: NOW, waitMs: 200 }), (error: unknown) => {
    assert.ok(error instanceof StateMigrationError);
    assert.match(error.message, /in use by pid 4242 on elsewhere\.example/);
    assert.match(error.message, /nothing was moved/);
    return true;
  });
  assert.equal(existsSync(target), false);
  assert.ok(existsSync(join(legacy, LOCK_FILE)), 'the other process keeps its lock');
});

test('issue 9 migration: nothing to migrate without an old folder, and an existing new folder is never overwritten', async (context) => {
  const { legacy, stateHome } = oldWorkspace(context);
  assert.equal(await migrateStateDir({ from: join(stateHome, 'absent'), to: join(stateHome, 'target') }), undefined);
  const target = join(stateHome, 'existing');
  mkdirSync(target, { recursive: true });
  writeFileSync(join(target, 'marker'), 'mine');
  assert.equal(await migrateStateDir({ from: legacy, to: target }), undefined);
  assert.deepEqual(readdirSync(target), ['marker']);
  assert.ok(existsSync(legacy));
});
