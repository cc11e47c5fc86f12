import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHAT_VIEW_ID, COMMAND_IDS, contributedManifest, PROPOSAL_CONTEXT_KEY } from '../../../../src/hosts/vscode/manifest';

const root = join(__dirname, '..', '..', '..', '..');
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
const generated = contributedManifest();

test('issue 4 contributions: package.json holds exactly the generated manifest (run scripts/contribute-manifest.ts after a change)', () => {
  assert.deepEqual(packageJson.contributes, generated.contributes);
  assert.deepEqual(packageJson.activationEvents, generated.activationEvents);
  assert.deepEqual(packageJson.categories, generated.categories);
  assert.equal(packageJson.icon, generated.icon);
  assert.deepEqual(packageJson.capabilities, generated.capabilities);
});

test('issue 4 Activation: lazy, on the Chat view or a command, never on startup', () => {
  const events = generated.activationEvents;
  assert.ok(events.includes(`onView:${CHAT_VIEW_ID}`));
  for (const command of COMMAND_IDS) assert.ok(events.includes(`onCommand:${command}`), command);
  assert.equal(
    events.some((event) => event === '*' || event === 'onStartupFinished'),
    false,
  );
});

test('issue 4 Commands: the palette has every command of the issue (and issue 10 item 2: Compact Chat Context, issue 11: MCP Servers), in category Zuno', () => {
  const commands = generated.contributes.commands as { command: string; title: string; category: string }[];
  assert.deepEqual(
    commands.map((command) => command.title),
    [
      'New Chat',
      'Cancel',
      'Show History',
      'Toggle Tools…',
      'Set Permission Mode',
      'Select Model',
      'Set API Key',
      'Open Tool Log',
      'Compact Chat Context',
      'MCP Servers',
      'Export Chat',
      'Add Selection to Chat',
      'Approve Proposed Change',
      'Deny Proposed Change',
    ],
  );
  for (const command of commands) assert.equal(command.category, 'Zuno');
});

test('issue 14 item 13: Approve and Deny sit in the diff editor title bar (check and close icons) only while a Zuno proposal is active, and in the palette only then', () => {
  const menus = generated.contributes.menus as Record<string, { command: string; when: string; group?: string }[]>;
  assert.deepEqual(menus['editor/title'], [
    { command: 'zuno.approveProposal', when: PROPOSAL_CONTEXT_KEY, group: 'navigation@1' },
    { command: 'zuno.denyProposal', when: PROPOSAL_CONTEXT_KEY, group: 'navigation@2' },
  ]);
  assert.deepEqual(menus.commandPalette, [
    { command: 'zuno.approveProposal', when: PROPOSAL_CONTEXT_KEY },
    { command: 'zuno.denyProposal', when: PROPOSAL_CONTEXT_KEY },
  ]);
  const commands = generated.contributes.commands as { command: string; icon?: string }[];
  assert.deepEqual(
    commands.filter((command) => command.command.endsWith('Proposal')).map((command) => command.icon),
    ['$(check)', '$(close)'],
  );
});

test('issue 4 Activity bar: a Zuno container with a webview view named Chat, and its icons exist', () => {
  const containers = (generated.contributes.viewsContainers as { activitybar: { id: string; title: string; icon: string }[] }).activitybar;
  assert.deepEqual(
    containers.map((container) => container.title),
    ['Zuno'],
  );
  const views = (generated.contributes.views as Record<string, { type: string; id: string; name: string }[]>)[containers[0]?.id ?? ''];
  assert.deepEqual(views, [{ type: 'webview', id: CHAT_VIEW_ID, name: 'Chat' }]);
  assert.ok(existsSync(join(root, containers[0]?.icon ?? '')));
  assert.ok(existsSync(join(root, generated.icon)));
  assert.equal(readFileSync(join(root, generated.icon)).subarray(1, 4).toString(), 'PNG', 'vsce accepts only a PNG extension icon');
});

test('issue 4 Settings: every contributed setting has a description and a default; concurrency is bounded 1..64', () => {
  const configuration = generated.contributes.configuration as { properties: Record<string, Record<string, unknown>> };
  for (const [key, entry] of Object.entries(configuration.properties)) {
    assert.equal(typeof entry.markdownDescription, 'string', key);
    assert.ok(String(entry.markdownDescription).length > 20, key);
    assert.ok('default' in entry, `${key} has a default`);
    assert.ok('type' in entry, `${key} has a type`);
  }
  for (const key of [
    'zuno.concurrency.toolCalls',
    'zuno.concurrency.delegations',
    'zuno.concurrency.mcpConnections',
    'zuno.concurrency.lspRequests',
  ]) {
    assert.equal(configuration.properties[key]?.minimum, 1, key);
    assert.equal(configuration.properties[key]?.maximum, 64, key);
    assert.equal(configuration.properties[key]?.type, 'integer', key);
  }
  assert.equal(configuration.properties['zuno.ripgrep.path']?.scope, 'machine', 'a workspace cannot choose which rg binary runs');
});

test('issue 14 item 14: Add Selection to Chat is in the editor context menu only when there is a selection', () => {
  const menus = generated.contributes.menus as Record<string, { command: string; when: string }[]>;
  assert.deepEqual(
    menus['editor/context']?.map(({ command, when }) => ({ command, when })),
    [{ command: 'zuno.addSelectionToChat', when: 'editorHasSelection' }],
  );
});
