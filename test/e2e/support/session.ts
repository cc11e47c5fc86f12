/**
 * Several scenarios in one editor. Starting an editor costs 20–60 s on a two-core machine, so
 * scenarios that leave nothing behind that the next one depends on share one: each starts its own
 * chat (New chat) and queues its own model replies.
 *
 *   const shared = sharedEditor({ workspace: { … } });
 *   before(() => shared.start());
 *   after(() => shared.stop());
 *   it('E2E-…', (t) => shared.scenario(t, async ({ editor, model, replies }) => { … }));
 *
 * The scripted model answers each chat request with the next queued reply; a request with none
 * queued is recorded as a problem, and every scenario ends by checking there was none (and that
 * every request was well paired, see test/support/scripted-openai.ts).
 */
import assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { startScriptedOpenAI, type RecordedRequest, type ScriptedOpenAIServer, type ScriptStep } from '../../support/scripted-openai';
import { testId } from './chat';
import { ZUNO_CHAT_SELECTOR, startEditor, type Editor, type EditorOptions, type NamedTest } from './editor';

export interface ReplyQueue {
  /** Queues replies for the next chat requests, in order. */
  push(...steps: ScriptStep[]): void;
  /** Replies queued and not yet used. */
  readonly pending: number;
}

export interface Scenario {
  readonly editor: Editor;
  readonly model: ScriptedOpenAIServer;
  readonly replies: ReplyQueue;
  /** The chat requests that arrived since this scenario began, in order. */
  readonly requests: () => RecordedRequest[];
}

export interface SharedEditor {
  start(): Promise<void>;
  /**
   * Runs one scenario in a new chat. Afterwards every queued reply must have been used and the
   * model must have seen no pairing problem. On failure the screenshot and logs are kept under
   * test-results/<test name>/.
   */
  scenario(test: NamedTest, body: (scenario: Scenario) => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Stops a turn an earlier scenario may have left running (it failed halfway), waits until none
 * runs (the status line's `data-running`; attached, not visible, since an idle status line is empty),
 * then starts a new, empty chat.
 */
export async function startNewChat(chat: Frame): Promise<void> {
  const cancel = chat.locator(testId('cancel'));
  // The turn may end on its own between the check and the click, disabling the button; the wait
  // for data-running below is what must hold, so a click that finds nothing left to cancel is fine.
  if (await cancel.isEnabled()) await cancel.click({ timeout: 5000 }).catch(() => undefined);
  await chat.locator(`${testId('status')}[data-running="false"]`).waitFor({ state: 'attached' });
  await chat.locator(testId('new-chat')).click();
  await chat.locator(testId('message')).first().waitFor({ state: 'detached' });
  await chat.locator(testId('tool-card')).first().waitFor({ state: 'detached' });
}

/**
 * Reloads the window and opens the Zuno chat again. While the reloaded workbench restores its
 * layout, the sidebar may open on its own just as the test clicks the activity-bar entry, and that
 * click then closes it; so the entry is clicked again, whenever it is not the open one, until the
 * chat view shows.
 */
export async function reloadAndOpenZuno(editor: Editor): Promise<Frame> {
  await editor.reload();
  const { page } = editor;
  const entry = page.locator('.activitybar li.action-item a[aria-label^="Zuno"]');
  const open = page.locator('.activitybar li.action-item.checked a[aria-label^="Zuno"]');
  let chat: Frame | undefined;
  let clickedAt = 0;
  await editor.waitFor(
    async () => {
      for (const frame of page.frames()) {
        if ((await frame.$(ZUNO_CHAT_SELECTOR).catch(() => null)) !== null) {
          chat = frame;
          return true;
        }
      }
      // A webview takes a few seconds to load after its view opens: click again only after that.
      if (Date.now() - clickedAt > 5000 && (await entry.count()) > 0 && (await open.count()) === 0) {
        await entry.click();
        clickedAt = Date.now();
      }
      return false;
    },
    { message: 'the Zuno chat view after the reload', timeoutMs: 60_000 },
  );
  if (chat === undefined) throw new Error('no Zuno chat view after the reload');
  return chat;
}

export function sharedEditor(options: Omit<EditorOptions, 'modelBaseUrl'>): SharedEditor {
  const queue: ScriptStep[] = [];
  const unexpected: string[] = [];
  let model: ScriptedOpenAIServer | undefined;
  let editor: Editor | undefined;

  const replies: ReplyQueue = {
    push: (...steps) => queue.push(...steps),
    get pending() {
      return queue.length;
    },
  };

  return {
    async start() {
      model = await startScriptedOpenAI({
        script: (request, index) => {
          const step = queue.shift();
          if (step === undefined) {
            unexpected.push(`chat request ${index + 1} arrived with no reply queued`);
            return { text: 'No reply was queued for this request.' };
          }
          return typeof step === 'function' ? step(request) : step;
        },
      });
      editor = await startEditor({ ...options, modelBaseUrl: model.baseUrl });
    },

    async scenario(test, body) {
      if (editor === undefined || model === undefined) throw new Error('the shared editor did not start');
      const current = { editor, model };
      const before = model.chatRequests().length;
      const problemsBefore = { violations: model.violations.length, unexpected: unexpected.length };
      queue.length = 0;
      try {
        // A picker an earlier scenario left open would swallow this one's keys.
        if (await editor.page.locator('.quick-input-widget').isVisible()) await editor.page.keyboard.press('Escape');
        await startNewChat(await editor.openZuno());
        await body({ editor, model, replies, requests: () => current.model.chatRequests().slice(before) });
        assert.equal(queue.length, 0, 'every queued model reply was asked for');
        assert.deepEqual(model.violations.slice(problemsBefore.violations), [], 'every model request was well paired');
        assert.deepEqual(unexpected.slice(problemsBefore.unexpected), [], 'no model request came unexpected');
      } catch (error: unknown) {
        test.diagnostic(`screenshot and logs kept in ${await editor.keepArtifacts(test.name)}`);
        throw error;
      }
    },

    async stop() {
      await editor?.stop();
      await model?.close();
    },
  };
}
