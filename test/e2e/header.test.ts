// Issue 14 item 12 in a real VS Code (code-server) through Chromium: the chat header's model and
// permission-mode pickers change the model and the mode, writing the same settings as the
// palette commands; Select Model lists the server's models and offers Set API Key when a server
// answers 401. Asserted on the UI and on the world (settings files, the requests the servers got,
// a file written without an approval in auto-edit).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import type { Frame, Page } from 'playwright-core';
import { startScriptedOpenAI } from '../support/scripted-openai';
import { sendPrompt, testId, waitForAnswer } from './support/chat';
import { E2E_API_KEY, SCRIPTED_MODEL, UI_TIMEOUT_MS, withEditor } from './support/editor';
import { screenshotThemes } from './support/screenshots';

function settingsIn(file: string): Record<string, unknown> {
  return existsSync(file) ? ((parseJsonc(readFileSync(file, 'utf8')) as Record<string, unknown> | undefined) ?? {}) : {};
}

/** The open quick pick's row whose text contains `text`. */
const pickRow = (page: Page, text: string) => page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: text });
const pickInput = (page: Page) => page.locator('.quick-input-widget .quick-input-box input');

test('issue 14 item 12: the header pickers change the mode (auto-edit then writes without asking) and the model (from the server’s list; a server answering 401 gets Set API Key, then lists its models)', async (t) => {
  const main = await startScriptedOpenAI({
    models: [SCRIPTED_MODEL, 'other-model'],
    apiKey: E2E_API_KEY,
    script: [
      { toolCalls: [{ id: 'call_hdr_write', name: 'write', arguments: { path: 'notes.txt', content: 'written in auto-edit\n' } }] },
      { text: 'Wrote notes.txt.' },
      { text: 'Answered by other-model.' },
    ],
  });
  t.after(() => main.close());
  const keyed = await startScriptedOpenAI({
    models: ['keyed-a', 'keyed-b'],
    apiKey: 'sk-second',
    script: [{ text: 'Answered by keyed-b.' }],
  });
  t.after(() => keyed.close());

  await withEditor(t, { workspace: { 'README.md': '# sample\n' }, modelBaseUrl: main.baseUrl }, async (editor) => {
    const { page } = editor;
    const chat = await editor.openZuno();
    const modePicker = chat.locator(testId('mode-picker'));
    const modelPicker = chat.locator(testId('model-picker'));
    await editor.waitFor(async () => (await modelPicker.innerText()).includes(SCRIPTED_MODEL), {
      message: 'the model picker to show the model',
    });
    assert.equal(await modePicker.inputValue(), 'strict');

    // Mode: the dropdown writes zuno.permission.mode to the workspace settings, as Set Permission Mode does.
    await modePicker.selectOption('auto-edit');
    const workspaceSettings = join(editor.workspace, '.vscode', 'settings.json');
    await editor.waitFor(() => settingsIn(workspaceSettings)['zuno.permission.mode'] === 'auto-edit', {
      message: 'zuno.permission.mode in .vscode/settings.json',
    });
    assert.equal(await modePicker.inputValue(), 'auto-edit');
    // World: in auto-edit a write inside the workspace runs with no approval.
    await sendPrompt(chat, 'Write the notes.');
    await waitForAnswer(chat, 'Wrote notes.txt.');
    assert.equal(readFileSync(join(editor.workspace, 'notes.txt'), 'utf8'), 'written in auto-edit\n');
    assert.equal(await chat.locator(testId('approval')).count(), 0, 'no approval was asked');

    // Model: the button opens Select Model on the configured server's own list.
    await modelPicker.click();
    await page.locator('.quick-input-widget .quick-input-title', { hasText: `Zuno: model at ${main.baseUrl}` }).waitFor();
    await pickRow(page, 'other-model').waitFor({ timeout: UI_TIMEOUT_MS });
    assert.match(await pickRow(page, SCRIPTED_MODEL).innerText(), /\(current\)/);
    await pickRow(page, 'other-model').click();
    const userSettings = join(editor.userDataDir, 'User', 'settings.json');
    await editor.waitFor(() => settingsIn(userSettings)['zuno.model.name'] === 'other-model', {
      message: 'zuno.model.name in the user settings',
    });
    await editor.waitFor(async () => (await modelPicker.innerText()).includes('other-model'), {
      message: 'the header to show other-model',
    });
    await sendPrompt(chat, 'Who answers?');
    await waitForAnswer(chat, 'Answered by other-model.');
    assert.equal(main.chatRequests().at(-1)?.body?.model, 'other-model');

    // A server that answers 401 without its key: Set API Key comes first, then its models.
    await modelPicker.click();
    await pickRow(page, 'Change server or provider').click();
    await pickRow(page, 'openai').first().waitFor();
    await pickInput(page).fill('openai');
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'OpenAI-compatible server' }).waitFor();
    await pickInput(page).fill(keyed.baseUrl);
    await page.keyboard.press('Enter');
    await editor.waitFor(async () => /HTTP 401/.test((await pickInput(page).getAttribute('placeholder')) ?? ''), {
      message: 'the picker to say the server refused without a key',
    });
    assert.match((await pickRow(page, 'Set API Key').innerText()).replace(/\s+/g, ' '), /Set API Key/);
    await pickRow(page, 'Set API Key').click();
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'API key for' }).waitFor();
    await pickInput(page).fill('sk-second');
    await page.keyboard.press('Enter');
    await pickRow(page, 'keyed-b').waitFor({ timeout: UI_TIMEOUT_MS });
    await pickRow(page, 'keyed-b').click();
    // The three settings are written one after another: wait for the last one.
    await editor.waitFor(() => settingsIn(userSettings)['zuno.model.name'] === 'keyed-b', { message: 'keyed-b in the user settings' });
    assert.equal(settingsIn(userSettings)['zuno.model.baseUrl'], keyed.baseUrl);
    await editor.waitFor(async () => (await modelPicker.innerText()).includes('keyed-b'), { message: 'the header to show keyed-b' });
    await sendPrompt(chat, 'And now?');
    await waitForAnswer(chat, 'Answered by keyed-b.');
    const last = keyed.chatRequests().at(-1);
    assert.equal(last?.body?.model, 'keyed-b');
    assert.equal(last?.headers.authorization, 'Bearer sk-second', 'the key set in the picker is the one sent');
    await editor.keepArtifacts('issue-14-header-pickers');
    assert.deepEqual(main.violations, []);
    assert.deepEqual(keyed.violations, []);
  });
});

/** The user messages of a model request, in order. */
const userTexts = (messages: readonly { readonly role: string; readonly content?: string | null }[] | undefined): string[] =>
  (messages ?? []).flatMap((message) => (message.role === 'user' ? [String(message.content ?? '')] : []));

test('issue 14: edit-and-resend restores the files through the checkpoint preview and starts from there; Retry sends the last message again from before its answer, nothing replayed', async (t) => {
  const model = await startScriptedOpenAI({
    script: [
      { toolCalls: [{ id: 'call_edit_write', name: 'write', arguments: { path: 'a.txt', content: 'changed by zuno\n' } }] },
      { text: 'Changed a.txt.' },
      { text: 'Left a.txt alone.' },
      { text: 'First hello.' },
      { text: 'Second hello.' },
    ],
  });
  t.after(() => model.close());
  const settings = { 'zuno.permission.mode': 'auto-edit' };
  await withEditor(t, { workspace: { 'a.txt': 'original\n' }, modelBaseUrl: model.baseUrl, settings }, async (editor) => {
    const chat = await editor.openZuno();
    await sendPrompt(chat, 'Change a.txt');
    await waitForAnswer(chat, 'Changed a.txt.');
    assert.equal(readFileSync(join(editor.workspace, 'a.txt'), 'utf8'), 'changed by zuno\n');

    // Edit the first message; "Also restore files" is on, so the restore's preview comes first.
    const first = chat.locator(`${testId('message')}[data-role="user"]`, { hasText: 'Change a.txt' });
    await first.locator(testId('edit-message')).click();
    const input = chat.locator(testId('edit-input'));
    await input.fill('Leave a.txt as it is');
    assert.equal(await chat.locator(testId('edit-restore')).isChecked(), true);
    await chat.locator(testId('edit-send')).click();
    const preview = chat.locator(`${testId('rewind-preview')}[data-busy="false"]`);
    await preview.waitFor({ timeout: UI_TIMEOUT_MS });
    assert.match(await preview.innerText(), /a\.txt/);
    assert.equal(model.chatRequests().length, 2, 'nothing is sent before the restore is confirmed');
    await preview.locator(testId('rewind-confirm')).click();
    await waitForAnswer(chat, 'Left a.txt alone.');
    // World: the file is back, and the model saw only the edited message.
    assert.equal(readFileSync(join(editor.workspace, 'a.txt'), 'utf8'), 'original\n');
    const edited = model.chatRequests()[2]?.body?.messages;
    assert.deepEqual(userTexts(edited), ['Leave a.txt as it is']);
    assert.ok(!(edited ?? []).some((message) => message.role === 'tool'), 'the earlier write is not in what the model sees');

    // Retry: the last message again, from before its answer; the earlier turn stays, the old answer does not.
    await sendPrompt(chat, 'Say hello');
    await waitForAnswer(chat, 'First hello.');
    await chat.locator(`${testId('retry-last')}:visible`).click();
    await waitForAnswer(chat, 'Second hello.');
    const retried = model.chatRequests()[4]?.body?.messages ?? [];
    assert.deepEqual(userTexts(retried), ['Leave a.txt as it is', 'Say hello']);
    assert.ok(!retried.some((message) => message.content === 'First hello.'), 'the retried answer is not sent back');
    assert.match(JSON.stringify(retried), /Left a\.txt alone\./, 'the earlier answer is');
    await editor.waitFor(
      async () => (await chat.locator(`${testId('message')}[data-role="assistant"]`, { hasText: 'First hello.' }).count()) === 0,
      {
        message: 'the chat shown to continue from before the retried answer',
      },
    );
    assert.equal(model.chatRequests().length, 5);
    await editor.keepArtifacts('issue-14-edit-retry');
    assert.deepEqual(model.violations, []);
  });
});

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/**
 * What Chromium delivers for Ctrl+V of a copied image: a paste event carrying an image file.
 * A string: the test's own tsconfig has no DOM types.
 */
const pasteImage = (chat: Frame) =>
  chat.evaluate(`(() => {
    const bytes = Uint8Array.from(atob('${PIXEL}'), (character) => character.charCodeAt(0));
    const data = new DataTransfer();
    data.items.add(new File([bytes], 'pixel.png', { type: 'image/png' }));
    const composer = document.querySelector('[data-testid="composer"]');
    composer.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  })()`);

test('issue 14: an image pasted into the composer shows as a removable thumbnail and reaches a model that takes images as an image_url data URL; pasted while Zuno works, it is queued with its text, removable, and sent with it at the next step', async (t) => {
  const model = await startScriptedOpenAI({
    script: [
      { text: 'It is a single pixel.' },
      { toolCalls: [{ id: 'call_img_write', name: 'write', arguments: { path: 'notes.txt', content: 'n\n' } }] },
      { text: 'The queued picture is a pixel too.' },
    ],
  });
  t.after(() => model.close());
  const pixel = PIXEL;
  const settings = { 'zuno.model.images': true };
  await withEditor(t, { workspace: { 'README.md': '# sample\n' }, modelBaseUrl: model.baseUrl, settings }, async (editor) => {
    const chat = await editor.openZuno();
    const paste = () => pasteImage(chat);
    await paste();
    await paste();
    await editor.waitFor(async () => (await chat.locator(testId('attachment')).count()) === 2, { message: 'two thumbnails' });
    assert.equal(
      await chat
        .locator(`${testId('attachment')} img`)
        .first()
        .getAttribute('src'),
      `data:image/png;base64,${pixel}`,
    );
    await chat.locator(testId('remove-attachment')).first().click();
    await editor.waitFor(async () => (await chat.locator(testId('attachment')).count()) === 1, { message: 'one thumbnail left' });

    await sendPrompt(chat, 'What is in this picture?');
    await waitForAnswer(chat, 'It is a single pixel.');
    assert.deepEqual(model.imagesSeen, [['image/png']], 'one image reached the model, as a valid data URL');
    const user = model.chatRequests()[0]?.body?.messages.find((message) => message.role === 'user');
    assert.match(JSON.stringify(user?.content), /"type":"image_url".*data:image\/png;base64,/);
    await editor.waitFor(async () => (await chat.locator(testId('attachment')).count()) === 0, { message: 'the thumbnail gone once sent' });
    await editor.keepArtifacts('issue-14-image-paste');

    // While Zuno waits on an approval, a message with an image is queued with its image.
    await sendPrompt(chat, 'Write the notes.');
    await chat.locator(`${testId('approve')}[data-call-id="call_img_write"]`).waitFor();
    await paste();
    await editor.waitFor(async () => (await chat.locator(testId('attachment')).count()) === 1, { message: 'a thumbnail while working' });
    await sendPrompt(chat, 'And this picture?');
    const queued = chat.locator(testId('queued-message'));
    await queued.waitFor();
    assert.equal(await queued.locator(testId('queued-image')).count(), 1, 'the queued message shows its image');
    await screenshotThemes(editor, 'queued-message-with-image');
    assert.equal(await chat.locator(testId('error-banner')).isVisible(), false, 'not refused');
    await editor.waitFor(async () => (await chat.locator(testId('attachment')).count()) === 0, {
      message: 'the image went with the message',
    });
    // Removed, it comes back whole into the composer; sent again, it is queued again.
    await queued.locator(testId('unqueue')).click();
    await queued.waitFor({ state: 'detached' });
    assert.equal(await chat.locator(testId('composer')).inputValue(), 'And this picture?');
    assert.equal(await chat.locator(testId('attachment')).count(), 1, 'its image is back in the composer');
    await chat.locator(testId('send')).click();
    await queued.locator(testId('queued-image')).waitFor();

    await chat.locator(`${testId('approve')}[data-call-id="call_img_write"]`).click();
    await waitForAnswer(chat, 'The queued picture is a pixel too.');
    const last = model.chatRequests().at(-1)?.body?.messages.at(-1);
    assert.equal(last?.role, 'user');
    assert.match(JSON.stringify(last?.content), /"text":"And this picture\?".*"type":"image_url".*data:image\/png;base64,/);
    assert.equal(await queued.count(), 0, 'the queue is empty');
    assert.deepEqual(model.violations, []);
  });
});

test('issue 14: with zuno.model.images off, sending a pasted image shows an error naming the setting and keeps the text and the image', async (t) => {
  const model = await startScriptedOpenAI({ script: [] });
  t.after(() => model.close());
  await withEditor(t, { workspace: { 'README.md': '# sample\n' }, modelBaseUrl: model.baseUrl }, async (editor) => {
    const chat = await editor.openZuno();
    await pasteImage(chat);
    await chat.locator(testId('attachment')).waitFor();
    await sendPrompt(chat, 'What is in this picture?');
    const banner = chat.locator(testId('error-banner'));
    await banner.waitFor();
    assert.match((await banner.textContent()) ?? '', /zuno\.model\.images/);
    await editor.waitFor(async () => (await chat.locator(testId('composer')).inputValue()) === 'What is in this picture?', {
      message: 'the text back in the composer',
    });
    assert.equal(await chat.locator(testId('attachment')).count(), 1, 'the image is still there');
    assert.equal(model.chatRequests().length, 0, 'nothing was sent');
  });
});
