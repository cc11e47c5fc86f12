import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StartupError } from '../../../../src/core/errors';
import { createNodeHost } from '../../../../src/hosts/node/host';
import { parseRipgrepVersion, resolveRipgrep } from '../../../../src/hosts/node/ripgrep';
import { approveEverything, makeTempDir, removeDir } from '../../../support/tool-context';

const scratch = makeTempDir('zuno-rg-');
after(() => removeDir(scratch));

/** A stand-in `rg` that prints the given version and logs each call. */
function fakeRipgrep(name: string, version: string): string {
  const path = join(scratch, name);
  writeFileSync(path, `#!/bin/sh\necho called >> "${path}.log"\necho "ripgrep ${version}"\n`);
  chmodSync(path, 0o755);
  return path;
}

test('S4: the bundled rg is found and is version 14 or newer', async () => {
  const binary = await resolveRipgrep({ env: { PATH: '' } });
  assert.match(binary.path, /@vscode[\\/]ripgrep-/);
  assert.ok(Number(binary.version.split('.')[0]) >= 14);
});

test('S4: ZUNO_RG_PATH wins over config ripgrep.path, which wins over the bundled rg', async () => {
  const fromEnv = fakeRipgrep('rg-env', '14.1.0');
  const fromConfig = fakeRipgrep('rg-config', '15.2.0');
  assert.deepEqual(await resolveRipgrep({ env: { ZUNO_RG_PATH: fromEnv }, configuredPath: fromConfig }), {
    path: fromEnv,
    version: '14.1.0',
  });
  assert.deepEqual(await resolveRipgrep({ env: {}, configuredPath: fromConfig }), { path: fromConfig, version: '15.2.0' });
});

test('S4: an rg older than 14 is a startup error that says how to fix it', async () => {
  const old = fakeRipgrep('rg-old', '13.0.0');
  await assert.rejects(resolveRipgrep({ env: { ZUNO_RG_PATH: old } }), (error: unknown) => {
    assert.ok(error instanceof StartupError);
    assert.match(error.message, /ripgrep 13\.0\.0 .* too old/);
    assert.match(error.message, /ZUNO_RG_PATH/);
    assert.match(error.message, /ripgrep\.path/);
    return true;
  });
});

test('S4: an explicit path that is missing or not rg fails without falling back to another rg', async () => {
  await assert.rejects(resolveRipgrep({ env: { ZUNO_RG_PATH: join(scratch, 'nothing-here') } }), (error: unknown) => {
    assert.ok(error instanceof StartupError);
    assert.match(error.message, /ripgrep was not found/);
    assert.match(error.message, /ZUNO_RG_PATH: .*nothing-here \(not found\)/);
    assert.doesNotMatch(error.message, /bundled/);
    return true;
  });
  const impostor = join(scratch, 'impostor');
  writeFileSync(impostor, '#!/bin/sh\necho "grep (GNU grep) 3.11"\n');
  chmodSync(impostor, 0o755);
  await assert.rejects(resolveRipgrep({ env: {}, configuredPath: impostor }), /config ripgrep\.path: .*impostor .*not ripgrep/);
});

test('S4: the version line of every rg release format parses', () => {
  assert.deepEqual(parseRipgrepVersion('ripgrep 15.0.0 (rev 3a612f88b8)\n\nfeatures:+pcre2'), { version: '15.0.0', major: 15 });
  assert.deepEqual(parseRipgrepVersion('ripgrep 14.1.1\n'), { version: '14.1.1', major: 14 });
  assert.equal(parseRipgrepVersion('rg: command not found'), undefined);
});

test('S4: the host resolves rg once and reports a bad ZUNO_RG_PATH as a StartupError', async () => {
  const counted = fakeRipgrep('rg-counted', '14.0.3');
  const old = fakeRipgrep('rg-old-host', '13.0.0');
  const previous = process.env.ZUNO_RG_PATH;
  try {
    process.env.ZUNO_RG_PATH = counted;
    const host = createNodeHost({ stateDir: scratch, approvals: approveEverything });
    assert.equal((await host.ripgrep()).version, '14.0.3');
    assert.equal((await host.ripgrep()).version, '14.0.3');
    assert.equal(readFileSync(`${counted}.log`, 'utf8'), 'called\n');

    process.env.ZUNO_RG_PATH = old;
    const oldHost = createNodeHost({ stateDir: scratch, approvals: approveEverything, ripgrepPath: counted });
    await assert.rejects(oldHost.ripgrep(), StartupError);
  } finally {
    if (previous === undefined) delete process.env.ZUNO_RG_PATH;
    else process.env.ZUNO_RG_PATH = previous;
  }
});
