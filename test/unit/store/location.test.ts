// Issue 9 "State outside the workspace": the per-user state directory, for all three platforms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { defaultStateDir, sanitizedName, workspaceHash } from '../../../src/store/location';
import { resolveStateDir } from '../../../src/store/relocate';
import { temporaryDirectory } from '../../support/store-fixtures';

const hash = workspaceHash('/home/ada/src/my app');

test('issue 9 state location, Linux: $XDG_STATE_HOME/zuno/workspaces/<name>-<hash>, ~/.local/state when XDG_STATE_HOME is unset', () => {
  const base = { workspaceRoot: '/home/ada/src/my app', platform: 'linux' as const, home: '/home/ada' };
  assert.equal(defaultStateDir({ ...base, env: { XDG_STATE_HOME: '/var/xdg' } }), `/var/xdg/zuno/workspaces/my_app-${hash}`);
  assert.equal(defaultStateDir({ ...base, env: {} }), `/home/ada/.local/state/zuno/workspaces/my_app-${hash}`);
  // The XDG spec says a relative value is invalid and ignored.
  assert.equal(
    defaultStateDir({ ...base, env: { XDG_STATE_HOME: 'relative/state' } }),
    `/home/ada/.local/state/zuno/workspaces/my_app-${hash}`,
  );
});

test('issue 9 state location, macOS: ~/Library/Application Support/Zuno/workspaces/<name>-<hash>, XDG ignored', () => {
  assert.equal(
    defaultStateDir({ workspaceRoot: '/home/ada/src/my app', platform: 'darwin', home: '/Users/ada', env: { XDG_STATE_HOME: '/var/xdg' } }),
    `/Users/ada/Library/Application Support/Zuno/workspaces/my_app-${hash}`,
  );
});

test('issue 9 state location, Windows: %LOCALAPPDATA%\\Zuno\\workspaces\\<name>-<hash>, <home>\\AppData\\Local without it', () => {
  const workspaceRoot = 'C:\\Users\\ada\\src\\Project';
  const windowsHash = workspaceHash(workspaceRoot);
  assert.equal(
    defaultStateDir({ workspaceRoot, platform: 'win32', home: 'C:\\Users\\ada', env: { LOCALAPPDATA: 'D:\\Local' } }),
    `D:\\Local\\Zuno\\workspaces\\Project-${windowsHash}`,
  );
  assert.equal(
    defaultStateDir({ workspaceRoot, platform: 'win32', home: 'C:\\Users\\ada', env: {} }),
    `C:\\Users\\ada\\AppData\\Local\\Zuno\\workspaces\\Project-${windowsHash}`,
  );
});

test('issue 9 state location: the zuno.stateDir root replaces the platform folder, the workspace keeps its own directory in it', () => {
  assert.equal(
    defaultStateDir({
      workspaceRoot: '/home/ada/src/my app',
      platform: 'linux',
      home: '/home/ada',
      env: { XDG_STATE_HOME: '/var/xdg' },
      root: '/mnt/zuno',
    }),
    `/mnt/zuno/workspaces/my_app-${hash}`,
  );
});

test('issue 9 state location: weird basenames become one portable, visible folder name', () => {
  assert.equal(sanitizedName('..'), 'workspace');
  assert.equal(sanitizedName('.hidden'), 'hidden');
  assert.equal(sanitizedName(''), 'workspace');
  assert.equal(sanitizedName('a/b\\c:d*e?"f<g>|h'), 'a_b_c_d_e_f_g_h');
  assert.equal(sanitizedName('café 日本'), 'cafe');
  assert.equal(sanitizedName('x'.repeat(200)).length, 40);
  assert.match(sanitizedName('naïve…'), /^[A-Za-z0-9._-]+$/);
  // The root of a drive or of the file system has no basename.
  assert.match(
    defaultStateDir({ workspaceRoot: '/', platform: 'linux', home: '/h', env: {} }),
    /\/h\/\.local\/state\/zuno\/workspaces\/workspace-[0-9a-f]{16}$/,
  );
  assert.match(
    defaultStateDir({ workspaceRoot: 'C:\\', platform: 'win32', home: 'C:\\h', env: {} }),
    /\\Zuno\\workspaces\\workspace-[0-9a-f]{16}$/,
  );
});

test('issue 9 state location: two folders with the same name get different directories (the hash of the real path)', () => {
  const env = {};
  const first = defaultStateDir({ workspaceRoot: '/a/app', platform: 'linux', home: '/h', env });
  const second = defaultStateDir({ workspaceRoot: '/b/app', platform: 'linux', home: '/h', env });
  assert.notEqual(first, second);
  assert.match(first, /\/app-[0-9a-f]{16}$/);
});

test('issue 9 state location: a symlinked workspace shares the directory of its real path', (context) => {
  const root = realpathSync(temporaryDirectory(context));
  const real = join(root, 'project');
  mkdirSync(real);
  symlinkSync(real, join(root, 'link'));
  const choice = { platform: 'linux' as const, env: { XDG_STATE_HOME: '/xdg' }, home: '/h' };
  const viaLink = resolveStateDir({ ...choice, workspaceRoot: join(root, 'link') });
  const direct = resolveStateDir({ ...choice, workspaceRoot: real });
  assert.equal(viaLink.stateDir, direct.stateDir);
  assert.match(viaLink.stateDir, /^\/xdg\/zuno\/workspaces\/project-[0-9a-f]{16}$/);
  assert.equal(viaLink.legacyDir, join(real, '.zuno', 'state'));
});

test('issue 9 state location: --state-dir is used as given and never migrated into', () => {
  assert.deepEqual(resolveStateDir({ workspaceRoot: '/does/not/matter', explicit: '/chosen/state' }), { stateDir: '/chosen/state' });
});
