// Issue 13 in a real VS Code (code-server) driven through Chromium, against a scripted
// OpenAI-compatible server: two turns change files (a write, then a shell command and a write);
// "Restore files to before this message" on the first message shows the preview (each file with
// its diff, and VS Code's diff editor for one), restores on confirmation, and the cards say so;
// "Undo this restore" brings the files back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startScriptedOpenAI } from '../support/scripted-openai';
import { sendPrompt, testId, toolCard, waitForAnswer } from './support/chat';
import { activeDiffEditor, diffEditorText } from './support/diff-editor';
import { UI_TIMEOUT_MS, withEditor } from './support/editor';
import { TERMINAL_SETTINGS } from './support/terminal';

test('issue 13: the restore button on a message shows the preview (files, diffs, the diff editor), restores the files on confirmation, and the cards say they were rolled back', async (t) => {
  const model = await startScriptedOpenAI({
    script: [
      { toolCalls: [{ id: 'cp-write-1', name: 'write', arguments: { path: 'notes.txt', content: 'second draft\n' } }] },
      { text: 'Rewrote the notes.' },
      {
        toolCalls: [
          { id: 'cp-shell', name: 'shell', arguments: { command: 'echo made by a command > made.txt' } },
          { id: 'cp-write-2', name: 'write', arguments: { path: 'notes.txt', content: 'third draft\n' } },
        ],
      },
      { text: 'Made the file.' },
    ],
  });
  t.after(() => model.close());

  const workspace = { 'notes.txt': 'first draft\n', 'keep.txt': 'never touched\n' };
  // auto: the calls run without approvals, so the test is about the restore.
  await withEditor(
    t,
    { workspace, modelBaseUrl: model.baseUrl, settings: { ...TERMINAL_SETTINGS, 'zuno.permission.mode': 'auto' } },
    async (editor) => {
      const chat = await editor.openZuno();
      await sendPrompt(chat, 'Rewrite the notes');
      await waitForAnswer(chat, 'Rewrote the notes.');
      await sendPrompt(chat, 'Now make a file with a command');
      await waitForAnswer(chat, 'Made the file.');
      const notes = join(editor.workspace, 'notes.txt');
      assert.equal(readFileSync(notes, 'utf8'), 'third draft\n');
      assert.equal(readFileSync(join(editor.workspace, 'made.txt'), 'utf8'), 'made by a command\n');

      // The preview: every file the restore changes, with its diff; nothing changes yet.
      const firstMessage = chat.locator(`${testId('message')}[data-role="user"]`).first();
      await firstMessage.locator(testId('restore-files')).click();
      const preview = chat.locator(testId('rewind-preview'));
      await preview.locator(testId('rewind-file')).first().waitFor({ timeout: UI_TIMEOUT_MS });
      const rows = preview.locator(testId('rewind-file'));
      const files: string[] = [];
      for (let index = 0; index < (await rows.count()); index += 1) {
        files.push(
          `${(await rows.nth(index).getAttribute('data-change')) ?? ''} ${(await rows.nth(index).getAttribute('data-path')) ?? ''}`,
        );
      }
      assert.deepEqual(files.sort(), ['added made.txt', 'modified notes.txt']);
      const notesDiff =
        (await preview.locator(`${testId('rewind-file')}[data-path="notes.txt"] ${testId('rewind-diff')}`).textContent()) ?? '';
      assert.match(notesDiff, /^-third draft$/m);
      assert.match(notesDiff, /^\+first draft$/m);
      assert.match((await preview.textContent()) ?? '', /does not undo effects outside the workspace/);

      // VS Code's diff editor: the file now on the left, as restored on the right.
      await preview.locator(`${testId('rewind-file')}[data-path="notes.txt"] ${testId('rewind-open-diff')}`).click();
      await activeDiffEditor(editor.page).waitFor({ timeout: UI_TIMEOUT_MS });
      await editor.waitFor(async () => (await diffEditorText(editor.page, 'modified')).includes('first draft'), {
        message: 'the restored side of the diff editor',
      });
      assert.match(await diffEditorText(editor.page, 'original'), /third draft/);
      assert.equal(readFileSync(notes, 'utf8'), 'third draft\n', 'previewing changes nothing');

      // Confirm: the files are back, the rest untouched, and the transcript says what happened.
      await preview.locator(testId('rewind-confirm')).click();
      await chat.locator(testId('rewind-record')).waitFor({ timeout: UI_TIMEOUT_MS });
      await editor.waitFor(() => readFileSync(notes, 'utf8') === 'first draft\n', { message: 'notes.txt restored' });
      assert.equal(existsSync(join(editor.workspace, 'made.txt')), false, 'a file added since is removed');
      assert.equal(readFileSync(join(editor.workspace, 'keep.txt'), 'utf8'), 'never touched\n');
      assert.equal(await chat.locator(testId('rewind-preview')).count(), 0, 'the preview closes');
      assert.match(
        (await chat.locator(testId('rewind-record')).textContent()) ?? '',
        /Files restored to before “Rewrite the notes”.*not undone/,
      );
      for (const callId of ['cp-write-1', 'cp-shell', 'cp-write-2']) {
        await toolCard(chat, { callId }).locator(testId('rolled-back')).waitFor({ timeout: UI_TIMEOUT_MS });
      }

      // The restore is undoable from its record: the same preview, then the files come back.
      await chat.locator(testId('rewind-undo')).click();
      await chat
        .locator(`${testId('rewind-record')} ${testId('rewind-file')}`)
        .first()
        .waitFor({ timeout: UI_TIMEOUT_MS });
      await chat.locator(`${testId('rewind-record')} ${testId('rewind-confirm')}`).click();
      await editor.waitFor(() => readFileSync(notes, 'utf8') === 'third draft\n', { message: 'notes.txt back as the turns left it' });
      assert.equal(readFileSync(join(editor.workspace, 'made.txt'), 'utf8'), 'made by a command\n');
      await editor.waitFor(async () => (await chat.locator(testId('rolled-back')).count()) === 0, {
        message: 'the cards to drop their rolled-back notes',
      });
      assert.equal(await chat.locator(testId('rewind-record')).count(), 2);
      assert.deepEqual(model.violations, []);
    },
  );
});
