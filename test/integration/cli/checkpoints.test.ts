// Checkpoints and rewind through the built CLI (issue 13): `zuno exec` with a scripted model
// changes files with write, shell, apply_patch; `zuno checkpoints` and `zuno rewind` restore them,
// against the real git, in a workspace that is itself a git repository with a nested one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { eventsOf, execArgs, runZuno, temporaryWorkspace, useBuiltCli, useScriptedServers, type CliRun } from './cli';

useBuiltCli();
const scripted = useScriptedServers();

/** Every file below `folder` with its mode and bytes. */
function fingerprint(folder: string): Record<string, string> {
  const result: Record<string, string> = {};
  const walk = (directory: string): void => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else result[relative(folder, path)] = `${statSync(path).mode.toString(8)} ${readFileSync(path).toString('base64')}`;
    }
  };
  walk(folder);
  return result;
}

/** The workspace's files, without the user's and the nested repository's .git. */
function workspaceFiles(workspace: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(fingerprint(workspace)).filter(([path]) => !path.startsWith('.git/') && !path.includes('/.git/')),
  );
}

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
  });

function json<T>(run: CliRun): T {
  assert.ok(run.stdout.trim() !== '', `no JSON on stdout; stderr: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

interface CheckpointList {
  readonly checkpoints: readonly {
    readonly id: string;
    readonly kind: string;
    readonly message_index: number | null;
    readonly changed_since: readonly { path: string; change: string }[];
  }[];
}
interface RewindResult {
  readonly restore: readonly string[];
  readonly remove: readonly string[];
  readonly conflicts: readonly string[];
  readonly undo_checkpoint_id?: string;
  readonly forked_session_id?: string | null;
}

/**
 * A workspace that is a git repository with a commit, a nested repository, an ignored file; then
 * two turns: the first writes a.txt, the second appends to b.txt from shell, patches c.txt and
 * deletes d.txt.
 */
async function twoTurns() {
  const workspace = temporaryWorkspace({
    '.gitignore': 'ignored.log\n',
    'a.txt': 'alpha\n',
    'b.txt': 'bravo\r\n',
    'c.txt': 'one\ntwo\nthree\n',
    'd.txt': 'delta\n',
    'ignored.log': 'log v1\n',
    'vendor/lib/lib.txt': 'nested v1\n',
  });
  chmodSync(join(workspace, 'c.txt'), 0o755);
  git(workspace, 'init', '-q');
  git(workspace, 'add', '-A');
  git(workspace, 'commit', '-q', '-m', 'user commit');
  git(join(workspace, 'vendor', 'lib'), 'init', '-q');
  git(join(workspace, 'vendor', 'lib'), 'add', '-A');
  git(join(workspace, 'vendor', 'lib'), 'commit', '-q', '-m', 'nested commit');
  const original = workspaceFiles(workspace);
  const userGit = fingerprint(join(workspace, '.git'));
  const nestedGit = fingerprint(join(workspace, 'vendor', 'lib', '.git'));

  const first = await scripted([
    { toolCalls: [{ id: 'w1', name: 'write', arguments: { path: 'a.txt', content: 'alpha rewritten\n' } }] },
    { text: 'Wrote a.' },
  ]);
  const run1 = await runZuno(execArgs(first.baseUrl, workspace, '--approve', 'allow', 'rewrite a'), { cwd: workspace });
  assert.equal(run1.code, 0, run1.stderr);
  const sessionId = eventsOf(run1.events, 'session-started')[0]?.session_id ?? '';
  assert.deepEqual(
    eventsOf(run1.events, 'checkpoint-created').map((event) => [event.checkpoint_id, event.message_index, event.nested]),
    [['cp-1', 0, ['vendor/lib']]],
  );

  const patch = ['*** Begin Patch', '*** Update File: c.txt', '@@', ' one', '-two', '+TWO', '*** Delete File: d.txt', '*** End Patch'].join(
    '\n',
  );
  const second = await scripted([
    {
      toolCalls: [
        {
          id: 's1',
          name: 'shell',
          arguments: { command: "printf 'more\\n' >> b.txt && echo 'log v2' > ignored.log && echo 'nested v2' > vendor/lib/lib.txt" },
        },
        { id: 'p1', name: 'apply_patch', arguments: { patch } },
      ],
    },
    { text: 'Changed the rest.' },
  ]);
  const run2 = await runZuno(execArgs(second.baseUrl, workspace, '--approve', 'allow', '--session', sessionId, 'change the rest'), {
    cwd: workspace,
  });
  assert.equal(run2.code, 0, run2.stderr);
  assert.deepEqual(
    eventsOf(run2.events, 'tool-call-finished').map((event) => [event.call_id, event.outcome]),
    [
      ['s1', 'ok'],
      ['p1', 'ok'],
    ],
  );
  assert.equal(readFileSync(join(workspace, 'b.txt'), 'utf8'), 'bravo\r\nmore\n');
  assert.equal(existsSync(join(workspace, 'd.txt')), false);
  return {
    workspace,
    sessionId,
    original,
    userGit,
    nestedGit,
    secondCheckpoint: eventsOf(run2.events, 'checkpoint-created')[0]?.checkpoint_id ?? '',
  };
}

const cli = (workspace: string, ...args: string[]): Promise<CliRun> => runZuno([...args, '--workspace', workspace], { cwd: workspace });

test('issue 13: rewinding to the first checkpoint restores a write, a shell append, a patch and a deletion byte for byte; .git, nested repos and ignored files untouched; outside changes refuse without --force; --dry-run changes nothing', async () => {
  const { workspace, sessionId, original, userGit, nestedGit, secondCheckpoint } = await twoTurns();

  const listed = json<CheckpointList>(await cli(workspace, 'checkpoints', sessionId, '--json'));
  assert.deepEqual(
    listed.checkpoints.map((checkpoint) => [checkpoint.id, checkpoint.kind, checkpoint.message_index]),
    [
      ['cp-1', 'turn', 0],
      [secondCheckpoint, 'turn', 4],
    ],
  );
  assert.deepEqual(listed.checkpoints[0]?.changed_since.map((change) => `${change.change} ${change.path}`).sort(), [
    'modified a.txt',
    'modified b.txt',
    'modified c.txt',
    'removed d.txt',
  ]);

  // A change made outside Zuno after the last turn, to a file the rewind would overwrite.
  writeFileSync(join(workspace, 'c.txt'), 'edited by the user\n');
  const changedByUser = workspaceFiles(workspace);

  const dryRun = await cli(workspace, 'rewind', sessionId, '--to', 'cp-1', '--dry-run', '--json');
  assert.equal(dryRun.code, 0, dryRun.stderr);
  const planned = json<RewindResult>(dryRun);
  assert.deepEqual([...planned.restore].sort(), ['a.txt', 'b.txt', 'c.txt', 'd.txt']);
  assert.deepEqual(planned.conflicts, ['c.txt']);
  assert.deepEqual(workspaceFiles(workspace), changedByUser, '--dry-run changes nothing');

  const refused = await cli(workspace, 'rewind', sessionId, '--to', 'cp-1');
  assert.equal(refused.code, 3, refused.stderr);
  assert.match(
    refused.stderr,
    /refusing to rewind: this file was changed outside Zuno since cp-1 and would be overwritten: c\.txt\. .*--force/,
  );
  assert.deepEqual(workspaceFiles(workspace), changedByUser, 'a refused rewind changes nothing');

  const forced = await cli(workspace, 'rewind', sessionId, '--to', 'cp-1', '--force', '--json');
  assert.equal(forced.code, 0, forced.stderr);
  const done = json<RewindResult>(forced);
  const restored = workspaceFiles(workspace);
  assert.deepEqual(
    { ...restored, 'ignored.log': undefined, 'vendor/lib/lib.txt': undefined },
    { ...original, 'ignored.log': undefined, 'vendor/lib/lib.txt': undefined },
    'every file the session changed is back, byte for byte and with its mode',
  );
  assert.equal(readFileSync(join(workspace, 'ignored.log'), 'utf8'), 'log v2\n', 'a gitignored file is untouched');
  assert.equal(readFileSync(join(workspace, 'vendor', 'lib', 'lib.txt'), 'utf8'), 'nested v2\n', 'a nested repository is untouched');
  assert.deepEqual(fingerprint(join(workspace, '.git')), userGit, "the user's .git (HEAD, index, refs, config) is byte-identical");
  assert.deepEqual(fingerprint(join(workspace, 'vendor', 'lib', '.git')), nestedGit, "the nested repository's .git is byte-identical");

  // The rewind is undoable: its own checkpoint brings back what it replaced, the user's edit included.
  assert.ok(done.undo_checkpoint_id);
  const undone = await cli(workspace, 'rewind', sessionId, '--to', done.undo_checkpoint_id, '--json');
  assert.equal(undone.code, 0, undone.stderr);
  assert.deepEqual(workspaceFiles(workspace), changedByUser);
});

test('issue 13: --fork starts a session whose transcript ends before the checkpoint message, and the store records the rewind', async () => {
  const { workspace, sessionId, secondCheckpoint } = await twoTurns();
  const forked = await cli(workspace, 'rewind', sessionId, '--to', secondCheckpoint, '--fork', '--json');
  assert.equal(forked.code, 0, forked.stderr);
  const result = json<RewindResult>(forked);
  assert.deepEqual([...result.restore].sort(), ['b.txt', 'c.txt', 'd.txt']);
  assert.equal(readFileSync(join(workspace, 'a.txt'), 'utf8'), 'alpha rewritten\n', 'the first turn stays');
  const forkId = result.forked_session_id ?? '';

  interface Shown {
    readonly messages: readonly { role: string; content: string }[];
    readonly events: readonly { type: string; checkpoint_id?: string; forked_session_id?: string }[];
  }
  const fork = json<Shown>(await cli(workspace, 'show', forkId, '--json'));
  assert.deepEqual(
    fork.messages.map((message) => [message.role, message.content]),
    [
      ['user', 'rewrite a'],
      ['assistant', ''],
      ['tool', fork.messages[2]?.content ?? ''],
      ['assistant', 'Wrote a.'],
    ],
  );
  const original = json<Shown>(await cli(workspace, 'show', sessionId, '--json'));
  const rewinds = original.events.filter((event) => event.type === 'rewind');
  assert.deepEqual(
    rewinds.map((event) => [event.checkpoint_id, event.forked_session_id]),
    [[secondCheckpoint, forkId]],
  );
});
