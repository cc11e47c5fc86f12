// Issue 14 items 10 and 11 in a real VS Code (code-server + Chromium) against a scripted model:
// the History panel searches what was said, renames and deletes chats; a reload mid-run shows one
// recovery card whose Resume continues the chat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startScriptedOpenAI } from '../support/scripted-openai';
import { RESUME_PROMPT } from '../../src/webview/recovery-words';
import { sendPrompt, testId, toolCard, waitForAnswer } from './support/chat';
import { UI_TIMEOUT_MS, withEditor } from './support/editor';
import { screenshotThemes } from './support/screenshots';
import { reloadAndOpenZuno } from './support/session';

test('issue 14 item 10: history search finds a chat by what was said in it; rename and delete (confirmed) change the list', async (t) => {
  const model = await startScriptedOpenAI({
    script: [{ text: 'The cart total is computed in checkout.js, line 12.' }, { text: 'The README now lists the install steps.' }],
  });
  t.after(() => model.close());
  await withEditor(t, { workspace: { 'README.md': '# sample\n' }, modelBaseUrl: model.baseUrl }, async (editor) => {
    const chat = await editor.openZuno();
    await sendPrompt(chat, 'Where is the cart total computed?');
    await waitForAnswer(chat, 'checkout.js');
    await chat.locator(`${testId('status')}[data-running="false"]`).waitFor({ state: 'attached', timeout: UI_TIMEOUT_MS });
    await chat.locator(testId('new-chat')).click();
    await sendPrompt(chat, 'Write the README install steps');
    await waitForAnswer(chat, 'install steps');
    await chat.locator(`${testId('status')}[data-running="false"]`).waitFor({ state: 'attached', timeout: UI_TIMEOUT_MS });

    await chat.locator(testId('history')).click();
    const panel = chat.locator(testId('history-panel'));
    await panel.locator(testId('session-item')).nth(1).waitFor({ timeout: UI_TIMEOUT_MS });
    // "checkout" is in neither title: only the store's full-text search can find it.
    await panel.locator(testId('history-search')).fill('checkout');
    const found = panel.locator(testId('session-item'));
    await panel.locator(testId('session-excerpt')).waitFor({ timeout: UI_TIMEOUT_MS });
    assert.equal(await found.count(), 1);
    assert.match(await found.innerText(), /Where is the cart total computed/);
    assert.match(await panel.locator(testId('session-excerpt')).innerText(), /checkout\.js/);
    await screenshotThemes(editor, 'history-search');

    // Rename: Enter stores the name; it is what the list shows from then on.
    const cartRow = panel.locator('li', { hasText: 'Where is the cart total computed' });
    await cartRow.locator(testId('session-rename')).click();
    await panel.locator(testId('session-title-input')).fill('Cart total question');
    await panel.locator(testId('session-title-input')).press('Enter');
    await panel.locator(testId('session-item'), { hasText: 'Cart total question' }).waitFor({ timeout: UI_TIMEOUT_MS });

    // Delete asks first; Keep leaves the chat, Delete removes it from the list.
    await panel.locator(testId('history-search')).fill('');
    const readmeRow = panel.locator('li', { hasText: 'Write the README' });
    await readmeRow.locator(testId('session-delete')).click();
    await panel.locator(testId('session-delete-cancel')).click();
    await readmeRow.locator(testId('session-delete')).click();
    await panel.locator(testId('session-delete-confirm')).click();
    // The chat shown was the one deleted: the view is a new, empty chat.
    await chat.locator(testId('message')).first().waitFor({ state: 'detached', timeout: UI_TIMEOUT_MS });
    if (!(await panel.isVisible())) await chat.locator(testId('history')).click();
    await panel.locator(testId('session-item'), { hasText: 'Cart total question' }).waitFor({ timeout: UI_TIMEOUT_MS });
    assert.equal(await panel.locator(testId('session-item'), { hasText: 'Write the README' }).count(), 0);

    // Opening the renamed chat shows its conversation.
    await panel.locator(testId('session-item'), { hasText: 'Cart total question' }).click();
    await waitForAnswer(chat, 'checkout.js');
    assert.deepEqual(model.violations, []);
  });
});

test('issue 14 item 11: after a reload mid-run one recovery card and Resume appear, and Resume continues the chat', async (t) => {
  const model = await startScriptedOpenAI({
    script: [
      { text: 'Running the tests.', toolCalls: [{ id: 'call_i11_test', name: 'shell', arguments: { command: 'npm test' } }] },
      { text: 'Picked up where I stopped: the test run was cut off, so I will check it first.' },
    ],
  });
  t.after(() => model.close());
  const workspace = {
    'package.json': JSON.stringify({ name: 'sample', private: true, scripts: { test: 'node test.js' } }),
    // Runs long enough for the window to reload while it does.
    'test.js': "console.log('running');\nsetTimeout(() => console.log('done'), 120000);\n",
  };
  await withEditor(t, { workspace, modelBaseUrl: model.baseUrl }, async (editor) => {
    let chat = await editor.openZuno();
    await sendPrompt(chat, 'Run the tests');
    const card = toolCard(chat, { callId: 'call_i11_test' });
    await card.locator(testId('approve')).click();
    await chat.locator(`${testId('tool-card')}[data-call-id="call_i11_test"][data-state="running"]`).waitFor({ timeout: UI_TIMEOUT_MS });

    chat = await reloadAndOpenZuno(editor);

    // One card, in plain words, naming the command; no "Interrupted", no "Session resumed.", no raw notice.
    const recovery = chat.locator(testId('recovery-card'));
    await recovery.waitFor({ timeout: UI_TIMEOUT_MS });
    assert.equal(await recovery.count(), 1);
    assert.match(await recovery.innerText(), /Zuno stopped while npm test was running; it was not re-run\./);
    assert.equal(await recovery.locator('code').innerText(), 'npm test');
    assert.equal(await chat.locator(testId('session-end')).count(), 0);
    await screenshotThemes(editor, 'recovery-card');

    await recovery.locator(testId('resume')).click();
    await waitForAnswer(chat, 'Picked up where I stopped');
    assert.equal(await chat.locator(testId('recovery-card')).count(), 1, 'still one card');
    assert.match(await recovery.innerText(), /Resumed/);
    assert.equal(await recovery.locator(testId('resume')).count(), 0, 'Resume is offered once');
    assert.equal(await chat.locator(testId('recovery-notice')).isVisible(), false, 'the notice for the model stays folded');
    const transcriptText = await chat.locator(testId('transcript')).innerText();
    assert.doesNotMatch(transcriptText, /Session resumed|Interrupted/);
    assert.equal(
      await chat.locator(`${testId('message')}[data-role="user"]`).count(),
      1,
      'Resume is not drawn as a message the user typed',
    );

    // World: the same session continued; the model got the recovery notice for the call, then the resume prompt.
    const requests = model.chatRequests();
    assert.equal(requests.length, 2);
    const messages = requests[1]?.body?.messages ?? [];
    assert.equal(messages.at(-1)?.content, RESUME_PROMPT);
    assert.ok(
      messages.some((message) => message.role === 'user' && /call_i11_test/.test(String(message.content))),
      'the recovery notice names the call that was cut off',
    );
    assert.equal(messages.find((message) => message.role === 'user')?.content, 'Run the tests');
    assert.deepEqual(model.violations, []);
  });
});
