import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { skillTool, parseSkillFile } from '../../../src/tools/skill';
import { createNodeHost } from '../../../src/hosts/node/host';
import { approveEverything, makeTempDir, makeToolContext, removeDir } from '../../support/tool-context';

const workspace = makeTempDir();
const userDirectory = makeTempDir('zuno-user-');
after(() => {
  removeDir(workspace);
  removeDir(userDirectory);
});

function writeSkill(root: string, folder: string, text: string): void {
  mkdirSync(join(root, folder), { recursive: true });
  writeFileSync(join(root, folder, 'SKILL.md'), text);
}

writeSkill(
  join(workspace, '.zuno', 'skills'),
  'release',
  '---\nname: release\ndescription: Cut a release\n---\nRun the tests, then tag.\n',
);
writeSkill(join(workspace, '.zuno', 'skills'), 'broken', '---\nname: [unclosed\n---\nbody\n');
writeSkill(join(workspace, '.zuno', 'skills'), 'nameless', 'no frontmatter here\n');
writeSkill(join(userDirectory, 'skills'), 'release', '---\nname: release\ndescription: the user-level one\n---\nshadowed\n');
writeSkill(join(userDirectory, 'skills'), 'review', '---\r\nname: review\r\ndescription: Review a diff\r\n---\r\nLook for bugs.\r\n');

function context() {
  const host = { ...createNodeHost({ stateDir: join(workspace, '.zuno', 'state'), approvals: approveEverything }), userDirectory };
  return makeToolContext({ workspaceRoot: workspace, host });
}

test('S1/R1: skill is ReadOnly, Safe and ParallelSafe for every action', () => {
  for (const action of ['list', 'load'] as const) {
    assert.deepEqual(skillTool.declarationsFor({ action }), { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' });
  }
});

test('issue 3: skill list shows workspace and user skills, workspace shadowing user, and reports malformed ones', async () => {
  const result = await skillTool.run({ action: 'list' }, context());
  assert.match(result.output, /- release \(workspace\): Cut a release/);
  assert.match(result.output, /- review \(user\): Review a diff/);
  assert.doesNotMatch(result.output, /the user-level one/);
  assert.match(result.output, /Skipped 2 malformed skill file\(s\)/);
  assert.match(result.output, /broken\/SKILL\.md has invalid YAML frontmatter/);
  assert.match(result.output, /nameless\/SKILL\.md has no frontmatter/);
});

test('issue 3: skill load returns the body; CRLF files load too', async () => {
  const release = await skillTool.run({ action: 'load', name: 'release' }, context());
  assert.match(release.output, /Run the tests, then tag\./);
  const review = await skillTool.run({ action: 'load', name: 'review' }, context());
  assert.match(review.output, /Look for bugs\./);
});

test('issue 3: skill load of an unknown or malformed skill is a clear error', async () => {
  await assert.rejects(skillTool.run({ action: 'load', name: 'nope' }, context()), /No skill named "nope". Known skills: release, review/);
  await assert.rejects(skillTool.run({ action: 'load' }, context()), /`load` needs a `name`/);
});

test('issue 3: skill arguments are validated: unknown action is refused', () => {
  const parsed = skillTool.parse({ action: 'delete' });
  assert.equal(parsed.success, false);
});

test('issue 3: parseSkillFile requires name and description', () => {
  assert.throws(() => parseSkillFile('---\nname: x\n---\nbody'), /description/);
  assert.deepEqual(parseSkillFile('---\nname: x\ndescription: y\n---\nbody\n'), { name: 'x', description: 'y', body: 'body' });
});
