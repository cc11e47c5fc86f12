// @-mentions on send (issue 14 item 14): mentions of workspace files become paths the model is told
// to read; a mention outside the workspace or of a missing file stays text with a note. Real temp
// directories and symlinks; the controller with a backend that records the prompt it was given.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApprovalBroker } from '../../../../src/hosts/vscode/approval-state';
import { ChatController } from '../../../../src/hosts/vscode/chat-controller';
import { fakeBackend } from './support/fake-backend';
import { checkMention, expandMentions, type MentionSource } from '../../../../src/hosts/vscode/mentions';
import { QuestionBroker } from '../../../../src/hosts/vscode/question-state';
import type { ToWebview } from '../../../../src/webview/protocol';

function workspace(t: { after(fn: () => void): void }): { root: string; outside: string } {
  const base = mkdtempSync(join(tmpdir(), 'zuno-mentions-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, 'ws');
  const outside = join(base, 'outside');
  mkdirSync(join(root, 'src'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, 'src', 'cart.js'), 'export const total = 41;\n');
  writeFileSync(join(root, 'my notes.md'), 'notes\n');
  writeFileSync(join(outside, 'secret.txt'), 'secret\n');
  symlinkSync(join(outside, 'secret.txt'), join(root, 'escape.txt'));
  return { root, outside };
}

test('issue 14 item 14: a mention is a file only when its real path is a file inside the workspace', async (t) => {
  const { root } = workspace(t);
  assert.deepEqual(await checkMention(root, 'src/cart.js'), { ok: true, path: 'src/cart.js' });
  assert.deepEqual(await checkMention(root, './src/../src/cart.js'), { ok: true, path: 'src/cart.js' });
  assert.deepEqual(await checkMention(root, 'my notes.md'), { ok: true, path: 'my notes.md' });
  assert.deepEqual(await checkMention(root, '../outside/secret.txt'), { ok: false, problem: 'outside the workspace' });
  assert.deepEqual(await checkMention(root, '/etc/passwd'), { ok: false, problem: 'outside the workspace' });
  assert.deepEqual(await checkMention(root, 'escape.txt'), { ok: false, problem: 'outside the workspace' }, 'a symlink out is refused');
  assert.deepEqual(await checkMention(root, 'src/missing.js'), { ok: false, problem: 'not found' });
  assert.deepEqual(await checkMention(root, 'src'), { ok: false, problem: 'not a file' });
});

test('issue 14 item 14: the prompt keeps the text and adds the files to read, and the mentions left as text with why', async (t) => {
  const { root } = workspace(t);
  const prompt = await expandMentions(
    'Why is @src/cart.js off by one? See @"my notes.md", @../outside/secret.txt and @gone.md.',
    (mention) => checkMention(root, mention),
  );
  assert.equal(
    prompt,
    [
      'Why is @src/cart.js off by one? See @"my notes.md", @../outside/secret.txt and @gone.md.',
      '',
      'Files the user mentioned (workspace-relative; read them before answering):',
      '- src/cart.js',
      '- my notes.md',
      'Mentions that are not files of this workspace:',
      '- @../outside/secret.txt (outside the workspace; left as text)',
      '- @gone.md (not found; left as text)',
    ].join('\n'),
  );
  assert.equal(await expandMentions(prompt, (mention) => checkMention(root, mention)), prompt, 'sent again, it gets one fresh note');
  assert.equal(
    await expandMentions('no mentions, mail me@example.com', () => Promise.reject(new Error('not called'))),
    'no mentions, mail me@example.com',
  );
});

/** A backend that records the prompts it runs and answers mentions from a real workspace. */
function setup(root: string, running?: Promise<void>) {
  const prompts: string[] = [];
  const taken: string[] = [];
  const searches: string[] = [];
  const mentions: MentionSource = {
    search: async (query) => {
      searches.push(query);
      return ['src/cart.js'];
    },
    expand: (text) => expandMentions(text, (mention) => checkMention(root, mention)),
  };
  const backend = fakeBackend({
    run: async (prompt, _sessionId, _signal, takeQueued) => {
      prompts.push(prompt);
      if (running) {
        await running;
        taken.push(...(takeQueued?.() ?? []).map((queued) => queued.text));
      }
    },
    mentions,
  });
  const view: ToWebview[] = [];
  const approvals = new ApprovalBroker(
    {
      post: () => undefined,
      showDiff: async () => undefined,
      proposedText: async () => undefined,
      unsavedPaths: () => [],
      currentText: async () => undefined,
      addAllowRule: async () => undefined,
      discardProposals: async () => undefined,
    },
    root,
  );
  const controller = new ChatController(backend, approvals, new QuestionBroker(() => undefined));
  controller.attachView((message) => view.push(message));
  return { controller, prompts, searches, view, taken };
}

test('issue 14 item 14: the view asks for files as @ is typed and gets them back for that query', async (t) => {
  const { root } = workspace(t);
  const { controller, searches, view } = setup(root);
  await controller.receive({ type: 'ready' });
  await controller.receive({ type: 'mention-search', query: 'ca' });
  assert.deepEqual(searches, ['ca']);
  assert.deepEqual(view.at(-1), { type: 'mention-results', query: 'ca', paths: ['src/cart.js'] });
});

test('issue 14 item 14: a sent message reaches the model with its mentioned files to read', async (t) => {
  const { root } = workspace(t);
  const { controller, prompts } = setup(root);
  await controller.receive({ type: 'ready' });
  await controller.receive({ type: 'send', text: 'Fix @src/cart.js' });
  assert.deepEqual(prompts, [
    'Fix @src/cart.js\n\nFiles the user mentioned (workspace-relative; read them before answering):\n- src/cart.js',
  ]);
});

test('issue 14 item 2: text for the composer that arrives before the view is ready is delivered after its snapshot', async (t) => {
  const { root } = workspace(t);
  const { controller, view } = setup(root);
  controller.compose('src/cart.js:L1-L1\n```js\nexport const total = 41;\n```');
  assert.equal(view.length, 0, 'nothing is posted to a view that has not said ready');
  await controller.receive({ type: 'ready' });
  assert.deepEqual(
    view.map((message) => message.type),
    ['snapshot', 'compose'],
  );
  controller.compose('again');
  assert.deepEqual(view.at(-1), { type: 'compose', text: 'again' });
});

test('issue 14 item 14: a message queued while Zuno works shows as typed and reaches the model with its mentions expanded', async (t) => {
  const { root } = workspace(t);
  let finish: () => void = () => undefined;
  const { controller, view, taken } = setup(root, new Promise<void>((resolve) => (finish = resolve)));
  await controller.receive({ type: 'ready' });
  const first = controller.receive({ type: 'send', text: 'Start' });
  await controller.receive({ type: 'send', text: 'Also @src/cart.js' });
  const queued = view.filter((message) => message.type === 'queue').at(-1);
  assert.deepEqual(queued?.type === 'queue' ? queued.items.map((item) => item.text) : [], ['Also @src/cart.js']);
  finish();
  await first;
  assert.deepEqual(taken, [
    'Also @src/cart.js\n\nFiles the user mentioned (workspace-relative; read them before answering):\n- src/cart.js',
  ]);
});
