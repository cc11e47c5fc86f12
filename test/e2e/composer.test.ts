// Issue 14 item 14 in a real VS Code (code-server + Chromium) against a scripted OpenAI-compatible
// server: an @-mention the model receives, the live plan/todo panel, Copy on a message, Add
// Selection to Chat and Export Chat, each checked on the UI and on the world (requests, clipboard, files).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startScriptedOpenAI } from '../support/scripted-openai';
import { testId, waitForAnswer } from './support/chat';
import { UI_TIMEOUT_MS, withEditor } from './support/editor';

const CART = 'export function total(items) {\n  return items.reduce((sum, item) => sum + item.price, 1);\n}\n';

test('issue 14 item 14: @-mention reaches the model, the todo panel follows todo_update live, Copy copies, Add Selection and Export Chat work', async (t) => {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const model = await startScriptedOpenAI({
    script: [
      {
        text: 'Planning.',
        toolCalls: [
          {
            id: 'call_todo_1',
            name: 'todo_update',
            arguments: {
              todos: [
                { id: '1', content: 'Read cart.js', status: 'in_progress' },
                { id: '2', content: 'Fix the total', status: 'pending' },
              ],
            },
          },
        ],
      },
      // Held until the test has seen the first list, so the panel is seen to change.
      async () => {
        await gate;
        return {
          toolCalls: [
            {
              id: 'call_todo_2',
              name: 'todo_update',
              arguments: {
                changes: [
                  { id: '1', status: 'completed' },
                  { id: '2', status: 'in_progress' },
                ],
              },
            },
          ],
        };
      },
      { text: 'The **total** starts at 1 instead of 0.' },
    ],
  });
  t.after(() => model.close());
  const workspace = { 'README.md': '# shop\n', 'src/cart.js': CART, 'package.json': '{"name":"shop","private":true}\n' };
  await withEditor(t, { workspace, modelBaseUrl: model.baseUrl, settings: { 'zuno.permission.mode': 'auto-edit' } }, async (editor) => {
    const chat = await editor.openZuno();
    const composer = chat.locator(testId('composer'));

    // @ alone lists the workspace's files; the arrows move the choice and Escape closes the list, keeping the text.
    await composer.click();
    await composer.pressSequentially('@');
    const rows = chat.locator(testId('mention-item'));
    await editor.waitFor(async () => (await rows.count()) === 3, { message: 'the three workspace files listed' });
    assert.equal(await rows.nth(0).getAttribute('aria-selected'), 'true');
    await composer.press('ArrowDown');
    assert.equal(await rows.nth(1).getAttribute('aria-selected'), 'true');
    await composer.press('ArrowUp');
    await composer.press('ArrowUp');
    assert.equal(await rows.nth(2).getAttribute('aria-selected'), 'true', 'the choice wraps around');
    await composer.press('Escape');
    await editor.waitFor(async () => !(await chat.locator(testId('mention-list')).isVisible()), { message: 'Escape to close the list' });
    assert.equal(await composer.inputValue(), '@');
    await composer.fill('');

    // @-mention: typing @ and part of a name lists the workspace file; Enter chooses it, not sends.
    await composer.pressSequentially('Explain @cart');
    const item = chat.locator(`${testId('mention-item')}[data-path="src/cart.js"]`);
    await item.waitFor({ timeout: UI_TIMEOUT_MS });
    await composer.press('Enter');
    await editor.waitFor(async () => (await composer.inputValue()) === 'Explain @src/cart.js ', {
      message: 'the chosen path in the composer',
    });
    assert.equal(await chat.locator(testId('mention-list')).isVisible(), false, 'the list closes once a file is chosen');
    await composer.pressSequentially('please');
    await composer.press('Enter');

    // The todo panel shows the first list with its current item, then follows the update.
    const todo = (id: string) => chat.locator(`${testId('todo-item')}[data-todo-id="${id}"]`);
    await todo('1').and(chat.locator('[aria-current="step"]')).waitFor({ timeout: UI_TIMEOUT_MS });
    assert.equal(await todo('2').getAttribute('data-status'), 'pending');
    release();
    await todo('2').and(chat.locator('[aria-current="step"]')).waitFor({ timeout: UI_TIMEOUT_MS });
    assert.equal(await todo('1').getAttribute('data-status'), 'completed');
    const toggle = chat.locator(testId('work-panel-toggle'));
    assert.match(await toggle.innerText(), /Todos 1\/2 · now: Fix the total/);
    await toggle.click();
    await editor.waitFor(async () => (await chat.locator(testId('todo-list')).count()) === 0, { message: 'the panel folded' });
    assert.match(await toggle.innerText(), /Todos 1\/2/, 'folded, it still says where the work stands');

    // The model was told to read the mentioned file, workspace-relative.
    await waitForAnswer(chat, 'starts at 1 instead of 0');
    const first = model.chatRequests()[0]?.body?.messages.at(-1);
    assert.equal(first?.role, 'user');
    assert.match(
      String(first?.content),
      /^Explain @src\/cart\.js please\n\nFiles the user mentioned \(workspace-relative; read them before answering\):\n- src\/cart\.js$/,
    );

    // The chat shows what was typed, with the note about the mention set apart.
    const sent = chat.locator(`${testId('message')}[data-role="user"]`).first();
    assert.equal(
      await sent.locator(testId('mention-note')).innerText(),
      'Files the user mentioned (workspace-relative; read them before answering):\n- src/cart.js',
    );
    assert.match(await sent.locator('.message-body').innerText(), /^Explain @src\/cart\.js please\s*Files the user mentioned/);

    // Copy on the answer puts its Markdown source on the clipboard.
    await editor.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(editor.url).origin });
    const answer = chat.locator(`${testId('message')}[data-role="assistant"]`, { hasText: 'starts at 1' }).last();
    await answer.locator(testId('copy-message')).click();
    await editor.waitFor(async () => (await answer.locator(testId('copy-message')).innerText()).trim() === 'Copied', {
      message: 'Copy to confirm',
    });
    assert.equal(await editor.page.evaluate<string>('navigator.clipboard.readText()'), 'The **total** starts at 1 instead of 0.');

    // Add Selection to Chat: the first two lines of cart.js go into the composer with their reference, unsent.
    await composer.fill('');
    await editor.page.keyboard.press('Control+P');
    await editor.page.locator('.quick-input-widget input').fill('cart.js');
    await editor.page.locator('.quick-input-list .monaco-list-row', { hasText: 'cart.js' }).first().click();
    await editor.page
      .locator('.editor-group-container.active .monaco-editor .view-lines', { hasText: 'export function total' })
      .waitFor({ timeout: UI_TIMEOUT_MS });
    await editor.page.keyboard.press('Control+Home');
    await editor.page.keyboard.press('Shift+ArrowDown');
    await editor.page.keyboard.press('Shift+ArrowDown');
    // From the editor's context menu, where it is offered because there is a selection.
    // On the selected text: a right-click outside the selection would move the caret and drop it.
    await editor.page
      .locator('.editor-group-container.active .monaco-editor .view-lines .view-line', { hasText: 'export function total' })
      .click({ button: 'right', position: { x: 30, y: 5 } });
    await editor.page.locator('.monaco-menu .action-label', { hasText: 'Add Selection to Chat' }).click();
    const lines = CART.split('\n');
    const expected = `src/cart.js:L1-L2\n\`\`\`javascript\n${lines[0] ?? ''}\n${lines[1] ?? ''}\n\`\`\``;
    await editor.waitFor(async () => (await composer.inputValue()) === expected, { message: 'the selection in the composer' });
    const requests = model.chatRequests().length;

    // Export Chat: the save dialog's default file in the workspace holds the conversation.
    await editor.runCommand('Zuno: Export Chat');
    const input = editor.page.locator('.quick-input-widget input');
    await editor.waitFor(async () => /zuno-chat-[\d-]+\.md$/.test(await input.inputValue()), {
      message: 'the save dialog with its default name',
    });
    await input.press('Enter');
    let exported = '';
    await editor.waitFor(
      () => {
        const name = readdirSync(editor.workspace).find((file) => /^zuno-chat-[\d-]+\.md$/.test(file));
        if (name === undefined) return false;
        exported = readFileSync(join(editor.workspace, name), 'utf8');
        return true;
      },
      { message: 'the exported file' },
    );
    assert.match(exported, /^## You\n\nExplain @src\/cart\.js please/m);
    assert.match(exported, /^- `todo_update` `2 todos`: ok$/m);
    assert.match(exported, /^- `todo_update` `2 changes`: ok$/m);
    assert.match(exported, /^## Zuno\n\nThe \*\*total\*\* starts at 1 instead of 0\.$/m);
    assert.equal(model.chatRequests().length, requests, 'neither Add Selection nor Export sent anything');

    // Screenshots with the panel open, in the light theme the harness starts with and in the dark one.
    await toggle.click();
    await chat.locator(testId('todo-list')).waitFor({ timeout: UI_TIMEOUT_MS });
    await editor.keepArtifacts('issue-14-composer-light');
    await editor.runCommand('Preferences: Color Theme');
    await editor.page.locator('.quick-input-widget input').fill('Dark Modern');
    await editor.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Dark Modern' }).first().click();
    await editor.page.locator('.monaco-workbench.vs-dark').waitFor({ timeout: UI_TIMEOUT_MS });
    await editor.keepArtifacts('issue-14-composer-dark');
    assert.deepEqual(model.violations, []);
  });
});
