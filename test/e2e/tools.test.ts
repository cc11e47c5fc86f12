// Issue 5, end-to-end scenarios 2–5: tool calls in a real VS Code (code-server) driven through
// Chromium, against a scripted OpenAI-compatible server. Each test asserts on the UI (cards,
// badges, approvals, VS Code's diff editor) and on the world (files on disk byte for byte, the
// requests the model received).
//
// The scenarios share one editor, because each start costs 20–60 s on CI's two cores. They stay
// independent: each starts a new chat, uses its own files, and the scripted model answers by the
// scenario tag in the prompt and the step within that turn, so one scenario failing cannot shift
// another's script.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Locator } from 'playwright-core';
import {
  startScriptedOpenAI,
  type ChatMessage,
  type RecordedRequest,
  type ScriptedOpenAIServer,
  type ScriptedReply,
} from '../support/scripted-openai';
import { sendPrompt, testId, toolCard, waitForAnswer } from './support/chat';
import { activeDiffEditor, activeTabLabel, diffEditorText } from './support/diff-editor';
import { startEditor, UI_TIMEOUT_MS, type Editor } from './support/editor';

// ---------------------------------------------------------------------------------------------
// The workspace. Each scenario touches only its own files.

const CART_TS = [
  'export function total(items: number[]): number {',
  '  return items.reduce((sum, item) => sum + item, 0);',
  '}',
  '',
  'export function count(items: number[]): number {',
  '  return items.length;',
  '}',
  '',
].join('\n');
const FORMAT_TS = 'export function money(cents: number): string {\n  return (cents / 100).toFixed(2);\n}\n';
/** E2E-4's file: created with known content, and it must survive the denied write untouched. */
const SETTINGS_JSON = '{\n  "theme": "dark",\n  "retries": 3\n}\n';
const ALPHA = 'one\ntwo\nthree\nfour\n';
const BETA = 'red\ngreen\nblue\nwhite\n';

const WORKSPACE: Readonly<Record<string, string>> = {
  'README.md': '# shop\n',
  'src/cart.ts': CART_TS,
  'src/util/format.ts': FORMAT_TS,
  'config/settings.json': SETTINGS_JSON,
  'stale/alpha.txt': ALPHA,
  'stale/beta.txt': BETA,
  'race/alpha.txt': ALPHA,
  'race/beta.txt': BETA,
};

// ---------------------------------------------------------------------------------------------
// The scripted model: one list of replies per scenario tag, indexed by the step within the turn.

type Step = ScriptedReply | ((request: RecordedRequest) => ScriptedReply);

const TAG = /\[(E2E-[\w-]+)\]/;

const contentOf = (message: ChatMessage | undefined): string => message?.content ?? '';

/** The tag of the turn a request belongs to and how many model replies that turn already had. */
function turnOf(request: RecordedRequest): { tag: string; step: number } | undefined {
  const messages = request.body?.messages ?? [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role !== 'user') continue;
    const tag = TAG.exec(contentOf(message))?.[1];
    if (tag === undefined) return undefined;
    return { tag, step: messages.slice(index + 1).filter((later) => later.role === 'assistant').length };
  }
  return undefined;
}

function scenarioScript(turns: Readonly<Record<string, readonly Step[]>>): (request: RecordedRequest) => ScriptedReply {
  return (request) => {
    const turn = turnOf(request);
    const step = turn === undefined ? undefined : turns[turn.tag]?.[turn.step];
    if (turn === undefined || step === undefined) {
      return {
        error: {
          status: 500,
          message: `the script has no reply for ${turn === undefined ? 'an untagged turn' : `${turn.tag} step ${turn.step}`}`,
        },
      };
    }
    return typeof step === 'function' ? step(request) : step;
  };
}

/** The chat requests of one scenario's turn, in order. */
const requestsOf = (server: ScriptedOpenAIServer, tag: string): RecordedRequest[] =>
  server.chatRequests().filter((request) => turnOf(request)?.tag === tag);

/** The `role: "tool"` messages after the last assistant message of a request, in order. */
function lastToolMessages(request: RecordedRequest | undefined): ChatMessage[] {
  const messages = request?.body?.messages ?? [];
  let lastAssistant = messages.length - 1;
  while (lastAssistant >= 0 && messages[lastAssistant]?.role !== 'assistant') lastAssistant--;
  return messages.slice(lastAssistant + 1).filter((message) => message.role === 'tool');
}

// ---------------------------------------------------------------------------------------------
// Scenario scripts.

const E2E_2 = { read: 'call_e2e2_read', glob: 'call_e2e2_glob', grep: 'call_e2e2_grep' } as const;
const E2E_3_CALL = 'call_e2e3_write';
/** CRLF endings, non-ASCII text and a tab: "exactly that text" has to survive all three. */
const PLAN_MD = '# Plan\r\n\r\n- café: ship the cart totals\r\n- naïve retry → backoff\tsoon\r\n';
const E2E_4_CALL = 'call_e2e4_write';
const DENY_REASON = 'Keep retries at 3: the ops runbook depends on it';
const E2E_5A_CALL = 'call_e2e5a_patch';
const E2E_5B_CALL = 'call_e2e5b_patch';

/** A two-file patch; `betaRemoved` is the line the second file's hunk expects to find. */
const twoFilePatch = (folder: string, betaRemoved: string): string =>
  [
    '*** Begin Patch',
    `*** Update File: ${folder}/alpha.txt`,
    ' one',
    '-two',
    '+TWO',
    ' three',
    `*** Update File: ${folder}/beta.txt`,
    ' red',
    `-${betaRemoved}`,
    `+${betaRemoved.toUpperCase()}`,
    ' blue',
    '*** End Patch',
  ].join('\n');

const SCRIPT = scenarioScript({
  'E2E-2': [
    {
      text: 'Let me look around.',
      toolCalls: [
        { id: E2E_2.read, name: 'read', arguments: { path: 'src/cart.ts' } },
        { id: E2E_2.glob, name: 'glob', arguments: { pattern: '**/*.ts' } },
        { id: E2E_2.grep, name: 'grep', arguments: { pattern: '^export function', path: 'src' } },
      ],
    },
    { text: 'The cart module exports total and count; money lives in src/util/format.ts.' },
  ],
  'E2E-3': [
    { toolCalls: [{ id: E2E_3_CALL, name: 'write', arguments: { path: 'notes/plan.md', content: PLAN_MD } }] },
    { text: 'The plan is written to notes/plan.md.' },
  ],
  'E2E-4': [
    { toolCalls: [{ id: E2E_4_CALL, name: 'write', arguments: { path: 'config/settings.json', content: '{ "retries": 10 }\n' } }] },
    { text: 'Understood: settings.json stays as it is.' },
  ],
  'E2E-5a': [
    { toolCalls: [{ id: E2E_5A_CALL, name: 'apply_patch', arguments: { patch: twoFilePatch('stale', 'yellow') } }] },
    { text: 'The patch did not apply; I will read stale/beta.txt again.' },
  ],
  'E2E-5b': [
    { toolCalls: [{ id: E2E_5B_CALL, name: 'apply_patch', arguments: { patch: twoFilePatch('race', 'green') } }] },
    { text: 'race/beta.txt changed under the patch; I will read it again.' },
  ],
});

// ---------------------------------------------------------------------------------------------
// One editor for the file.

let model: ScriptedOpenAIServer;
let editor: Editor;
let chat: Frame;

before(async () => {
  model = await startScriptedOpenAI({ script: SCRIPT });
  editor = await startEditor({ workspace: WORKSPACE, modelBaseUrl: model.baseUrl });
  chat = await editor.openZuno();
});

after(async () => {
  await editor?.stop();
  await model?.close();
});

/** Runs a scenario; when it fails, the screenshot and logs are kept under test-results/<test name>/. */
async function scenario(t: TestContext, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error: unknown) {
    t.diagnostic(`screenshot and logs kept in ${await editor.keepArtifacts(t.name)}`);
    throw error;
  }
}

const sha256 = (path: string): string =>
  createHash('sha256')
    .update(readFileSync(join(editor.workspace, path)))
    .digest('hex');
const bytesOf = (path: string): Buffer => readFileSync(join(editor.workspace, path));

/**
 * Starts a new chat, so each scenario's requests carry only its own conversation. A turn left
 * running by a failed scenario is cancelled first (New chat is refused while one runs).
 */
async function newChat(): Promise<void> {
  const cancel = chat.locator(testId('cancel'));
  if (await cancel.isEnabled()) await cancel.click();
  await chat.locator(`${testId('status')}[data-running="false"]`).waitFor({ state: 'attached', timeout: UI_TIMEOUT_MS });
  const dismiss = chat.locator(testId('dismiss-error'));
  if (await dismiss.isVisible()) await dismiss.click();
  await chat.locator(testId('new-chat')).click();
  await editor.waitFor(
    async () => (await chat.locator(testId('message')).count()) === 0 && (await chat.locator(testId('tool-card')).count()) === 0,
    {
      message: 'an empty transcript after New chat',
    },
  );
}

/** Counts every approval that appears in the chat view from now on, even one that is gone again. */
async function watchApprovals(): Promise<() => Promise<number>> {
  await chat.evaluate(`(() => {
    window.__zunoApprovalsSeen = new Set();
    const note = () => document.querySelectorAll('[data-testid="approval"]').forEach((node) => window.__zunoApprovalsSeen.add(node.dataset.callId));
    window.__zunoApprovalObserver?.disconnect();
    window.__zunoApprovalObserver = new MutationObserver(note);
    window.__zunoApprovalObserver.observe(document.body, { subtree: true, childList: true });
    note();
  })()`);
  return () => chat.evaluate<number>('window.__zunoApprovalsSeen.size');
}

/**
 * Waits for the card of `callId` to have the given attributes, e.g. `{ 'data-outcome': 'ok' }`,
 * and returns a locator for the card whatever its attributes become later.
 */
async function cardWith(callId: string, attributes: Readonly<Record<string, string>>): Promise<Locator> {
  const selector = Object.entries(attributes)
    .map(([name, value]) => `[${name}="${value}"]`)
    .join('');
  await chat.locator(`${testId('tool-card')}[data-call-id="${callId}"]${selector}`).waitFor({ timeout: UI_TIMEOUT_MS });
  return toolCard(chat, { callId });
}

const textOf = async (locator: Locator): Promise<string> => ((await locator.textContent()) ?? '').trim();

/** Opens a card's details and returns the output shown there. */
async function cardOutput(callId: string): Promise<string> {
  const card = toolCard(chat, { callId });
  const output = card.locator(testId('tool-output'));
  if ((await output.count()) === 0) await card.locator(testId('toggle-details')).click();
  await output.waitFor({ timeout: UI_TIMEOUT_MS });
  return (await output.textContent()) ?? '';
}

// ---------------------------------------------------------------------------------------------

test('E2E-2 / E1 E3 R1 C1 C2: read, glob and grep in one turn run without approval, show their badges, and reach the model in call order', async (t) => {
  await scenario(t, async () => {
    await newChat();
    const approvalsSeen = await watchApprovals();
    await sendPrompt(chat, '[E2E-2] What does the cart module export?');

    // UI: the answer arrives, which the turn can only reach with every call settled.
    await waitForAnswer(chat, 'The cart module exports total and count');
    for (const callId of Object.values(E2E_2)) {
      const card = await cardWith(callId, { 'data-state': 'finished', 'data-outcome': 'ok', 'data-category': '' });
      assert.equal(await textOf(card.locator(testId('badge-effect'))), 'ReadOnly', `${callId}: effect badge`);
      assert.equal(await textOf(card.locator(testId('badge-replay'))), 'replay: Safe', `${callId}: replay badge`);
      assert.equal(await textOf(card.locator(testId('badge-concurrency'))), 'ParallelSafe', `${callId}: concurrency badge`);
      assert.equal(await textOf(card.locator(testId('tool-status'))), 'Done');
    }
    const cards = chat.locator(testId('tool-card'));
    assert.deepEqual(
      await Promise.all((await cards.all()).map((card) => card.getAttribute('data-tool'))),
      ['read', 'glob', 'grep'],
      'cards in call order',
    );
    assert.equal(await approvalsSeen(), 0, 'no approval appeared at any point of the turn');

    // World: two requests; the second answers the three calls, in call order, with the real results.
    const requests = requestsOf(model, 'E2E-2');
    assert.equal(requests.length, 2);
    assert.equal(requests[0]?.body?.messages.filter((message) => message.role === 'user').length, 1, 'a new chat carries only this prompt');
    const calls = requests[1]?.body?.messages.find((message) => message.role === 'assistant')?.tool_calls ?? [];
    assert.deepEqual(
      calls.map((call) => [call.id, call.function.name]),
      [
        [E2E_2.read, 'read'],
        [E2E_2.glob, 'glob'],
        [E2E_2.grep, 'grep'],
      ],
      "the model's own calls, as it made them",
    );
    const results = lastToolMessages(requests[1]);
    assert.deepEqual(
      results.map((message) => message.tool_call_id),
      [E2E_2.read, E2E_2.glob, E2E_2.grep],
      'the results, in call order',
    );
    const [read, glob, grep] = results.map(contentOf);
    assert.equal(
      read,
      `${CART_TS.split('\n')
        .slice(0, -1)
        .map((line, index) => `${String(index + 1).padStart(6)}\t${line}`)
        .join('\n')}\n\n[src/cart.ts: all 7 lines.]`,
    );
    assert.equal(glob, '2 files match "**/*.ts" in the workspace:\nsrc/cart.ts\nsrc/util/format.ts');
    assert.equal(
      grep,
      [
        '3 matching lines in 2 files for "^export function" in src:',
        'src/cart.ts:1:export function total(items: number[]): number {',
        'src/cart.ts:5:export function count(items: number[]): number {',
        'src/util/format.ts:1:export function money(cents: number): string {',
      ].join('\n'),
    );
    // The card shows what the model was given.
    assert.equal((await cardOutput(E2E_2.read)).trim(), read?.trim());
    assert.deepEqual(model.violations, []);
  });
});

test("E2E-3 / E3 S1: a write asks for approval, Show diff opens the proposed text in VS Code's diff editor, and Approve writes exactly that text", async (t) => {
  await scenario(t, async () => {
    await newChat();
    const target = join(editor.workspace, 'notes/plan.md');
    await sendPrompt(chat, '[E2E-3] Write the plan to notes/plan.md');

    // UI: an inline approval on the write card; nothing is written while it waits.
    const card = await cardWith(E2E_3_CALL, { 'data-tool': 'write', 'data-state': 'awaiting-approval' });
    const approval = card.locator(testId('approval'));
    await approval.waitFor({ timeout: UI_TIMEOUT_MS });
    assert.equal(await textOf(card.locator(testId('tool-status'))), 'Waiting for approval');
    assert.equal(await textOf(card.locator(testId('badge-effect'))), 'SideEffecting');
    assert.throws(() => statSync(target), /ENOENT/, 'nothing is written before the approval');

    // Show diff: VS Code's diff editor, the proposal on the editable right-hand side.
    await approval.locator(testId('show-diff')).click();
    await activeDiffEditor(editor.page).waitFor({ timeout: UI_TIMEOUT_MS });
    await editor.waitFor(async () => (await activeTabLabel(editor.page)).includes('plan.md (new file proposed by Zuno)'), {
      message: 'the diff tab of plan.md',
    });
    // Monaco draws a tab as spaces up to the next tab stop: whitespace runs are compared as one space.
    const lines = (text: string): string[] => text.split(/\r?\n/).map((line) => line.replace(/\s+/g, ' '));
    let shown: string[] = [];
    await editor.waitFor(
      async () => {
        shown = lines(await diffEditorText(editor.page, 'modified'));
        return shown.length === lines(PLAN_MD).length;
      },
      { message: 'the proposed text in the diff editor' },
    );
    assert.deepEqual(shown, lines(PLAN_MD));

    // Approve: the file holds exactly the proposed bytes; the card and the diff tab settle.
    await approval.locator(testId('approve')).click();
    await cardWith(E2E_3_CALL, { 'data-state': 'finished', 'data-outcome': 'ok' });
    assert.equal(await card.locator(testId('approval')).count(), 0);
    assert.equal(await textOf(card.locator(testId('tool-status'))), 'Done');
    assert.equal(await textOf(card.locator('.tool-decision')), 'Approved.');
    await waitForAnswer(chat, 'The plan is written');
    assert.deepEqual(bytesOf('notes/plan.md'), Buffer.from(PLAN_MD, 'utf8'));
    await editor.waitFor(async () => (await activeDiffEditor(editor.page).count()) === 0, {
      message: 'the diff tab to close after the decision',
    });

    // World: the model is told it worked, with the size it wrote.
    const requests = requestsOf(model, 'E2E-3');
    assert.equal(requests.length, 2);
    const [result, ...others] = lastToolMessages(requests[1]);
    assert.equal(others.length, 0);
    assert.equal(result?.tool_call_id, E2E_3_CALL);
    assert.equal(contentOf(result), `Created notes/plan.md (${Buffer.byteLength(PLAN_MD)} bytes, 4 lines).`);
    assert.deepEqual(model.violations, []);
  });
});

test('E2E-4 / B1 B2 B3: a denied write is blocked, not run; the file is untouched and the model is told, with the reason', async (t) => {
  await scenario(t, async () => {
    await newChat();
    const path = 'config/settings.json';
    const before = { bytes: bytesOf(path), mtimeMs: statSync(join(editor.workspace, path)).mtimeMs };
    assert.equal(before.bytes.toString('utf8'), SETTINGS_JSON);
    await sendPrompt(chat, '[E2E-4] Set retries to 10 in config/settings.json');

    const card = await cardWith(E2E_4_CALL, { 'data-tool': 'write', 'data-state': 'awaiting-approval' });
    await card.locator(testId('deny-reason')).fill(DENY_REASON);
    await card.locator(testId('deny')).click();

    // UI: blocked, denied, and worded as never run.
    await cardWith(E2E_4_CALL, { 'data-state': 'finished', 'data-outcome': 'blocked', 'data-category': 'denied' });
    assert.equal(await textOf(card.locator(testId('tool-status'))), 'Not run — blocked: denied');
    assert.equal(
      await textOf(card.locator(testId('outcome-explanation'))),
      `The user declined: ${DENY_REASON} Nothing ran and no state was changed.`,
    );
    assert.equal(await card.locator(testId('approval')).count(), 0);
    assert.equal(await card.locator('.tool-duration').count(), 0, 'a call that never ran shows no run time');
    await waitForAnswer(chat, 'settings.json stays as it is');

    // World: the file is byte for byte what it was, and the model got the blocked result.
    assert.deepEqual(bytesOf(path), before.bytes);
    assert.equal(statSync(join(editor.workspace, path)).mtimeMs, before.mtimeMs);
    const requests = requestsOf(model, 'E2E-4');
    assert.equal(requests.length, 2);
    const results = lastToolMessages(requests[1]);
    assert.deepEqual(
      results.map((message) => message.tool_call_id),
      [E2E_4_CALL],
    );
    assert.equal(
      contentOf(results[0]),
      `BLOCKED (denied): the call to "write" was NOT executed, because permission was denied. Nothing happened; no state was changed.\nReason: The user declined: ${DENY_REASON}`,
    );
    assert.deepEqual(model.violations, []);
  });
});

test('E2E-5a / S1 B3: a two-file apply_patch whose second hunk is stale changes nothing and the model gets the verification error', async (t) => {
  await scenario(t, async () => {
    await newChat();
    const files = ['stale/alpha.txt', 'stale/beta.txt'];
    const before = files.map(sha256);
    const approvalsSeen = await watchApprovals();
    await sendPrompt(chat, '[E2E-5a] Capitalise two and yellow');

    // UI: the proposal cannot even be prepared, so no approval is asked; the card is an error
    // (the call was not refused: it could not be carried out), not a blocked call.
    const card = await cardWith(E2E_5A_CALL, {
      'data-tool': 'apply_patch',
      'data-state': 'finished',
      'data-outcome': 'error',
      'data-category': '',
    });
    await waitForAnswer(chat, 'The patch did not apply');
    assert.equal(await approvalsSeen(), 0, 'no approval is asked for a patch that does not fit');
    assert.equal(await textOf(card.locator(testId('tool-status'))), 'Failed');
    assert.equal(await textOf(card.locator(testId('outcome-explanation'))), 'It did not run: it failed before it could start.');
    assert.equal(await card.locator('.tool-duration').count(), 0, 'a call that never ran shows no run time');

    // World: both files as they were; the model got the verification error, naming beta's hunk
    // and the first line that differs, and not a refusal.
    assert.deepEqual(files.map(sha256), before);
    const requests = requestsOf(model, 'E2E-5a');
    assert.equal(requests.length, 2);
    const results = lastToolMessages(requests[1]);
    assert.deepEqual(
      results.map((message) => message.tool_call_id),
      [E2E_5A_CALL],
    );
    const error = contentOf(results[0]);
    assert.ok(error.startsWith('The call to "apply_patch" was not executed: its proposed change could not be prepared. '), error);
    assert.ok(error.includes('Hunk 1 of 1 for stale/beta.txt (patch line 8, starting " red") does not match the current file.'), error);
    assert.ok(error.includes('First difference, at line 2: expected "yellow", the file has "green".'), error);
    assert.ok(error.endsWith('No file was changed. Fix this and send the whole patch again.'), error);
    assert.doesNotMatch(error, /alpha\.txt/, 'the hunk that fits is not reported as failing');
    assert.doesNotMatch(error, /BLOCKED/);
    // The card shows the same text the model got.
    assert.equal((await cardOutput(E2E_5A_CALL)).trim(), error.trim());
    assert.deepEqual(model.violations, []);
  });
});

test('E2E-5b / S1 B3: an approved two-file apply_patch whose second file changed on disk meanwhile fails its run-time verification and writes nothing', async (t) => {
  await scenario(t, async () => {
    await newChat();
    await sendPrompt(chat, '[E2E-5b] Capitalise two and green');

    // The patch fits when it is proposed, so it asks for approval.
    const card = await cardWith(E2E_5B_CALL, { 'data-tool': 'apply_patch', 'data-state': 'awaiting-approval' });
    const approval = card.locator(testId('approval'));
    await approval.waitFor({ timeout: UI_TIMEOUT_MS });

    // Someone else edits beta while the approval waits: its hunk no longer fits.
    const betaNow = 'red\nteal\nblue\nwhite\n';
    writeFileSync(join(editor.workspace, 'race/beta.txt'), betaNow);
    const alphaBefore = sha256('race/alpha.txt');

    // The first Approve is held back with a warning; the second goes ahead.
    await approval.locator(testId('approve')).click();
    const banner = chat.locator(testId('error-banner'));
    await banner.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    assert.match(await textOf(banner), /race\/beta\.txt changed on disk after this proposal was made/);
    await editor.waitFor(async () => await approval.locator(testId('approve')).isEnabled(), { message: 'Approve to be enabled again' });
    await approval.locator(testId('approve')).click();

    // UI: the call ran and failed: an error, not a blocked call.
    await cardWith(E2E_5B_CALL, { 'data-state': 'finished', 'data-outcome': 'error', 'data-category': '' });
    await waitForAnswer(chat, 'race/beta.txt changed under the patch');
    assert.equal(await textOf(card.locator(testId('tool-status'))), 'Failed');
    assert.equal(await textOf(card.locator(testId('outcome-explanation'))), 'It ran and reported an error.');

    // World: alpha untouched, beta exactly as the other writer left it.
    assert.equal(sha256('race/alpha.txt'), alphaBefore);
    assert.equal(bytesOf('race/alpha.txt').toString('utf8'), ALPHA);
    assert.equal(bytesOf('race/beta.txt').toString('utf8'), betaNow);
    const requests = requestsOf(model, 'E2E-5b');
    assert.equal(requests.length, 2);
    const results = lastToolMessages(requests[1]);
    assert.deepEqual(
      results.map((message) => message.tool_call_id),
      [E2E_5B_CALL],
    );
    const error = contentOf(results[0]);
    assert.ok(error.startsWith('Hunk 1 of 1 for race/beta.txt (patch line 8, starting " red") does not match the current file.'), error);
    assert.ok(error.includes('First difference, at line 2: expected "green", the file has "teal".'), error);
    assert.ok(error.endsWith('No file was changed. Fix this and send the whole patch again.'), error);
    assert.doesNotMatch(error, /alpha\.txt|BLOCKED/);
    assert.equal((await cardOutput(E2E_5B_CALL)).trim(), error.trim());
    assert.deepEqual(model.violations, []);
  });
});
