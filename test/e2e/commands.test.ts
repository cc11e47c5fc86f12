// Issue 5, scenarios 7, 8 and 9, in one real VS Code (code-server) driven through Chromium,
// against a scripted OpenAI-compatible server. Each scenario runs in a chat of its own and
// asserts on the UI and on the world (settings and files on disk, processes, the requests the
// model received).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import type { Frame, Locator, Page } from 'playwright-core';
import { toolResults, type RecordedRequest } from '../support/scripted-openai';
import { sendPrompt, testId, toolCard, waitForAnswer } from './support/chat';
import type { Editor } from './support/editor';
import { reloadAndOpenZuno, sharedEditor } from './support/session';
import { TERMINAL_SETTINGS, processAlive, waitForTerminalLines } from './support/terminal';

/** The names of the tools a model request offered. */
const offeredTools = (request: RecordedRequest | undefined): string[] =>
  (request?.body?.tools ?? []).map((tool) => tool.function.name).sort();

/** The tool message answering `callId` in `request`. */
function resultOf(request: RecordedRequest | undefined, callId: string): string {
  assert.ok(request, `a model request carrying the result of ${callId}`);
  const result = toolResults(request).get(callId);
  assert.ok(result !== undefined, `the request carries a tool message for ${callId}`);
  return result;
}

/** A tool card in a given state: `[data-call-id][data-state][data-outcome]…`. */
const cardIn = (chat: Frame, callId: string, attributes: Readonly<Record<string, string>>): Locator =>
  chat.locator(
    `${testId('tool-card')}[data-call-id="${callId}"]${Object.entries(attributes)
      .map(([name, value]) => `[data-${name}="${value}"]`)
      .join('')}`,
  );

interface CardSummary {
  readonly callId: string;
  readonly tool: string;
  readonly state: string;
  readonly outcome: string;
  readonly category: string;
}

/** The tool cards the transcript shows, top to bottom, as their data attributes say. */
async function cardsShown(chat: Frame): Promise<CardSummary[]> {
  const cards = chat.locator(testId('tool-card'));
  const summaries: CardSummary[] = [];
  for (let index = 0, count = await cards.count(); index < count; index += 1) {
    const card = cards.nth(index);
    const attribute = async (name: string): Promise<string> => (await card.getAttribute(`data-${name}`, { timeout: 1000 })) ?? '';
    summaries.push({
      callId: await attribute('call-id'),
      tool: await attribute('tool'),
      state: await attribute('state'),
      outcome: await attribute('outcome'),
      category: await attribute('category'),
    });
  }
  return summaries;
}

/** Waits until the transcript shows exactly `expected` cards (the view may still be re-drawing). */
async function waitForCards(editor: Editor, chat: Frame, expected: readonly CardSummary[]): Promise<void> {
  let shown: CardSummary[] = [];
  try {
    await editor.waitFor(
      async () => {
        shown = await cardsShown(chat);
        return JSON.stringify(shown) === JSON.stringify(expected);
      },
      { message: 'the expected tool cards' },
    );
  } catch (error: unknown) {
    assert.deepEqual(shown, expected, error instanceof Error ? error.message : String(error));
  }
}

/** The quick pick's checkbox for the item labelled `label`. */
const pickCheckbox = (page: Page, label: string): Locator =>
  page.locator(`.quick-input-widget .quick-input-list .monaco-checkbox[role="checkbox"][aria-label="${label}"]`);

/** Runs "Zuno: Toggle Tools…" and narrows its list to `tool`; resolves to the tool's checkbox. */
async function openToggleTools(editor: Editor, tool: string): Promise<Locator> {
  const { page } = editor;
  await editor.runCommand('Zuno: Toggle Tools');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Zuno: tools the model is offered' }).waitFor();
  await page.locator('.quick-input-widget .quick-input-box input').fill(tool);
  const checkbox = pickCheckbox(page, tool);
  await checkbox.waitFor();
  return checkbox;
}

const shared = sharedEditor({
  workspace: { 'README.md': '# Shop\n\nA small shop.\n' },
  settings: TERMINAL_SETTINGS,
});

describe('issue 5: scenarios 7–9 (one editor)', () => {
  before(() => shared.start());
  after(() => shared.stop());

  it('E2E-7 toggles (SPEC A1, issue 4 "Commands"): Command palette → "Zuno: Toggle Tools…" → webfetch off; the next model request no longer offers webfetch and still offers the others', (t) =>
    shared.scenario(t, async ({ editor, replies, requests }) => {
      const { page } = editor;
      const chat = await editor.openZuno();
      replies.push(
        { text: 'I can read, search, edit, run commands and fetch web pages.' },
        { text: 'Understood: I will not fetch web pages.' },
      );
      await sendPrompt(chat, 'Which tools do you have?');
      await waitForAnswer(chat, 'fetch web pages');
      const before = offeredTools(requests()[0]);
      for (const tool of ['webfetch', 'read', 'write', 'apply_patch', 'shell'])
        assert.ok(before.includes(tool), `${tool} is offered at first: ${before.join(', ')}`);

      // UI: the picker lists webfetch checked; unchecking it and pressing OK closes the picker.
      const webfetch = await openToggleTools(editor, 'webfetch');
      assert.equal(await webfetch.getAttribute('aria-checked'), 'true');
      await webfetch.click();
      await editor.waitFor(async () => (await webfetch.getAttribute('aria-checked')) === 'false', { message: 'webfetch to be unchecked' });
      await page.locator('.quick-input-widget').getByRole('button', { name: 'OK' }).click();
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });

      // World: the switch is written to the workspace settings, and only that switch.
      const settingsFile = join(editor.workspace, '.vscode', 'settings.json');
      const toolsSetting = (): unknown =>
        existsSync(settingsFile) ? (parseJsonc(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>)['zuno.tools'] : undefined;
      await editor.waitFor(() => toolsSetting() !== undefined, { message: 'zuno.tools in .vscode/settings.json' });
      assert.deepEqual(toolsSetting(), { webfetch: false });

      // UI: opened again, the picker shows webfetch off.
      const again = await openToggleTools(editor, 'webfetch');
      assert.equal(await again.getAttribute('aria-checked'), 'false');
      await page.keyboard.press('Escape');
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });

      // World: the next request offers every tool it offered before except webfetch.
      await sendPrompt(await editor.openZuno(), 'Fetch https://example.com for me.');
      await waitForAnswer(chat, 'I will not fetch web pages');
      assert.equal(requests().length, 2);
      assert.deepEqual(
        offeredTools(requests()[1]),
        before.filter((tool) => tool !== 'webfetch'),
      );
    }));

  it('E2E-8 shell (SPEC S1/C1, issue 4 "Terminal-backed shell"): an approved shell call is mirrored in the Zuno terminal and its exit code and output reach the model; Cancel kills its process group and the transcript stays paired', (t) =>
    shared.scenario(t, async ({ editor, replies, requests }) => {
      const { page } = editor;
      const chat = await editor.openZuno();
      const failing = "printf 'alpha\\nbeta\\n'; echo to-stderr >&2; exit 3";
      // The long command starts a child with a duration no other process uses, so the test finds
      // the shell, the child and the sandbox around them by their command lines in /proc on the
      // host (inside the sandbox's PID namespace `$$` would be a namespace PID), and sees all die.
      const long = 'sleep 3017 & echo started-long; wait';
      replies.push(
        { toolCalls: [{ id: 'e2e8-exit', name: 'shell', arguments: { command: failing } }] },
        { text: 'It exited with 3. Now the long one.', toolCalls: [{ id: 'e2e8-long', name: 'shell', arguments: { command: long } }] },
        { text: 'The long command was cancelled, so it did not finish.' },
      );
      await sendPrompt(chat, 'Run the checks, then the long job.');

      // --- exit code and output ------------------------------------------------------------
      await chat.locator(`${testId('approval')}[data-call-id="e2e8-exit"]`).waitFor();
      await chat.locator(`${testId('approve')}[data-call-id="e2e8-exit"]`).click();
      // UI: the Zuno terminal shows the command line, its output and its exit code.
      await waitForTerminalLines(page, [/^Zuno runs its commands/, `$ ${failing}`, 'alpha', 'beta', 'to-stderr', '[exit 3]']);
      // UI: the card says it ran and failed, and shows the output.
      const exitCard = toolCard(chat, { callId: 'e2e8-exit' });
      await cardIn(chat, 'e2e8-exit', { state: 'finished', outcome: 'error' }).waitFor();
      await exitCard.locator(testId('toggle-details')).click();
      assert.match((await exitCard.locator(testId('tool-output')).textContent()) ?? '', /alpha\nbeta\nto-stderr/);

      // --- Cancel kills the process group --------------------------------------------------
      await chat.locator(`${testId('approval')}[data-call-id="e2e8-long"]`).waitFor();
      await chat.locator(`${testId('approve')}[data-call-id="e2e8-long"]`).click();
      const holdingMarker = (): number[] =>
        readdirSync('/proc').flatMap((entry) => {
          if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return [];
          try {
            return readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').includes('sleep 3017') ? [Number(entry)] : [];
          } catch {
            return [];
          }
        });
      await editor.waitFor(() => holdingMarker().length >= 2, { message: 'the long command and its sleep to start' });
      const pids = holdingMarker();
      await waitForTerminalLines(page, [`$ ${long}`, 'started-long']);
      await cardIn(chat, 'e2e8-long', { state: 'running' }).waitFor();
      assert.ok(pids.length >= 2 && pids.every(processAlive), 'the shell and its child run before Cancel');

      await chat.locator(testId('cancel')).click();
      // UI: the card ends cancelled, the turn ends cancelled, the terminal says so.
      await cardIn(chat, 'e2e8-long', { state: 'finished', outcome: 'cancelled' }).waitFor();
      await chat.locator(`${testId('session-end')}[data-reason="cancelled"]`).waitFor();
      await waitForTerminalLines(page, [`$ ${long}`, 'started-long', '[cancelled]']);
      // World: the shell and the sleep it started are gone, not orphaned.
      await editor.waitFor(() => pids.every((pid) => !processAlive(pid)), {
        message: `processes ${pids.join(', ')} to end`,
        timeoutMs: 15_000,
      });

      // World: the first result reached the model exactly, with its exit code; after the cancel
      // the model got no request until the user wrote again.
      assert.equal(requests().length, 2);
      assert.equal(resultOf(requests()[1], 'e2e8-exit'), 'exit code 3\nalpha\nbeta\nto-stderr\n');

      // World: the next request carries the cancelled call answered in its place (pairing is
      // checked on every request by the scripted server).
      await sendPrompt(chat, 'What happened to the long job?');
      await waitForAnswer(chat, 'was cancelled, so it did not finish');
      assert.equal(requests().length, 3);
      const messages = requests()[2]?.body?.messages ?? [];
      const callAt = messages.findIndex((message) => message.tool_calls?.some((call) => call.id === 'e2e8-long'));
      assert.notEqual(callAt, -1, 'the cancelled call is in the transcript');
      assert.equal(messages[callAt + 1]?.role, 'tool');
      assert.equal(messages[callAt + 1]?.tool_call_id, 'e2e8-long');
      assert.match(messages[callAt + 1]?.content ?? '', /cancel/i);
      assert.equal(messages.at(-1)?.content, 'What happened to the long job?');
    }));

  it('E2E-9 reload (SPEC B2/R3, issue 4 "Chat sidebar"): the window reloads in the middle of a turn; the history and the tool cards come back from the store, and the session goes on with every call answered', (t) =>
    shared.scenario(t, async ({ editor, replies, requests }) => {
      let chat = await editor.openZuno();
      replies.push(
        {
          text: 'Looking first.',
          toolCalls: [
            { id: 'e2e9-read', name: 'read', arguments: { path: 'README.md' } },
            { id: 'e2e9-shell', name: 'shell', arguments: { command: 'echo before-reload' } },
          ],
        },
        { text: 'Now a draft.', toolCalls: [{ id: 'e2e9-write', name: 'write', arguments: { path: 'draft.txt', content: 'draft\n' } }] },
        {
          text: 'Then the last step.',
          toolCalls: [{ id: 'e2e9-pending', name: 'shell', arguments: { command: 'echo after > after.txt' } }],
        },
        { text: 'Continuing after the reload.' },
      );
      const prompt = 'Look at the shop and prepare a draft.';
      await sendPrompt(chat, prompt);
      await chat.locator(`${testId('approve')}[data-call-id="e2e9-shell"]`).click();
      await chat.locator(`${testId('deny-reason')}[data-call-id="e2e9-write"]`).fill('Not now.');
      await chat.locator(`${testId('deny')}[data-call-id="e2e9-write"]`).click();
      // Mid-turn: the last call waits for its approval when the window reloads.
      await chat.locator(`${testId('approval')}[data-call-id="e2e9-pending"]`).waitFor();
      const finished: CardSummary[] = [
        { callId: 'e2e9-read', tool: 'read', state: 'finished', outcome: 'ok', category: '' },
        { callId: 'e2e9-shell', tool: 'shell', state: 'finished', outcome: 'ok', category: '' },
        { callId: 'e2e9-write', tool: 'write', state: 'finished', outcome: 'blocked', category: 'denied' },
      ];
      await waitForCards(editor, chat, [
        ...finished,
        { callId: 'e2e9-pending', tool: 'shell', state: 'awaiting-approval', outcome: '', category: '' },
      ]);
      assert.equal(requests().length, 3);

      chat = await reloadAndOpenZuno(editor);

      // UI: the same chat comes back from the store: the prompt, the answers, the cards with
      // their call ids and outcomes, and a note that the turn was interrupted.
      await chat.locator(`${testId('message')}[data-role="user"]`, { hasText: prompt }).waitFor();
      for (const text of ['Looking first.', 'Now a draft.', 'Then the last step.']) {
        await chat.locator(`${testId('message')}[data-role="assistant"]`, { hasText: text }).waitFor();
      }
      // Issue 14 item 11: one recovery card says the run stopped and offers Resume.
      await chat.locator(testId('recovery-card'), { hasText: 'Zuno stopped before it finished' }).waitFor();
      // The call that was waiting can no longer be approved: it ends as cancelled, never run.
      const afterReload: CardSummary[] = [
        ...finished,
        { callId: 'e2e9-pending', tool: 'shell', state: 'finished', outcome: 'cancelled', category: '' },
      ];
      await waitForCards(editor, chat, afterReload);
      assert.equal(await chat.locator(testId('approval')).count(), 0, 'no approval is offered for a turn that is over');
      assert.equal((await cardIn(chat, 'e2e9-pending', {}).locator(testId('tool-status')).textContent())?.trim(), 'Cancelled');
      assert.match((await cardIn(chat, 'e2e9-write', {}).locator(testId('outcome-explanation')).textContent()) ?? '', /Not now\./);

      // UI: the history lists this chat (current) and the chats of the earlier scenarios.
      await chat.locator(testId('history')).click();
      const current = chat.locator(`${testId('session-item')}[aria-current="true"]`);
      await current.waitFor();
      assert.equal((await current.textContent())?.trim(), prompt);
      await chat.locator(testId('history')).click();

      // World: the interrupted call never ran; the session goes on where it was, every call answered.
      assert.equal(existsSync(join(editor.workspace, 'after.txt')), false);
      await sendPrompt(chat, 'Please continue.');
      await waitForAnswer(chat, 'Continuing after the reload.');
      assert.equal(requests().length, 4);
      const resumed = requests()[3];
      assert.equal(resultOf(resumed, 'e2e9-shell'), 'exit code 0\nbefore-reload\n');
      assert.match(resultOf(resumed, 'e2e9-read'), /A small shop\./);
      assert.match(resultOf(resumed, 'e2e9-write'), /^BLOCKED \(denied\)/);
      // Whether the reload's cancellation reached the scheduler before the host went away is a race: either the
      // scheduler recorded the call as cancelled before it started, or no row exists and the loop says so. Both
      // tell the model that nothing ran, which is what R3 requires.
      assert.match(
        resultOf(resumed, 'e2e9-pending'),
        /NOT EXECUTED: .*Nothing ran\.|was not started, because the turn was cancelled\. Nothing happened\./,
      );
      assert.equal(resumed?.body?.messages.find((message) => message.role === 'user')?.content, prompt);
      assert.equal(resumed?.body?.messages.at(-1)?.content, 'Please continue.');
      assert.equal(existsSync(join(editor.workspace, 'after.txt')), false);
      await waitForCards(editor, chat, afterReload);
    }));
});
