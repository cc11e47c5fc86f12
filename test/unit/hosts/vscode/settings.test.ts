import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_CONFIG, parseConfig } from '../../../../src/core/config';
import {
  describedConfigPaths,
  resolveConfig,
  settingDefinitions,
  settingKeyFor,
  settingsToConfigInput,
  STATE_DIR_SETTING,
  stateRootSetting,
  type ConfigLayer,
} from '../../../../src/hosts/vscode/settings';
import { contributedManifest } from '../../../../src/hosts/vscode/manifest';

const file = (raw: unknown): ConfigLayer => ({ kind: 'file', source: '/repo/.zuno/config.json', raw });
const user = (values: Record<string, unknown>): ConfigLayer => ({ kind: 'settings', source: 'User settings', values });
const workspace = (values: Record<string, unknown>): ConfigLayer => ({ kind: 'settings', source: 'Workspace settings', values });

function resolved(layers: ConfigLayer[]) {
  const result = resolveConfig(layers);
  if (!result.ok) assert.fail(result.message);
  return result.config;
}

function problem(layers: ConfigLayer[]): string {
  const result = resolveConfig(layers);
  assert.equal(result.ok, false, 'expected the configuration to be rejected');
  return result.ok ? '' : result.message;
}

test('§9 config sources: every config key is a contributed setting, and every described key exists', () => {
  const paths = settingDefinitions().map((definition) => definition.path.join('.'));
  assert.deepEqual([...paths].sort(), [...describedConfigPaths()].sort());
  for (const expected of [
    'concurrency.tool_calls',
    'tools',
    'tool_output.max_bytes',
    'permission.mode',
    'permission.rules',
    'hooks.pre_tool',
    'ripgrep.path',
    'model.base_url',
    'agents',
  ]) {
    assert.ok(paths.includes(expected), expected);
  }
});

test('§9: setting names are camelCase per config segment under zuno.', () => {
  assert.equal(settingKeyFor(['concurrency', 'tool_calls']), 'zuno.concurrency.toolCalls');
  assert.equal(settingKeyFor(['tool_output', 'max_bytes']), 'zuno.toolOutput.maxBytes');
  assert.equal(settingKeyFor(['web_search', 'max_results']), 'zuno.webSearch.maxResults');
  assert.equal(settingKeyFor(['tools']), 'zuno.tools');
});

test('C3, O1: each contributed range is exactly the range the one schema accepts', () => {
  const ranged = settingDefinitions().filter((definition) => definition.info.minimum !== undefined);
  assert.ok(ranged.length >= 10);
  for (const definition of ranged) {
    const { minimum = 0, maximum = 0 } = definition.info;
    const at = (value: number) => resolveConfig([user({ [definition.key]: value })]);
    assert.equal(at(minimum).ok, true, `${definition.key} accepts ${minimum}`);
    assert.equal(at(maximum).ok, true, `${definition.key} accepts ${maximum}`);
    assert.equal(at(minimum - 1).ok, false, `${definition.key} rejects ${minimum - 1}`);
    assert.equal(at(maximum + 1).ok, false, `${definition.key} rejects ${maximum + 1}`);
  }
  const concurrency = ranged.filter((definition) => definition.path[0] === 'concurrency');
  assert.equal(concurrency.length, 4);
  for (const definition of concurrency) assert.deepEqual([definition.info.minimum, definition.info.maximum], [1, 64]);
});

test('C3, O1: the defaults of the settings are the schema defaults', () => {
  assert.deepEqual(resolved([]), DEFAULT_CONFIG);
  const byKey = new Map(settingDefinitions().map((definition) => [definition.key, definition.defaultValue]));
  assert.equal(byKey.get('zuno.concurrency.toolCalls'), 8);
  assert.equal(byKey.get('zuno.concurrency.lspRequests'), 4);
  assert.equal(byKey.get('zuno.toolOutput.maxBytes'), 51200);
  assert.equal(byKey.get('zuno.toolOutput.maxLines'), 2000);
  assert.equal(byKey.get('zuno.permission.mode'), 'strict');
  assert.equal(byKey.get('zuno.model.baseUrl'), 'http://127.0.0.1:11434/v1');
});

test('issue 4 Settings: an out-of-range setting is rejected with a message naming the setting and where it is set', () => {
  const message = problem([workspace({ 'zuno.concurrency.toolCalls': 65 })]);
  assert.match(message, /zuno\.concurrency\.toolCalls \(Workspace settings\) must be an integer from 1 to 64 \(got 65\)/);
  assert.match(
    problem([user({ 'zuno.concurrency.toolCalls': 0 })]),
    /zuno\.concurrency\.toolCalls \(User settings\) must be an integer from 1 to 64 \(got 0\)/,
  );
});

test('issue 4 Settings: a bad field deep inside a setting is named with its index', () => {
  const message = problem([
    user({
      'zuno.permission.rules': [
        { tool: 'shell', action: 'allow' },
        { tool: 'write', action: 'always' },
      ],
    }),
  ]);
  assert.match(message, /zuno\.permission\.rules\[1\]\.action \(User settings\)/);
  const unknown = problem([user({ 'zuno.hooks.preTool': [{ command: 'x', timeoutMs: 5 }] })]);
  assert.match(unknown, /zuno\.hooks\.preTool\[0\]\.timeoutMs \(User settings\) is not a known field/);
});

test('issue 8 §9: an invalid glob in zuno.permission.rules is reported like any bad value, naming the setting, the rule and the source', () => {
  const layers = [
    user({ 'zuno.concurrency.toolCalls': 4 }),
    workspace({
      'zuno.permission.rules': [
        { tool: 'read', match: 'src/**', action: 'allow' },
        { tool: '*', match: '[z-a]', action: 'deny' },
      ],
    }),
  ];
  assert.match(
    problem(layers),
    /zuno\.permission\.rules\[1\]\.match \(Workspace settings\) "\[z-a\]" is not a valid glob: Range out of order in character class/,
  );
  assert.match(
    problem([file({ permission: { rules: [{ tool: 'read', match: 'a{1..3}', action: 'deny' }] } })]),
    /permission\.rules\[0\]\.match "a\{1\.\.3\}" is not a valid glob: .* \(\/repo\/\.zuno\/config\.json\)/,
  );
  // Fixing the glob restores every setting; an invalid rule is never skipped, since that could loosen permissions.
  const fixed = resolved([
    user({ 'zuno.concurrency.toolCalls': 4 }),
    workspace({ 'zuno.permission.rules': [{ tool: 'shell', match: '[a-z]*', action: 'deny' }] }),
  ]);
  assert.equal(fixed.concurrency.tool_calls, 4);
  assert.deepEqual(fixed.permission.rules, [{ tool: 'shell', match: '[a-z]*', action: 'deny' }]);
});

test('issue 4 Settings: a bad value in .zuno/config.json is named as written in the file, with the file', () => {
  const message = problem([file({ concurrency: { tool_calls: 100 } })]);
  assert.match(message, /concurrency\.tool_calls must be an integer from 1 to 64 \(got 100\) \(\/repo\/\.zuno\/config\.json\)/);
  assert.match(problem([file({ concurency: {} })]), /concurency is not a known setting \(\/repo\/\.zuno\/config\.json\)/);
});

test('issue 4 Settings precedence: defaults < .zuno/config.json < User < Workspace settings', () => {
  const layers = [
    file({ concurrency: { tool_calls: 2, delegations: 3 }, permission: { mode: 'auto-edit' }, shell: { default_timeout_ms: 5000 } }),
    user({ 'zuno.concurrency.toolCalls': 4, 'zuno.permission.mode': 'auto' }),
    workspace({ 'zuno.concurrency.toolCalls': 6 }),
  ];
  const config = resolved(layers);
  assert.equal(config.concurrency.tool_calls, 6, 'workspace settings beat user settings and the file');
  assert.equal(config.permission.mode, 'auto', 'user settings beat the file');
  assert.equal(config.concurrency.delegations, 3, 'the file beats the defaults');
  assert.equal(config.shell.default_timeout_ms, 5000);
  assert.equal(config.concurrency.mcp_connections, 8, 'defaults fill the rest');
});

test('A1 + issue 4 Settings: zuno.tools merges with the file name by name', () => {
  const config = resolved([file({ tools: { webfetch: false, grep: false } }), user({ 'zuno.tools': { webfetch: true, shell: false } })]);
  assert.deepEqual(config.tools, { webfetch: true, grep: false, shell: false });
});

test('§9 permission rules: rules from settings add to the file rules and never hide a file deny', () => {
  const deny = { tool: 'shell', match: 'rm *', action: 'deny' };
  const allow = { tool: 'shell', match: 'npm test', action: 'allow' };
  const config = resolved([file({ permission: { rules: [deny] } }), workspace({ 'zuno.permission.rules': [allow] })]);
  assert.deepEqual(config.permission.rules, [deny, allow]);
  const hooks = resolved([file({ hooks: { pre_tool: [{ command: 'a' }] } }), user({ 'zuno.hooks.preTool': [{ command: 'b' }] })]);
  assert.deepEqual(
    hooks.hooks.pre_tool.map((hook) => hook.command),
    ['a', 'b'],
  );
});

test("issue 8 §3: zuno.permission.protected adds to the file's protected globs and never drops them", () => {
  const config = resolved([
    file({ permission: { protected: ['deploy/**'] } }),
    workspace({ 'zuno.permission.protected': ['secrets.env'] }),
  ]);
  assert.deepEqual(config.permission.protected, ['deploy/**', 'secrets.env']);
  assert.match(problem([user({ 'zuno.permission.protected': [''] })]), /zuno\.permission\.protected\[0\]/);
});

test('issue 4 Settings: an invalid layer invalidates the whole config instead of being skipped', () => {
  // Skipping a malformed rule list would drop its deny rules and so loosen permissions.
  const message = problem([
    file({ permission: { rules: [{ tool: 'shell', action: 'deny' }] } }),
    user({ 'zuno.permission.rules': 'deny everything' }),
  ]);
  assert.match(message, /zuno\.permission\.rules \(User settings\)/);
});

test('issue 4 Settings: a cleared optional text setting means unset, not an invalid empty value', () => {
  assert.deepEqual(settingsToConfigInput({ 'zuno.ripgrep.path': '', 'zuno.model.name': '', 'zuno.webSearch.provider': '' }), {});
  const config = resolved([file({ model: { name: 'from-file' } }), user({ 'zuno.model.name': '' })]);
  assert.equal(config.model.name, 'from-file');
  assert.match(problem([user({ 'zuno.model.baseUrl': '' })]), /zuno\.model\.baseUrl \(User settings\)/);
});

test('§9: settings values keep the config file shape, so one schema validates both', () => {
  const raw = settingsToConfigInput({
    'zuno.toolOutput.maxLines': 300,
    'zuno.agents': { reviewer: { tools: ['read'], max_steps: 5 } },
    'zuno.model.provider': 'anthropic',
  });
  assert.deepEqual(raw, {
    tool_output: { max_lines: 300 },
    agents: { reviewer: { tools: ['read'], max_steps: 5 } },
    model: { provider: 'anthropic' },
  });
  assert.equal(parseConfig(raw).agents.reviewer?.max_steps, 5);
});

test('issue 9 State outside the workspace: zuno.stateDir is a machine-scoped setting that neither .zuno/config.json nor workspace settings can set', () => {
  const properties = (contributedManifest().contributes.configuration as { properties: Record<string, Record<string, unknown>> })
    .properties;
  assert.equal(properties[STATE_DIR_SETTING]?.scope, 'machine');
  assert.equal(properties[STATE_DIR_SETTING]?.default, '');
  assert.equal(
    settingDefinitions().some((definition) => definition.key === STATE_DIR_SETTING),
    false,
    'not a config key',
  );
  assert.match(problem([file({ state_dir: '/elsewhere' })]), /state_dir/);
  assert.match(problem([file({ stateDir: '/elsewhere' })]), /stateDir/);
  // The extension reads only the User value (activate.ts); in a settings layer it is no config key.
  assert.deepEqual(settingsToConfigInput({ [STATE_DIR_SETTING]: '/elsewhere' }), {});
});

test('issue 9: the zuno.stateDir value is a folder: empty means the default, ~ is the home folder, a relative path is refused', () => {
  assert.equal(stateRootSetting('', '/home/ada'), undefined);
  assert.equal(stateRootSetting(undefined, '/home/ada'), undefined);
  assert.equal(stateRootSetting('~/zuno-state', '/home/ada'), '/home/ada/zuno-state');
  assert.equal(stateRootSetting('/srv/zuno', '/home/ada'), '/srv/zuno');
  assert.throws(
    () => stateRootSetting('state', '/home/ada'),
    /zuno\.stateDir \(User settings\) must be an absolute folder path.*got "state"/,
  );
  assert.throws(() => stateRootSetting(42, '/home/ada'), /zuno\.stateDir/);
});
