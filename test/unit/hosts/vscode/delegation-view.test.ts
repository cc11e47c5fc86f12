// Issue 14 item 3, a delegated task followed in the chat: the real runtime (store, scheduler, child
// agents) talks to a scripted OpenAI server on 127.0.0.1; its events go through the editor's
// ChatController and ApprovalBroker into the webview's ViewModel, as in the editor. Only the
// editor's diff and settings calls are stand-ins.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modelSource } from '../../../../src/agent/delegation';
import { agentRunner } from '../../../../src/agent/loop';
import { OpenAIProvider } from '../../../../src/agent/openai';
import { createRuntime } from '../../../../src/agent/runtime';
import { parseConfig } from '../../../../src/core/config';
import { createNodeHost } from '../../../../src/hosts/node/host';
import { ApprovalBroker, type ApprovalEnvironment } from '../../../../src/hosts/vscode/approval-state';
import { ChatController } from '../../../../src/hosts/vscode/chat-controller';
import { fakeBackend } from './support/fake-backend';
import { QuestionBroker } from '../../../../src/hosts/vscode/question-state';
import type { PendingApproval, ToWebview } from '../../../../src/webview/protocol';
import { currentChildCall } from '../../../../media/delegation';
import { ViewModel } from '../../../../media/view-model';
import type { ToolItem } from '../../../../media/transcript';
import { startScriptedOpenAI, type RecordedRequest, type ScriptedReply } from '../../../support/scripted-openai';

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const CHILD_MARKER = 'You are a delegated agent';
const isChild = (request: RecordedRequest): boolean =>
  (request.body?.messages.find((message) => message.role === 'system')?.content ?? '').includes(CHILD_MARKER);
const stepOf = (request: RecordedRequest): number =>
  (request.body?.messages ?? []).filter((message) => message.role === 'assistant').length;

const noEditor: Omit<ApprovalEnvironment, 'post'> = {
  showDiff: async () => undefined,
  proposedText: async () => undefined,
  unsavedPaths: () => [],
  currentText: async () => undefined,
  addAllowRule: async () => undefined,
  discardProposals: async () => undefined,
};

interface Chat {
  readonly controller: ChatController;
  readonly view: ViewModel;
  readonly posted: ToWebview[];
  readonly workspace: string;
  readonly send: (text: string) => Promise<void>;
}

/** The editor's chat over a real runtime; every approval the view shows is approved by "the user". */
async function chat(
  parent: readonly ScriptedReply[],
  child: readonly ScriptedReply[],
  onApproval?: (view: ViewModel, approval: PendingApproval) => void,
): Promise<Chat> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-deleg-view-')));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const workspace = join(root, 'workspace');
  const stateDir = join(root, 'state');
  mkdirSync(workspace);
  const server = await startScriptedOpenAI({
    script: (request) => (isChild(request) ? child : parent)[stepOf(request)] ?? { error: { status: 500, message: 'no scripted step' } },
  });
  cleanups.push(() => server.close());
  const provider = new OpenAIProvider({
    baseUrl: server.baseUrl,
    model: 'scripted-model',
    apiKey: { key: undefined, envVar: undefined },
    retry: { attempts: 1, baseDelayMs: 1 },
  });
  const broker = new ApprovalBroker(
    {
      ...noEditor,
      // The controller is made below; the broker posts only once a run asks for approval.
      post: (message) => chatController.post(message),
      currentText: async (path) => {
        try {
          return readFileSync(path, 'utf8');
        } catch {
          return undefined;
        }
      },
    },
    workspace,
  );
  const runtime = await createRuntime({
    config: parseConfig({ sandbox: { mode: 'off' } }),
    workspaceRoot: workspace,
    stateDir,
    host: createNodeHost({ stateDir, approvals: broker }),
    models: modelSource(provider),
  });
  cleanups.push(() => runtime.close());
  const run = agentRunner({
    store: runtime.store,
    scheduler: runtime.scheduler,
    registry: runtime.registry,
    env: runtime.env,
    events: runtime.events,
  });
  const backend = fakeBackend({
    events: (sessionId) => runtime.store.events(sessionId),
    callOutput: (sessionId, callId) => runtime.store.getCall(sessionId, callId)?.output,
    hasSession: (sessionId) => runtime.store.getSession(sessionId) !== undefined,
    run: async (prompt, sessionId, signal) => {
      await run({ provider, prompt, signal, ...(sessionId !== undefined ? { sessionId } : {}) });
    },
    status: (running) => ({ permissionMode: 'strict', modelLabel: 'scripted-model', running }),
  });
  const view = new ViewModel();
  const posted: ToWebview[] = [];
  const chatController = new ChatController(backend, broker, new QuestionBroker((message) => chatController.post(message)));
  runtime.events.on((event) => chatController.onEvent(event));
  chatController.attachView((message) => {
    posted.push(message);
    view.receive(message);
    // The user approves each approval as it shows up.
    if (message.type === 'approval') onApproval?.(view, message.approval);
    if (message.type === 'approval')
      setImmediate(() => void chatController.receive({ type: 'approval-decision', callId: message.approval.callId, approved: true }));
  });
  await chatController.receive({ type: 'ready' });
  return { controller: chatController, view, posted, workspace, send: (text) => chatController.send(text) };
}

const toolCards = (view: ViewModel): ToolItem[] => view.transcript.items.filter((item): item is ToolItem => item.kind === 'tool');

test('issue 14 item 3: a delegated task whose child wrote CHANGELOG.md ends Done, not Cancelled, no card of the run reads Cancelled, and the child call carries its output live and after a reload', async () => {
  const setup = await chat(
    [
      { toolCalls: [{ id: 'call_1_0', name: 'glob', arguments: { pattern: '*' } }] },
      { toolCalls: [{ id: 'call_2_0', name: 'task', arguments: { goal: 'Write CHANGELOG.md' } }] },
      { text: 'The changelog is written.' },
    ],
    [
      { toolCalls: [{ id: 'call_1_0', name: 'write', arguments: { path: 'CHANGELOG.md', content: '# Changelog\n' } }] },
      { text: 'Wrote CHANGELOG.md.' },
    ],
  );
  await setup.send('Delegate the changelog.');
  assert.equal(readFileSync(join(setup.workspace, 'CHANGELOG.md'), 'utf8'), '# Changelog\n');
  // Before the fix the child's write was a top-level card that never saw its own events, and the
  // parent's end closed it as "Cancelled"; with ids numbered per session it took over the parent's glob card.
  const cards = toolCards(setup.view);
  assert.deepEqual(
    cards.map((card) => [card.callId, card.tool, card.outcome, card.parentCallId]),
    [
      ['call_1_0', 'glob', 'ok', undefined],
      ['call_2_0', 'task', 'ok', undefined],
    ],
  );
  const delegation = cards[1]?.delegation;
  assert.equal(delegation?.agent, 'general');
  assert.equal(delegation?.ended, 'done');
  assert.equal(delegation?.answer, 'Wrote CHANGELOG.md.');
  assert.deepEqual(
    delegation?.calls.map((call) => [call.callId, call.tool, call.state, call.outcome, call.approved]),
    [['call_1_0', 'write', 'finished', 'ok', true]],
  );
  // The child's result is there to open in the task card, as a top-level write's is (the parent's glob kept its own).
  assert.match(delegation?.calls[0]?.output ?? '', /^Created CHANGELOG\.md \(/);
  assert.doesNotMatch(cards[0]?.output ?? '', /CHANGELOG/);

  // A reloaded view rebuilds the same card from the store: the parent's events, then the child's.
  const reloaded = new ViewModel();
  setup.controller.attachView((message) => reloaded.receive(message));
  await setup.controller.receive({ type: 'ready' });
  const again = toolCards(reloaded);
  assert.deepEqual(
    again.map((card) => [card.tool, card.outcome]),
    [
      ['glob', 'ok'],
      ['task', 'ok'],
    ],
  );
  assert.deepEqual(
    again[1]?.delegation?.calls.map((call) => [call.tool, call.outcome, call.output]),
    [['write', 'ok', delegation?.calls[0]?.output]],
  );
});

test('issue 14 item 3: while the child works, its pending approval is drawn in the task card, which names the call the child is on', async () => {
  let seen: { readonly taskState: string | undefined; readonly current: string | undefined; readonly topLevel: number } | undefined;
  const setup = await chat(
    [{ toolCalls: [{ name: 'task', arguments: { goal: 'Write NOTES.md' } }] }, { text: 'Done.' }],
    [{ toolCalls: [{ name: 'write', arguments: { path: 'NOTES.md', content: 'n\n' } }] }, { text: 'Wrote NOTES.md.' }],
    (view, approval) => {
      if (approval.tool !== 'write') return;
      const task = toolCards(view).find((card) => card.tool === 'task');
      seen = {
        taskState: task?.state,
        current:
          task?.delegation === undefined
            ? undefined
            : `${currentChildCall(task.delegation)?.tool} ${currentChildCall(task.delegation)?.state}`,
        topLevel: toolCards(view).length,
      };
    },
  );
  await setup.send('Delegate the notes.');
  assert.deepEqual(seen, { taskState: 'running', current: 'write awaiting-approval', topLevel: 1 });
  assert.equal(toolCards(setup.view)[0]?.outcome, 'ok');
});
