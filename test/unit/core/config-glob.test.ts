// Rule globs are compiled when the config loads (issue 8, "Globs from a library"; SPEC §9).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { globPattern, parseConfig, textGlobPattern, type PermissionRule } from '../../../src/core/config';
import { ConfigError } from '../../../src/core/errors';
import { evaluatePermission } from '../../../src/core/policy';

const root = '/work/project';

function configError(raw: unknown): string {
  try {
    parseConfig(raw, '.zuno/config.json');
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error.message;
  }
  return assert.fail('expected the config to be rejected');
}

const rules = (...list: PermissionRule[]) => ({ permission: { rules: list } });

test('issue 8 §9: an invalid rule glob is a config error naming the key, the rule index and the glob', () => {
  const message = configError(
    rules(
      { tool: 'read', action: 'allow' },
      { tool: 'read', match: 'src/**', action: 'allow' },
      { tool: 'grep', match: '[z-a]', action: 'deny' },
    ),
  );
  assert.match(
    message,
    /^Invalid \.zuno\/config\.json:\npermission\.rules\[2\]\.match "\[z-a\]" is not a valid glob: Range out of order in character class/,
  );
  assert.match(
    configError(rules({ tool: '*', match: 'secrets/[abc', action: 'deny' })),
    /permission\.rules\[0\]\.match "secrets\/\[abc" is not a valid glob: a "\[" is never closed; write \\\[ for a literal \[/,
  );
  assert.match(configError(rules({ tool: 'read', match: '', action: 'deny' })), /permission\.rules\[0\]\.match must be a glob, not empty/);
});

test('issue 8 §9: every bad rule is reported at once, with the other config errors', () => {
  const message = configError({
    ...rules({ tool: 'read', match: 'a{1..3}', action: 'deny' }, { tool: 'write', match: 'b\\', action: 'deny' }),
    concurrency: { tool_calls: 0 },
  });
  assert.match(message, /permission\.rules\[0\]\.match "a\{1\.\.3\}" is not a valid glob: ranges like \{1\.\.9\} are not supported/);
  assert.match(message, /permission\.rules\[1\]\.match "b\\\\" is not a valid glob: a trailing \\ escapes nothing/);
  assert.match(message, /concurrency\.tool_calls must be an integer from 1 to 64/);
});

test('issue 8: a rule that may meet a path is held to the path wildcard limit; shell and URL rules are not', () => {
  assert.match(
    configError(rules({ tool: 'read', match: '*a*a*a*b', action: 'deny' })),
    /permission\.rules\[0\]\.match "\*a\*a\*a\*b" is not a valid glob for the paths of tool "read": it has 4 wildcards/,
  );
  assert.match(configError(rules({ tool: '*', match: '*curl*|*sh*', action: 'deny' })), /for the paths of tool "\*"/);
  const config = parseConfig(
    rules({ tool: 'shell', match: '*curl*|*sh*', action: 'deny' }, { tool: 'webfetch', match: 'https://*.*.*.example/*', action: 'deny' }),
  );
  assert.equal(config.permission.rules.length, 2);
});

test('issue 8: a shell rule is a text glob, where brackets are plain, so `[[ -f * ]]` is valid there and not for every tool', () => {
  assert.equal(parseConfig(rules({ tool: 'shell', match: '[[ -f * ]] && echo ]', action: 'allow' })).permission.rules.length, 1);
  assert.match(
    configError(rules({ tool: '*', match: '[[ -f * ]]', action: 'allow' })),
    /permission\.rules\[0\]\.match "\[\[ -f \* \]\]" is not a valid glob: a "\]" closes nothing/,
  );
  assert.match(
    configError(rules({ tool: 'shell', match: 'echo \\', action: 'allow' })),
    /a trailing \\ escapes nothing/,
    'a text glob can still be invalid',
  );
});

test('issue 8: `globPattern` and `textGlobPattern` validate globs under any config key, naming the index', () => {
  const schema = z.strictObject({ include: z.array(globPattern) });
  const result = schema.safeParse({ include: ['*_KEY', '[z-a]'] });
  assert.equal(result.success, false);
  assert.deepEqual(
    result.error?.issues.map((issue) => issue.path),
    [['include', 1]],
  );
  assert.match(result.error?.issues[0]?.message ?? '', /"\[z-a\]" is not a valid glob/);
  assert.deepEqual(schema.parse({ include: ['*_KEY', 'AWS_*'] }), { include: ['*_KEY', 'AWS_*'] });
  assert.match(
    globPattern.safeParse('**/*a*/**').error?.issues[0]?.message ?? '',
    /it has 4 wildcards/,
    'path globs are held to the wildcard limit',
  );
  assert.equal(textGlobPattern.safeParse('*a*[*]*b*').success, true, 'text globs are not');
});

test('issue 8 E1: rules with classes decide calls after loading: `[\\d]` is a digit, `[!…]` negates, `secrets/**` covers dotfiles and the folder', () => {
  const config = parseConfig(
    rules(
      { tool: '*', match: 'logs/v[\\d].txt', action: 'deny' },
      { tool: '*', match: 'secrets/**', action: 'deny' },
      { tool: 'write', match: 'out/[!.]*', action: 'allow' },
    ),
  );
  const decide = (tool: string, path: string) =>
    evaluatePermission({
      tool,
      declarations: { effect: tool === 'read' ? 'ReadOnly' : 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
      subjects: [{ kind: 'path', value: `${root}/${path}`, outsideWorkspace: false }],
      permission: config.permission,
      workspaceRoot: root,
    }).action;
  assert.equal(decide('read', 'logs/v7.txt'), 'deny');
  assert.equal(decide('read', 'logs/vd.txt'), 'allow');
  assert.equal(decide('read', 'secrets/.env'), 'deny');
  assert.equal(decide('grep', 'secrets'), 'deny');
  assert.equal(decide('write', 'out/a.txt'), 'allow');
  assert.equal(decide('write', 'out/.hidden'), 'ask', 'strict mode asks when no allow rule covers the write');
});
