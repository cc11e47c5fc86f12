// "Restore files to before this message" from the chat, the controller's side (issue 13), over the
// real shadow repository, store and event bus: preview, confirm, refusal of outside changes unless
// the user overwrites them, no restore during a turn, and a fork that the chat then shows.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventBus } from '../../../../src/core/events';
import { ShadowCheckpoints } from '../../../../src/hosts/node/checkpoints';
import { ChatRewinds, RuntimeRewinds, workspaceFile } from '../../../../src/hosts/vscode/chat-rewind';
import { Store } from '../../../../src/store/store';
import type { ToWebview } from '../../../../src/webview/protocol';
import { makeTempDir, removeDir } from '../../../support/tool-context';

function temporary(prefix: string): string {
  const directory = makeTempDir(prefix);
  after(() => removeDir(directory));
  return directory;
}

/** A session whose one turn (checkpoint cp-1) changed a.txt and added b.txt. */
async function setup(running = false) {
  const workspace = temporary('zuno-chat-rw-ws-');
  const state = temporary('zuno-chat-rw-state-');
  writeFileSync(join(workspace, 'a.txt'), 'original\n');
  const shadow = await ShadowCheckpoints.open({ stateDir: state, workspaceRoot: workspace });
  assert.ok(shadow instanceof ShadowCheckpoints, 'git is on PATH in tests');
  const store = await Store.open({ stateDir: state });
  after(() => store.close());
  const events = new EventBus();
  events.on((event) => store.recordEvent(event));
  const sessionId = store.createSession({ workspace, title: 'chat' }).id;
  events.emit(sessionId, { type: 'user-message', text: 'change a' });
  store.appendMessage(sessionId, { role: 'user', content: 'change a' });
  const checkpoint = await shadow.snapshot({ sessionId, kind: 'turn', messageIndex: 0, prompt: 'change a' });
  events.emit(sessionId, { type: 'checkpoint-created', checkpoint_id: checkpoint.id, message_index: 0 });
  writeFileSync(join(workspace, 'a.txt'), 'changed by zuno\n');
  mkdirSync(join(workspace, 'sub'));
  writeFileSync(join(workspace, 'sub', 'b.txt'), 'new\n');
  await shadow.snapshot({ sessionId, kind: 'after-turn' });

  const posted: ToWebview[] = [];
  const opened: string[] = [];
  const sent: { readonly text: string; readonly inChat: string | undefined }[] = [];
  const backend = new RuntimeRewinds(async () => ({ checkpoints: { shadow, off: () => undefined }, store, events }), workspace);
  const rewinds = new ChatRewinds({
    backend: {
      preview: (...args) => backend.preview(...args),
      apply: (...args) => backend.apply(...args),
      showDiff: async () => undefined,
    },
    post: (message) => posted.push(message),
    sessionId: () => sessionId,
    running: () => running,
    openSession: async (id) => {
      opened.push(id);
      return true;
    },
    send: async (text) => {
      sent.push({ text, inChat: opened.at(-1) });
    },
  });
  return { workspace, store, sessionId, rewinds, posted, opened, sent, checkpointId: checkpoint.id };
}

test('issue 13: the chat previews a restore (each file with its diff), restores on confirmation, and the session records the rewind', async () => {
  const { workspace, store, sessionId, rewinds, posted, checkpointId } = await setup();
  await rewinds.handle({ type: 'rewind-preview', checkpointId });
  const preview = posted[0]?.type === 'rewind-preview' ? posted[0].preview : undefined;
  assert.ok(preview, 'a preview is posted');
  assert.deepEqual(preview.files.map((file) => [file.path, file.change, file.conflict]).sort(), [
    ['a.txt', 'modified', false],
    ['sub/b.txt', 'added', false],
  ]);
  assert.match(preview.files.find((file) => file.path === 'a.txt')?.diff ?? '', /^-changed by zuno\n\+original$/m);
  assert.equal(readFileSync(join(workspace, 'a.txt'), 'utf8'), 'changed by zuno\n', 'a preview changes nothing');

  await rewinds.handle({ type: 'rewind-apply', checkpointId, force: false, fork: false });
  assert.deepEqual(posted.at(-1), { type: 'rewind-closed', checkpointId });
  assert.equal(readFileSync(join(workspace, 'a.txt'), 'utf8'), 'original\n');
  assert.equal(existsSync(join(workspace, 'sub')), false);
  const recorded = store.events(sessionId).filter((event) => event.type === 'rewind');
  assert.deepEqual(
    recorded.map((event) => [event.checkpoint_id, event.restored, event.removed]),
    [[checkpointId, ['a.txt'], ['sub/b.txt']]],
  );
});

test('issue 13: a file changed outside Zuno makes the confirmed restore come back as a preview naming it; overwriting it is a second, explicit choice', async () => {
  const { workspace, sessionId, store, rewinds, posted, checkpointId } = await setup();
  writeFileSync(join(workspace, 'a.txt'), 'edited by the user\n');
  await rewinds.handle({ type: 'rewind-apply', checkpointId, force: false, fork: false });
  const refused = posted.at(-1);
  assert.equal(refused?.type, 'rewind-preview');
  if (refused?.type !== 'rewind-preview') return;
  assert.equal(refused.preview.refused, true);
  assert.deepEqual(
    refused.preview.files.filter((file) => file.conflict).map((file) => file.path),
    ['a.txt'],
  );
  assert.equal(readFileSync(join(workspace, 'a.txt'), 'utf8'), 'edited by the user\n', 'nothing was overwritten');
  assert.deepEqual(
    store.events(sessionId).filter((event) => event.type === 'rewind'),
    [],
  );

  await rewinds.handle({ type: 'rewind-apply', checkpointId, force: true, fork: false });
  assert.equal(readFileSync(join(workspace, 'a.txt'), 'utf8'), 'original\n');
});

test('issue 13: no restore while a turn runs: the panel closes and the error says to cancel or wait', async () => {
  const { workspace, rewinds, posted, checkpointId } = await setup(true);
  await assert.rejects(
    rewinds.handle({ type: 'rewind-apply', checkpointId, force: true, fork: false }),
    /Zuno is working in this chat\. Cancel it or wait for it to finish, then restore files\./,
  );
  assert.deepEqual(posted, [{ type: 'rewind-closed', checkpointId }]);
  assert.equal(readFileSync(join(workspace, 'a.txt'), 'utf8'), 'changed by zuno\n');
});

test('issue 13: "Restore and fork" restores the files and opens the new chat, whose history ends before the message', async () => {
  const { workspace, store, rewinds, opened, checkpointId } = await setup();
  await rewinds.handle({ type: 'rewind-apply', checkpointId, force: false, fork: true });
  assert.equal(readFileSync(join(workspace, 'a.txt'), 'utf8'), 'original\n');
  assert.equal(opened.length, 1);
  const fork = opened[0] ?? '';
  assert.deepEqual(store.messages(fork), [], 'the fork ends before the first message');
  assert.deepEqual(
    store.events(fork).map((event) => event.type),
    ['notice'],
  );
});

test('issue 14: edit-and-resend with files restored: the confirmed restore forks, opens the fork, then sends the edited message there (and only then)', async () => {
  const { workspace, store, rewinds, opened, sent, checkpointId } = await setup();
  await rewinds.handle({ type: 'rewind-apply', checkpointId, force: false, fork: true, resend: 'change a, but gently' });
  assert.equal(readFileSync(join(workspace, 'a.txt'), 'utf8'), 'original\n');
  assert.equal(opened.length, 1);
  assert.equal(store.getSession(opened[0] ?? '')?.status, 'done', 'the fork does not open as an interrupted run');
  assert.deepEqual(sent, [{ text: 'change a, but gently', inChat: opened[0] }]);
});

test('issue 14: an edit whose restore is refused (a file changed outside Zuno) sends nothing until the user decides', async () => {
  const { workspace, rewinds, sent, posted, checkpointId } = await setup();
  writeFileSync(join(workspace, 'a.txt'), 'edited by hand\n');
  await rewinds.handle({ type: 'rewind-apply', checkpointId, force: false, fork: true, resend: 'again' });
  assert.equal(posted.at(-1)?.type, 'rewind-preview', 'the preview comes back naming the conflict');
  assert.deepEqual(sent, []);
});

test('issue 13: a diff asked for by the view opens only files inside the workspace (the view is untrusted input)', () => {
  assert.equal(workspaceFile('/w/project', 'src/a.ts'), '/w/project/src/a.ts');
  for (const path of ['../secret.txt', '../../etc/passwd', '/etc/passwd', 'src/../../x', '.'])
    assert.equal(workspaceFile('/w/project', path), undefined, path);
});
