// Issue 5, scenario 6, in a real VS Code (code-server) driven through Chromium, against a scripted
// OpenAI-compatible server: the user edits the proposed side of a diff preview, then approves.
// What they typed lands on disk byte for byte, and the model is told exactly what they changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyPatch, parsePatch } from 'diff';
import type { Frame, Page } from 'playwright-core';
import { startScriptedOpenAI, toolResults, type RecordedRequest } from '../support/scripted-openai';
import { sendPrompt, testId, toolCard, waitForAnswer } from './support/chat';
import { UI_TIMEOUT_MS, withEditor, type Editor } from './support/editor';
import { screenshotThemes } from './support/screenshots';

/** Typing into Monaco must produce exactly the keys pressed: no suggestions, no auto-indent. */
const PLAIN_TYPING: Readonly<Record<string, unknown>> = {
  'editor.quickSuggestions': { other: 'off', comments: 'off', strings: 'off' },
  'editor.suggestOnTriggerCharacters': false,
  'editor.wordBasedSuggestions': 'off',
  'editor.acceptSuggestionOnEnter': 'off',
  'editor.autoIndent': 'none',
  'editor.autoClosingBrackets': 'never',
  'editor.autoClosingQuotes': 'never',
  'editor.formatOnType': false,
};

const DIFF_EDITOR = '.monaco-diff-editor';

/** The text lines a side of the open diff editor renders (Monaco draws spaces as no-break spaces). */
async function diffSideLines(page: Page, side: 'original' | 'modified'): Promise<string[]> {
  const lines = await page.locator(`${DIFF_EDITOR} .editor.${side} .view-lines .view-line`).allTextContents();
  return lines.map((line) => line.replace(/\u00a0/g, ' '));
}

/** Waits until the diff editor shows `line` on `side`. */
async function waitForDiffLine(editor: Editor, side: 'original' | 'modified', line: string): Promise<void> {
  await editor.waitFor(async () => (await diffSideLines(editor.page, side)).includes(line), {
    message: `"${line}" on the ${side} side of the diff editor`,
  });
}

/** Clicks Show diff on the pending approval of `callId` and waits for the diff editor with the proposal. */
async function showDiff(editor: Editor, chat: Frame, callId: string, proposedLine: string, originalLine?: string): Promise<void> {
  await chat.locator(`${testId('approval')}[data-call-id="${callId}"]`).waitFor();
  await chat.locator(`${testId('show-diff')}[data-call-id="${callId}"]`).click();
  await editor.page.locator(`${DIFF_EDITOR} .editor.modified .view-lines`).waitFor({ timeout: UI_TIMEOUT_MS });
  await waitForDiffLine(editor, 'modified', proposedLine);
  if (originalLine !== undefined) await waitForDiffLine(editor, 'original', originalLine);
}

/** Puts the cursor in the proposed (right, editable) side of the diff editor, at the start of the text. */
async function focusProposedSide(page: Page): Promise<void> {
  await page.locator(`${DIFF_EDITOR} .editor.modified .view-lines`).click();
  await page.keyboard.press('Control+Home');
}

/**
 * The unified diff inside a tool result: from its `--- ` header through the last line that belongs
 * to a hunk. Parsed and checked by the caller.
 */
function unifiedDiffIn(result: string): string {
  const lines = result.split('\n');
  const start = lines.findIndex((line, index) => line.startsWith('--- ') && lines[index + 1]?.startsWith('+++ '));
  assert.notEqual(start, -1, `the tool result carries a unified diff:\n${result}`);
  let end = start + 2;
  while (end < lines.length && /^([ +\-\\]|@@ )/.test(lines[end] ?? '')) end += 1;
  return `${lines.slice(start, end).join('\n')}\n`;
}

/** The `+` and `-` lines of a unified diff's hunks, in order: exactly what changed. */
function changedLines(patch: string): string[] {
  const [file, ...others] = parsePatch(patch);
  assert.equal(others.length, 0, 'the diff covers one file');
  assert.ok(file);
  return file.hunks.flatMap((hunk) => hunk.lines.filter((line) => line.startsWith('+') || line.startsWith('-')));
}

/** The tool message answering `callId` in `request`. */
function resultOf(request: RecordedRequest | undefined, callId: string): string {
  assert.ok(request, `a model request carrying the result of ${callId}`);
  const result = toolResults(request).get(callId);
  assert.ok(result !== undefined, `the request carries a tool message for ${callId}`);
  return result;
}

test('E2E-6 diff edits (issue 4 "Diff-preview approval", SPEC E1/E3): the user edits the proposed side of an apply_patch and of a write diff, approves, their text lands exactly and the model is told their change as a unified diff', async (t) => {
  const original = ['Release plan', '1. freeze the branch', '2. run the tests', '3. tag the release', '4. publish the notes', ''].join(
    '\n',
  );
  // What the model proposes with apply_patch: one line changed, one appended.
  const patch = [
    '*** Begin Patch',
    '*** Update File: plan.txt',
    ' 1. freeze the branch',
    '-2. run the tests',
    '+2. run the unit and e2e tests',
    ' 3. tag the release',
    ' 4. publish the notes',
    '+5. announce it',
    '*** End Patch',
  ].join('\n');
  const proposedPlan = [
    'Release plan',
    '1. freeze the branch',
    '2. run the unit and e2e tests',
    '3. tag the release',
    '4. publish the notes',
    '5. announce it',
    '',
  ].join('\n');
  // What the user makes of it in the diff editor: line 4 extended, a line added at the end.
  const landedPlan = [
    'Release plan',
    '1. freeze the branch',
    '2. run the unit and e2e tests',
    '3. tag the release candidate',
    '4. publish the notes',
    '5. announce it',
    '6. thank the reviewers',
    '',
  ].join('\n');
  // The new file the model proposes with write, and the user's version of it.
  const proposedNote = ['Version 2.0 is out.', 'Thanks to everyone.', ''].join('\n');
  const landedNote = ['Version 2.0 is out today.', 'Thanks to everyone.', ''].join('\n');

  const model = await startScriptedOpenAI({
    script: [
      { text: 'I will update the plan.', toolCalls: [{ id: 'e2e6-patch', name: 'apply_patch', arguments: { patch } }] },
      {
        text: 'Now the announcement.',
        toolCalls: [{ id: 'e2e6-write', name: 'write', arguments: { path: 'announce.txt', content: proposedNote } }],
      },
      { text: 'Both files are written, with your edits.' },
    ],
  });
  t.after(() => model.close());

  await withEditor(t, { workspace: { 'plan.txt': original }, modelBaseUrl: model.baseUrl, settings: PLAIN_TYPING }, async (editor) => {
    const { page } = editor;
    const chat = await editor.openZuno();
    await sendPrompt(chat, 'Update the release plan, then write an announcement.');

    // --- apply_patch: Show diff, edit the proposed side, approve -----------------------------
    await chat.locator(`${testId('approval')}[data-call-id="e2e6-patch"]`).waitFor({ timeout: UI_TIMEOUT_MS });
    await screenshotThemes(editor, 'patch-approval');
    await showDiff(editor, chat, 'e2e6-patch', '2. run the unit and e2e tests', '2. run the tests');
    assert.equal(readFileSync(join(editor.workspace, 'plan.txt'), 'utf8'), original, 'nothing is written before the approval');
    await focusProposedSide(page);
    for (let line = 1; line < 4; line += 1) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    await page.keyboard.type(' candidate');
    await page.keyboard.press('Control+End');
    await page.keyboard.type('6. thank the reviewers\n');
    // UI: the diff editor shows the user's text (the editor has it before Approve reads it).
    await waitForDiffLine(editor, 'modified', '3. tag the release candidate');
    await waitForDiffLine(editor, 'modified', '6. thank the reviewers');
    await chat.locator(`${testId('approve')}[data-call-id="e2e6-patch"]`).click();

    // World: the user's text is on disk, exactly.
    await editor.waitFor(() => readFileSync(join(editor.workspace, 'plan.txt'), 'utf8') !== original, {
      message: 'plan.txt to change on disk',
    });
    assert.equal(readFileSync(join(editor.workspace, 'plan.txt'), 'utf8'), landedPlan);
    // UI: the card ends ok, the diff tab closed without a "save changes?" prompt.
    const patchCard = toolCard(chat, { callId: 'e2e6-patch' });
    await chat.locator(`${testId('tool-card')}[data-call-id="e2e6-patch"][data-state="finished"][data-outcome="ok"]`).waitFor();
    await editor.waitFor(async () => (await page.locator(DIFF_EDITOR).count()) === 0, { message: 'the diff editor to close' });
    assert.equal(await page.locator('.monaco-dialog-box').count(), 0, 'no dialog asks to save the proposal');
    await patchCard.locator(testId('toggle-details')).click();
    const patchOutput = (await patchCard.locator(testId('tool-output')).textContent()) ?? '';
    assert.match(patchOutput, /^\+3\. tag the release candidate$/m, 'the card shows the user change too');

    // --- write: a new file, edited in the preview, approved -----------------------------------
    await showDiff(editor, chat, 'e2e6-write', 'Version 2.0 is out.');
    await focusProposedSide(page);
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.type(' today');
    await waitForDiffLine(editor, 'modified', 'Version 2.0 is out today.');
    await chat.locator(`${testId('approve')}[data-call-id="e2e6-write"]`).click();
    await chat.locator(`${testId('tool-card')}[data-call-id="e2e6-write"][data-state="finished"][data-outcome="ok"]`).waitFor();
    assert.equal(readFileSync(join(editor.workspace, 'announce.txt'), 'utf8'), landedNote);
    assert.equal((await waitForAnswer(chat, 'Both files are written')).trim(), 'Both files are written, with your edits.');

    // World: the model was told exactly what the user changed, as a unified diff from its proposal.
    const requests = model.chatRequests();
    assert.equal(requests.length, 3);
    const patchDiff = unifiedDiffIn(resultOf(requests[1], 'e2e6-patch'));
    assert.deepEqual(changedLines(patchDiff), ['-3. tag the release', '+3. tag the release candidate', '+6. thank the reviewers']);
    assert.equal(applyPatch(proposedPlan, patchDiff), landedPlan, 'the diff takes the proposal to what landed');
    const writeDiff = unifiedDiffIn(resultOf(requests[2], 'e2e6-write'));
    assert.deepEqual(changedLines(writeDiff), ['-Version 2.0 is out.', '+Version 2.0 is out today.']);
    assert.equal(applyPatch(proposedNote, writeDiff), landedNote, 'the diff takes the proposal to what landed');
    assert.deepEqual(model.violations, []);
  });
});
