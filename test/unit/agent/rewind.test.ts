// The shared rewind of the CLI and the editor (issue 13): preview with a diff per file, refusal of
// outside changes unless forced, an undo checkpoint, and a fork, against the real git and store.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyRewind, previewRewind, RewindError } from '../../../src/agent/rewind';
import { MAX_FILE_BYTES, ShadowCheckpoints } from '../../../src/hosts/node/checkpoints';
import { Store } from '../../../src/store/store';
import { makeTempDir, removeDir } from '../../support/tool-context';

function temporary(prefix: string): string {
  const directory = makeTempDir(prefix);
  after(() => removeDir(directory));
  return directory;
}

function write(root: string, path: string, content: string | Buffer): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), content);
}

/** A session with one turn that changed three files, its checkpoint and its recorded events. */
async function oneTurn() {
  const workspace = temporary('zuno-rw-ws-');
  const state = temporary('zuno-rw-state-');
  write(workspace, 'kept.txt', 'line 1\nline 2\n');
  write(workspace, 'gone.txt', 'gone\n');
  write(workspace, 'same.txt', 'same\n');
  const shadow = await ShadowCheckpoints.open({ stateDir: state, workspaceRoot: workspace });
  assert.ok(shadow instanceof ShadowCheckpoints, 'git is on PATH in tests');
  const store = await Store.open({ stateDir: state });
  after(() => store.close());
  const session = store.createSession({ workspace, title: 'rewind test' });
  const record = (body: Parameters<Store['recordEvent']>[0]): void => store.recordEvent(body);
  record({ type: 'user-message', text: 'first', ts: 1, session_id: session.id });
  store.appendMessage(session.id, { role: 'user', content: 'first' });
  store.appendMessage(session.id, { role: 'assistant', content: 'done first' });
  record({ type: 'checkpoint-created', checkpoint_id: 'cp-earlier', message_index: 0, ts: 2, session_id: session.id });
  record({ type: 'assistant-message', text: 'done first', ts: 2, session_id: session.id });
  record({ type: 'user-message', text: 'change things', ts: 3, session_id: session.id });
  store.appendMessage(session.id, { role: 'user', content: 'change things' });
  const checkpoint = await shadow.snapshot({ sessionId: session.id, kind: 'turn', messageIndex: 2, prompt: 'change things' });
  record({ type: 'checkpoint-created', checkpoint_id: checkpoint.id, message_index: 2, ts: 4, session_id: session.id });
  write(workspace, 'kept.txt', 'line 1\nline two\n');
  write(workspace, 'new/added.txt', 'added\n');
  rmSync(join(workspace, 'gone.txt'));
  await shadow.snapshot({ sessionId: session.id, kind: 'after-turn' });
  return { workspace, shadow, store, sessionId: session.id, checkpoint };
}

test('issue 13: a preview lists added, removed and modified files with a diff of what the rewind does to each, names files over the size limit, and changes nothing', async () => {
  const { workspace, shadow, sessionId, checkpoint } = await oneTurn();
  write(workspace, 'huge.bin', Buffer.alloc(MAX_FILE_BYTES + 1, 1));
  const preview = await previewRewind(shadow, sessionId, checkpoint.id);
  assert.deepEqual(preview.files.map((file) => `${file.change} ${file.path} ${file.conflict}`).sort(), [
    'added new/added.txt false',
    'modified kept.txt false',
    'removed gone.txt false',
  ]);
  const diff = (path: string): string => preview.files.find((file) => file.path === path)?.diff ?? '';
  assert.match(diff('kept.txt'), /^-line two$/m, 'the diff goes from now to the checkpoint');
  assert.match(diff('kept.txt'), /^\+line 2$/m);
  assert.match(diff('gone.txt'), /^\+gone$/m);
  assert.match(diff('new/added.txt'), /^-added$/m);
  assert.match(diff('kept.txt'), /^--- a\/kept\.txt\n\+\+\+ b\/kept\.txt\n@@/, "the diff starts at its file names, without git's header");
  assert.deepEqual(preview.overLimit, ['huge.bin']);
  assert.equal(readFileSync(join(workspace, 'kept.txt'), 'utf8'), 'line 1\nline two\n', 'a preview changes nothing');
  assert.equal(existsSync(join(workspace, 'new', 'added.txt')), true);
});

test('issue 13: a rewind refuses to overwrite a file changed outside Zuno unless forced, restores the rest, and is undone by its own checkpoint', async () => {
  const { workspace, shadow, store, sessionId, checkpoint } = await oneTurn();
  write(workspace, 'same.txt', 'edited by the user\n');
  write(workspace, 'kept.txt', 'line 1\nline two\nuser line\n');

  const preview = await previewRewind(shadow, sessionId, checkpoint.id);
  assert.deepEqual([...preview.conflicts].sort(), ['kept.txt', 'same.txt']);
  const refused = await applyRewind({ shadow, store, sessionId, checkpointId: checkpoint.id, workspace, force: false, fork: false });
  assert.equal(refused.kind, 'refused');
  assert.equal(readFileSync(join(workspace, 'same.txt'), 'utf8'), 'edited by the user\n', 'a refused rewind changes nothing');

  const done = await applyRewind({ shadow, store, sessionId, checkpointId: checkpoint.id, workspace, force: true, fork: false });
  assert.equal(done.kind, 'done');
  if (done.kind !== 'done') return;
  assert.equal(readFileSync(join(workspace, 'kept.txt'), 'utf8'), 'line 1\nline 2\n');
  assert.equal(readFileSync(join(workspace, 'gone.txt'), 'utf8'), 'gone\n');
  assert.equal(readFileSync(join(workspace, 'same.txt'), 'utf8'), 'same\n');
  assert.equal(existsSync(join(workspace, 'new')), false);
  assert.deepEqual(
    {
      type: done.event.type,
      checkpoint: done.event.checkpoint_id,
      restored: [...done.event.restored].sort(),
      removed: done.event.removed,
      undo: done.event.undo_checkpoint_id,
    },
    {
      type: 'rewind',
      checkpoint: checkpoint.id,
      restored: ['gone.txt', 'kept.txt', 'same.txt'],
      removed: ['new/added.txt'],
      undo: done.undo.id,
    },
  );

  const undone = await applyRewind({ shadow, store, sessionId, checkpointId: done.undo.id, workspace, force: false, fork: false });
  assert.equal(undone.kind, 'done', 'undoing right after the rewind needs no --force: nothing changed outside Zuno since');
  assert.equal(readFileSync(join(workspace, 'same.txt'), 'utf8'), 'edited by the user\n');
  assert.equal(readFileSync(join(workspace, 'kept.txt'), 'utf8'), 'line 1\nline two\nuser line\n');
  assert.equal(readFileSync(join(workspace, 'new', 'added.txt'), 'utf8'), 'added\n');
});

test('issue 13: a fork holds the transcript and the events up to the checkpoint message, so a chat view shows its history', async () => {
  const { workspace, shadow, store, sessionId, checkpoint } = await oneTurn();
  const done = await applyRewind({ shadow, store, sessionId, checkpointId: checkpoint.id, workspace, force: false, fork: true });
  assert.equal(done.kind, 'done');
  const forkId = done.kind === 'done' ? (done.forkedSessionId ?? '') : '';
  assert.deepEqual(
    store.messages(forkId).map((message) => message.content),
    ['first', 'done first'],
  );
  assert.deepEqual(
    store.events(forkId).map((event) => event.type),
    ['user-message', 'assistant-message', 'notice'],
    'checkpoints stay with the session that took them',
  );
});

test('issue 13: an unknown checkpoint is an error that lists the session checkpoints', async () => {
  const { shadow, sessionId, checkpoint } = await oneTurn();
  await assert.rejects(
    previewRewind(shadow, sessionId, 'cp-99'),
    (error: unknown) => error instanceof RewindError && error.known.includes(checkpoint.id) && /no checkpoint "cp-99"/.test(error.message),
  );
});
