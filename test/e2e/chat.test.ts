// Issue 5, end-to-end scenarios in a real VS Code (code-server) driven through Chromium, against
// a scripted OpenAI-compatible server. Each test asserts on the UI and on the world (the
// requests the model received, the files on disk).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startScriptedOpenAI } from '../support/scripted-openai';
import { assistantMessages, sendPrompt, testId, toolCard, waitForAnswer } from './support/chat';
import { E2E_API_KEY, SCRIPTED_MODEL, UI_TIMEOUT_MS, withEditor } from './support/editor';
import { screenshotThemes } from './support/screenshots';

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

test('issue 14 items 3-8: grouped reads, a one-line model mistake, a readable shell approval with "npm test *", exit code and last line, a code block with Copy, Stop and focus', async (t) => {
  const model = await startScriptedOpenAI({
    script: [
      {
        text: 'Looking around.',
        toolCalls: [
          { id: 'call_i14_r1', name: 'read', arguments: { path: 'README.md' } },
          { id: 'call_i14_r2', name: 'read', arguments: { path: 'package.json' } },
          { id: 'call_i14_r3', name: 'read', arguments: { path: 'test.js' } },
          { id: 'call_i14_bad', name: 'write', arguments: { path: 5 } },
        ],
      },
      { toolCalls: [{ id: 'call_i14_shell', name: 'shell', arguments: { command: 'npm test --silent' } }] },
      { text: 'The total is off by one. Fix:\n\n```js\nconst total = 42;\n```' },
    ],
  });
  t.after(() => model.close());
  const workspace = {
    'README.md': '# sample\n',
    'package.json': JSON.stringify({ name: 'sample', private: true, scripts: { test: 'node test.js' } }),
    'test.js': "console.log('running 2 tests');\nconsole.log('AssertionError: 41 !== 42');\nprocess.exit(3);\n",
  };
  await withEditor(t, { workspace, modelBaseUrl: model.baseUrl }, async (editor) => {
    const chat = await editor.openZuno();
    await sendPrompt(chat, 'Why does the test fail?');

    // Item 3: the shell approval is the bare command line; the raw JSON stays folded under Details.
    const shell = toolCard(chat, { callId: 'call_i14_shell' });
    const approval = shell.locator(testId('approval'));
    await approval.waitFor({ timeout: UI_TIMEOUT_MS });
    assert.equal(((await approval.locator(testId('approval-command')).textContent()) ?? '').trim(), 'npm test --silent');
    assert.equal(await approval.locator(testId('approval-preview')).isVisible(), false, 'raw arguments only under Details');
    assert.doesNotMatch(await approval.innerText(), /"command"/);
    assert.match(await approval.locator(testId('approval-reason')).innerText(), /Zuno asks before running commands/);
    await screenshotThemes(editor, 'shell-approval');

    // Item 5: three parallel reads are one row; the invalid write is one muted line.
    const group = chat.locator(testId('tool-group'));
    assert.equal(await group.getAttribute('data-count'), '3');
    assert.match(await group.innerText(), /Read 3 files/);
    const mistake = chat.locator(`${testId('mistake-row')}[data-call-id="call_i14_bad"]`);
    const box = await mistake.boundingBox();
    assert.ok(box !== null && box.height < 32, `the mistake row is one line (${box?.height ?? '?'} px)`);
    assert.match(await mistake.innerText(), /invalid arguments/);

    // Item 8: Stop sits beside Send while Zuno works.
    assert.equal(await chat.locator(testId('stop')).isVisible(), true);

    // Item 4: "Allow like this" offers npm test *; the card then names the rule it added.
    const wider = approval.locator(testId('allow-like-this-choice'));
    assert.match(await wider.innerText(), /npm test \*/);
    await wider.click();
    // Item 8: with no other approval waiting, focus goes back to the composer.
    await editor.waitFor(async () => chat.evaluate<boolean>('document.activeElement?.dataset?.testid === "composer"'), {
      message: 'focus on the composer after the decision',
    });
    await chat.locator(`${testId('tool-card')}[data-call-id="call_i14_shell"][data-state="finished"]`).waitFor({ timeout: UI_TIMEOUT_MS });
    assert.match(await shell.locator('.tool-decision').innerText(), /added the rule "shell: npm test \*"/);

    // Item 5: the failing command shows its exit code and its last line without opening anything.
    assert.equal((await shell.locator(testId('exit-code')).innerText()).trim(), 'exit 3');
    assert.match(await shell.locator(testId('shell-tail')).innerText(), /AssertionError: 41 !== 42/);

    // Item 5: badges are codicons drawn by the editor's icon font, with the declaration in the tooltip.
    const badge = shell.locator(testId('badge-effect'));
    assert.equal(await badge.getAttribute('data-icon'), 'edit');
    assert.match((await badge.getAttribute('title')) ?? '', /Side effects/);
    const icon = badge.locator('.codicon-edit');
    // Read in the page (the tests' tsconfig has no DOM types, hence strings).
    const iconNode = `document.querySelector('[data-call-id="call_i14_shell"] [data-testid="badge-effect"] .codicon')`;
    assert.match(await chat.evaluate<string>(`getComputedStyle(${iconNode}).fontFamily`), /codicon/);
    // The font face loads from the extension's media folder: the CSP's font-src lets it through.
    assert.equal(await chat.evaluate<number>(`document.fonts.load('16px codicon').then((faces) => faces.length)`), 1);
    const glyph = await chat.evaluate<string>(`getComputedStyle(${iconNode}, '::before').content`);
    assert.ok(glyph !== 'none' && glyph !== '""', `the icon has a glyph (${glyph})`);
    const iconBox = await icon.boundingBox();
    assert.ok(iconBox !== null && iconBox.width > 4, 'the icon takes room: its font loaded under the CSP');
    await screenshotThemes(editor, 'shell-row-and-invalid-argument-row');

    // Item 6: the answer's code block is highlighted, labelled, and Copy copies it.
    await waitForAnswer(chat, 'The total is off by one');
    await editor.waitFor(async () => !(await chat.locator(testId('stop')).isVisible()), { message: 'Stop hidden once the run ended' });
    const block = chat.locator(testId('code-block')).last();
    assert.equal((await block.locator(testId('code-language')).innerText()).trim(), 'js');
    assert.equal(await block.locator('.hljs-keyword').count(), 1);
    await block.locator(testId('copy-code')).click();
    await editor.waitFor(async () => (await block.locator(testId('copy-code')).innerText()).trim() === 'Copied', {
      message: 'the Copy button to confirm the copy',
    });
    await screenshotThemes(editor, 'code-block');
    await editor.keepArtifacts('issue-14-chat');
    assert.deepEqual(model.violations, []);
  });
});
