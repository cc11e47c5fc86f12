import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfig } from '../../../src/core/config';
import { ConfigError } from '../../../src/core/errors';
import { DEFAULT_ENVIRONMENT_POLICY, environmentPolicy, filterEnvironment, type EnvironmentPolicy } from '../../../src/core/environment';

const SAMPLE = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/me',
  LANG: 'C.UTF-8',
  ZUNO_API_KEY: 'zuno-key',
  OPENAI_API_KEY: 'openai-key',
  ANTHROPIC_API_KEY: 'anthropic-key',
  OPENROUTER_API_KEY: 'openrouter-key',
  GITHUB_TOKEN: 'gh-token',
  MY_SECRET: 'secret',
  DB_PASSWORD: 'pw',
  AWS_SHARED_CREDENTIALS_FILE: '/home/me/.aws/credentials',
  MY_PROVIDER: 'value-of-an-oddly-named-key-variable',
  UNSET: undefined,
};

const names = (environment: Record<string, string>): string[] => Object.keys(environment).sort();

test('issue 8 §9 env filter: by default secrets and provider keys are dropped, everything else passes', () => {
  const kept = filterEnvironment(SAMPLE, DEFAULT_ENVIRONMENT_POLICY);
  assert.deepEqual(names(kept), ['HOME', 'LANG', 'MY_PROVIDER', 'PATH']);
  assert.equal(kept.PATH, SAMPLE.PATH);
});

test('issue 8 §9 env filter: the name match is case-insensitive', () => {
  const kept = filterEnvironment(
    { github_token: 'a', Npm_Token: 'b', apikey: 'c', Zuno_Api_Key: 'd', db_Password: 'e', editor: 'vi' },
    DEFAULT_ENVIRONMENT_POLICY,
  );
  assert.deepEqual(names(kept), ['editor']);
});

test('issue 8 §9 env filter: the configured key variable is dropped whatever its name (model.api_key_env and --api-key-env)', () => {
  const config = parseConfig({ model: { api_key_env: 'MY_PROVIDER' } });
  assert.equal(filterEnvironment(SAMPLE, environmentPolicy(config)).MY_PROVIDER, undefined);
  const fromFlag = environmentPolicy(parseConfig({}), ['my_provider']);
  assert.equal(filterEnvironment(SAMPLE, fromFlag).MY_PROVIDER, undefined);
  assert.equal(filterEnvironment(SAMPLE, environmentPolicy(parseConfig({}))).MY_PROVIDER, SAMPLE.MY_PROVIDER);
});

test('issue 8 §9 env filter: shell.env.include passes a variable through on purpose, beating the default drop', () => {
  const policy = environmentPolicy(parseConfig({ shell: { env: { include: ['github_*', 'ZUNO_API_KEY'] } } }));
  const kept = filterEnvironment(SAMPLE, policy);
  assert.equal(kept.GITHUB_TOKEN, 'gh-token');
  assert.equal(kept.ZUNO_API_KEY, 'zuno-key');
  assert.equal(kept.MY_SECRET, undefined, 'include passes only what it names');
  assert.equal(kept.OPENAI_API_KEY, undefined);
});

test('issue 8 §9 env filter: shell.env.exclude drops more, and beats include', () => {
  const policy: EnvironmentPolicy = { include: ['GITHUB_TOKEN', 'LANG'], exclude: ['lang', 'HOME*'], keyVariables: [] };
  const kept = filterEnvironment(SAMPLE, policy);
  assert.deepEqual(names(kept), ['GITHUB_TOKEN', 'MY_PROVIDER', 'PATH']);
});

test('issue 8 §9 config: shell.env.include and exclude must be lists of names', () => {
  assert.deepEqual(parseConfig({}).shell.env, { include: [], exclude: [] });
  assert.throws(
    () => parseConfig({ shell: { env: { include: 'NPM_TOKEN' } } }),
    (error: unknown) => error instanceof ConfigError && /shell\.env\.include/.test(error.message),
  );
  assert.throws(
    () => parseConfig({ shell: { env: { pass: [] } } }),
    (error: unknown) => error instanceof ConfigError && /shell\.env\.pass is not a known setting/.test(error.message),
  );
});
