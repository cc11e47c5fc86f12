// Issue 14 items 3 and 13 in a real VS Code (code-server) driven through Chromium, against a
// scripted OpenAI-compatible server: a delegated task followed inside its card, "Approve all N"
// for the approvals one turn asks at once, and Approve / Deny from the diff editor's title bar.
// Every scenario asserts on the UI and on the world (files on disk, what the model was told).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { toolResults, type RecordedRequest, type ScriptedReply } from '../support/scripted-openai';
import { sendPrompt, testId, toolCard, waitForAnswer } from './support/chat';
import { activeDiffEditor, activeTabLabel } from './support/diff-editor';
import { screenshotThemes } from './support/screenshots';
import { sharedEditor } from './support/session';

const shared = sharedEditor({ workspace: { 'README.md': '# shop\n', 'src/cart.js': 'export const total = 41;\n' } });
before(() => shared.start());
after(() => shared.stop());

test('issue 14 item 3: the delegated task card ends Done with its child calls inside it, the child write is approved from it, and its output opens in the card', (t) =>
  shared.scenario(t, async ({ editor, replies, requests }) => {
    const chat = await editor.openZuno();
    // One queue serves parent and child in the order they ask: parent, child, child, parent.
    replies.push(
      { toolCalls: [{ id: 'call_deleg_task', name: 'task', arguments: { goal: 'Write CHANGELOG.md with one entry' } }] },
      {
        toolCalls: [
          { id: 'call_deleg_write', name: 'write', arguments: { path: 'CHANGELOG.md', content: '# Changelog\n\n- Cart total fixed\n' } },
        ],
      },
      { text: 'Wrote CHANGELOG.md.' },
      { text: 'The delegated agent wrote the changelog.' },
    );
    await sendPrompt(chat, 'Delegate writing the changelog.');

    const task = toolCard(chat, { callId: 'call_deleg_task' });
    await chat.locator(`${testId('approval')}[data-call-id="call_deleg_task"]`).waitFor();
    await chat.locator(`${testId('approve')}[data-call-id="call_deleg_task"]`).click();

    // The child's write waits for approval inside the task card, which says what the child is doing.
    const childApproval = task.locator(`${testId('child-call')}[data-call-id="call_deleg_write"] ${testId('approval')}`);
    await childApproval.waitFor();
    assert.match((await task.locator(testId('child-activity')).textContent()) ?? '', /^Now: write CHANGELOG\.md — Waiting for approval$/);
    assert.equal(await chat.locator(`${testId('tool-card')}[data-call-id="call_deleg_write"]`).count(), 0, 'no card of its own');
    await childApproval.locator(testId('approve')).click();

    await waitForAnswer(chat, 'The delegated agent wrote the changelog.');
    await chat.locator(`${testId('tool-card')}[data-call-id="call_deleg_task"][data-outcome="ok"]`).waitFor();
    assert.equal(await task.locator(testId('tool-status')).first().textContent(), 'Done');
    const child = task.locator(`${testId('child-call')}[data-call-id="call_deleg_write"]`);
    assert.equal(await child.getAttribute('data-outcome'), 'ok');
    assert.equal(await child.locator(testId('child-call-status')).textContent(), 'Done');
    assert.equal(await task.locator(testId('child-activity')).textContent(), 'The delegated agent (general) made 1 call and finished.');

    // The child call opens inside the task card like a top-level card: its result is there to read.
    assert.equal(await child.locator(testId('tool-output')).count(), 0, 'closed until asked');
    await child.locator(testId('toggle-details')).click();
    const output = child.locator(testId('tool-output'));
    await output.waitFor();
    assert.match((await output.textContent()) ?? '', /^Created CHANGELOG\.md \(/);
    assert.match((await child.locator(testId('tool-details')).textContent()) ?? '', /Cart total fixed/, 'its arguments too');
    await screenshotThemes(editor, 'delegated-task-child-output');
    assert.equal(await chat.locator(`${testId('tool-card')}[data-outcome="cancelled"]`).count(), 0, 'nothing reads Cancelled');

    // World: the file, and the parent was told the child's real outcome.
    assert.equal(readFileSync(join(editor.workspace, 'CHANGELOG.md'), 'utf8'), '# Changelog\n\n- Cart total fixed\n');
    const last = requests().at(-1);
    assert.ok(last);
    assert.match(
      toolResults(last).get('call_deleg_task') ?? '',
      /^The delegated agent \(general\) finished\.[\s\S]*- write CHANGELOG\.md: ok/,
    );
  }));

test('issue 14 batch approvals: two writes of one turn wait together; "Approve all 2" approves both, each recorded as approved, and both run', (t) =>
  shared.scenario(t, async ({ editor, replies, requests }) => {
    const chat = await editor.openZuno();
    replies.push(
      {
        toolCalls: [
          { id: 'call_pair_one', name: 'write', arguments: { path: 'one.txt', content: 'one\n' } },
          { id: 'call_pair_two', name: 'write', arguments: { path: 'two.txt', content: 'two\n' } },
        ],
      },
      { text: 'Both written.' },
    );
    await sendPrompt(chat, 'Write one.txt and two.txt.');
    const approveAll = chat.locator(testId('approve-all'));
    await editor.waitFor(async () => (await approveAll.count()) === 2, { message: 'both approvals up, each with "Approve all 2"' });
    assert.deepEqual(await approveAll.allTextContents(), ['Approve all 2', 'Approve all 2']);
    await approveAll.last().click();

    await waitForAnswer(chat, 'Both written.');
    assert.equal(readFileSync(join(editor.workspace, 'one.txt'), 'utf8'), 'one\n');
    assert.equal(readFileSync(join(editor.workspace, 'two.txt'), 'utf8'), 'two\n');
    for (const callId of ['call_pair_one', 'call_pair_two']) {
      await chat.locator(`${testId('tool-card')}[data-call-id="${callId}"][data-outcome="ok"]`).waitFor();
      assert.match((await toolCard(chat, { callId }).textContent()) ?? '', /Approved/, `${callId} says it was approved`);
    }
    const last = requests().at(-1);
    assert.ok(last);
    assert.equal(toolResults(last).size, 2, 'the model got both results');
  }));

/** A delegated child's reply, by its goal ("Write A.md" writes A.md) and its step: write, then report. */
function childReply(request: RecordedRequest): ScriptedReply {
  const messages = request.body?.messages ?? [];
  const goal = messages.find((message) => message.role === 'user')?.content ?? '';
  const name = /^Write (\S+)/.exec(goal)?.[1] ?? 'UNKNOWN.md';
  const step = messages.filter((message) => message.role === 'assistant').length;
  return step === 0
    ? { toolCalls: [{ id: `call_batch_${name}`, name: 'write', arguments: { path: name, content: `# ${name}\n` } }] }
    : { text: `Wrote ${name}.` };
}

test('issue 14 batch approvals: two writes pending at once (two delegated agents), "Approve all 2" on one approves both and both run', (t) =>
  shared.scenario(t, async ({ editor, replies }) => {
    const chat = await editor.openZuno();
    // The children ask in whatever order they run, so their replies are worked out from each request.
    replies.push(
      {
        toolCalls: [
          { id: 'call_batch_task_a', name: 'task', arguments: { goal: 'Write A.md' } },
          { id: 'call_batch_task_b', name: 'task', arguments: { goal: 'Write B.md' } },
        ],
      },
      childReply,
      childReply,
      childReply,
      childReply,
      { text: 'Both files are written.' },
    );
    await sendPrompt(chat, 'Delegate A.md and B.md.');
    // The two delegations are asked one after the other (one agent's calls are asked in model order).
    for (const callId of ['call_batch_task_a', 'call_batch_task_b']) {
      await chat.locator(`${testId('approve')}[data-call-id="${callId}"]`).click();
    }

    // Both children wait on their writes at once: each approval offers "Approve all 2".
    const approveAll = chat.locator(testId('approve-all'));
    await editor.waitFor(async () => (await approveAll.count()) === 2, { message: 'two "Approve all 2" buttons' });
    assert.deepEqual(await approveAll.allTextContents(), ['Approve all 2', 'Approve all 2']);
    await approveAll.first().click();

    await waitForAnswer(chat, 'Both files are written.');
    for (const name of ['A.md', 'B.md']) {
      assert.equal(readFileSync(join(editor.workspace, name), 'utf8'), `# ${name}\n`, `${name} was written`);
      const row = chat.locator(`${testId('child-call')}[data-call-id="call_batch_${name}"]`);
      assert.equal(await row.getAttribute('data-outcome'), 'ok');
    }
    assert.equal(await approveAll.count(), 0, 'nothing left to approve');
  }));

/** A button of the active editor's title bar, by the start of its label (the command's title). */
const titleAction = (editor: { readonly page: Page }, label: string) =>
  editor.page.locator(`.editor-group-container.active .editor-actions a.action-label[aria-label^="${label}"]`);

test('issue 14 item 13: Approve and Deny from the diff editor title bar, whose tab reads "cart.js (proposed by Zuno)"', (t) =>
  shared.scenario(t, async ({ editor, replies, requests }) => {
    const chat = await editor.openZuno();
    replies.push(
      { toolCalls: [{ id: 'call_title_edit', name: 'write', arguments: { path: 'src/cart.js', content: 'export const total = 42;\n' } }] },
      { toolCalls: [{ id: 'call_title_new', name: 'write', arguments: { path: 'NOTES.md', content: '# Notes\n' } }] },
      { text: 'One change made, one declined.' },
    );
    await sendPrompt(chat, 'Fix the total, then add notes.');

    // Approve from the title bar: the diff of the edit, named after the file, with its buttons.
    await chat
      .locator(`${testId('show-diff')}[data-call-id="call_title_edit"]`)
      .first()
      .click();
    await activeDiffEditor(editor.page).waitFor();
    await editor.waitFor(async () => (await activeTabLabel(editor.page)).startsWith('cart.js (proposed by Zuno)'), {
      message: 'the diff tab "cart.js (proposed by Zuno)"',
    });
    assert.doesNotMatch(await activeTabLabel(editor.page), /call_title_edit|proposed ›/, 'no call id in the title');
    await titleAction(editor, 'Approve Proposed Change').click();
    await chat.locator(`${testId('tool-card')}[data-call-id="call_title_edit"][data-outcome="ok"]`).waitFor();
    assert.equal(readFileSync(join(editor.workspace, 'src/cart.js'), 'utf8'), 'export const total = 42;\n');

    // Deny from the title bar: the new file's diff, then nothing written and the card says so.
    await chat
      .locator(`${testId('show-diff')}[data-call-id="call_title_new"]`)
      .first()
      .click();
    await editor.waitFor(async () => (await activeTabLabel(editor.page)).startsWith('NOTES.md (new file proposed by Zuno)'), {
      message: 'the diff tab "NOTES.md (new file proposed by Zuno)"',
    });
    await titleAction(editor, 'Deny Proposed Change').click();
    await chat.locator(`${testId('tool-card')}[data-call-id="call_title_new"][data-outcome="blocked"]`).waitFor();
    await waitForAnswer(chat, 'One change made, one declined.');
    assert.equal(existsSync(join(editor.workspace, 'NOTES.md')), false, 'a denied write writes nothing');
    // Both diffs closed with their decisions, and the buttons went with them.
    await editor.waitFor(async () => (await titleAction(editor, 'Approve Proposed Change').count()) === 0, {
      message: 'no Approve button once no proposal is shown',
    });
    const last = requests().at(-1);
    assert.ok(last);
    assert.match(toolResults(last).get('call_title_new') ?? '', /declined/);
  }));
