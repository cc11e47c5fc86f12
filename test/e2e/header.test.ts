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
import type { Page } from 'playwright-core';
import { startScriptedOpenAI } from '../support/scripted-openai';
import { sendPrompt, testId, waitForAnswer } from './support/chat';
import { E2E_API_KEY, SCRIPTED_MODEL, UI_TIMEOUT_MS, withEditor } from './support/editor';

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
