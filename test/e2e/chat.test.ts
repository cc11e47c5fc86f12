// Issue 5, end-to-end scenarios in a real VS Code (code-server) driven through Chromium, against
// a scripted OpenAI-compatible server. Each test asserts on the UI and on the world (the
// requests the model received, the files on disk).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startScriptedOpenAI } from '../support/scripted-openai';
import { assistantMessages, sendPrompt, testId, waitForAnswer } from './support/chat';
import { E2E_API_KEY, SCRIPTED_MODEL, withEditor } from './support/editor';

test('E2E-1 chat: a prompt sent from the sidebar reaches the model and its streamed answer appears', async (t) => {
  const answer = 'Hello from the scripted model: the cart module has 4 functions.';
  const model = await startScriptedOpenAI({ script: [{ text: answer }] });
  t.after(() => model.close());

  await withEditor(t, { workspace: { 'README.md': '# sample\n' }, modelBaseUrl: model.baseUrl }, async (editor) => {
    const chat = await editor.openZuno();
    await sendPrompt(chat, 'How many functions does the cart module have?');

    // UI: the user's message, then the whole answer once streaming has finished.
    await chat.locator(`${testId('message')}[data-role="user"]`, { hasText: 'How many functions' }).waitFor();
    assert.equal((await waitForAnswer(chat, 'Hello from the scripted model')).trim(), answer);
    assert.equal(await assistantMessages(chat).count(), 1);

    // World: one streamed request, to the configured model, with the key from ZUNO_API_KEY.
    const [request, ...others] = model.chatRequests();
    assert.equal(others.length, 0);
    assert.ok(request?.body);
    assert.equal(request.body.model, SCRIPTED_MODEL);
    assert.equal(request.body.stream, true);
    assert.equal(request.headers.authorization, `Bearer ${E2E_API_KEY}`);
    const last = request.body.messages.at(-1);
    assert.equal(last?.role, 'user');
    assert.match(String(last?.content), /How many functions does the cart module have\?/);
    assert.deepEqual(model.violations, []);
  });
});
