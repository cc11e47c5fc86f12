import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus, type ZunoEvent, type ZunoEventBody } from '../../../../src/core/events';
import type { ApprovalRequest } from '../../../../src/core/host';
import { ApprovalBroker, type ApprovalEnvironment } from '../../../../src/hosts/vscode/approval-state';
import type { QueuedPrompt } from '../../../../src/agent/loop';
import type { PermissionMode } from '../../../../src/core/config';
import type { ImagePart } from '../../../../src/core/transcript';
import { ChatController } from '../../../../src/hosts/vscode/chat-controller';
import { FakeChatBackend } from './support/fake-backend';
import { RESUME_PROMPT } from '../../../../src/webview/recovery-words';
import { QuestionBroker } from '../../../../src/hosts/vscode/question-state';
import { apiKeyHint, connectionError } from '../../../../src/agent/provider';
import type { SessionSummary, ToWebview, ViewStatus } from '../../../../src/webview/protocol';

/** A store-like backend: events are persisted (deltas and live output are not, as in the runtime). */
class FakeBackend extends FakeChatBackend {
  readonly bus = new EventBus(() => 1000);
  readonly stored = new Map<string, ZunoEvent[]>();
  readonly outputs = new Map<string, string>();
  readonly logs: string[] = [];
  remembered: string | undefined = 'none';
  opened = 0;
  configureRequests = 0;
  /** The body of the next run; receives the session id and the signal. */
  script: (emit: (body: ZunoEventBody) => void, signal: AbortSignal) => Promise<void> = async () => undefined;
  private sessionCounter = 0;

  constructor() {
    super();
    this.bus.on((event) => {
      if (event.type !== 'assistant-delta' && event.type !== 'tool-call-output') {
        const list = this.stored.get(event.session_id) ?? [];
        list.push(event);
        this.stored.set(event.session_id, list);
      }
    });
  }
  override async open(): Promise<void> {
    this.opened++;
  }
  override events(sessionId: string): readonly ZunoEvent[] {
    return this.stored.get(sessionId) ?? [];
  }
  override callOutput(_sessionId: string, callId: string): string | undefined {
    return this.outputs.get(callId);
  }
  override sessions(): readonly SessionSummary[] {
    return [...this.stored.keys()].map((id) => ({ id, title: `chat ${id}`, updatedAt: 1 }));
  }
  override hasSession(sessionId: string): boolean {
    return this.stored.has(sessionId);
  }
  override interrupted(sessionId: string): boolean {
    const events = this.stored.get(sessionId) ?? [];
    return events.some((event) => event.type === 'session-started') && !events.some((event) => event.type === 'session-finished');
  }
  compacted: string[] = [];
  override async compact(sessionId: string): Promise<boolean> {
    this.compacted.push(sessionId);
    return sessionId !== 'fresh';
  }

  override async run(
    _prompt: string,
    sessionId: string | undefined,
    signal: AbortSignal,
    _takeQueued?: () => readonly QueuedPrompt[],
    _images?: readonly ImagePart[],
  ): Promise<void> {
    const id = sessionId ?? `s${++this.sessionCounter}`;
    this.bus.emit(id, { type: 'session-started' });
    await this.script((body) => this.bus.emit(id, body), signal);
  }
  mode: PermissionMode = 'strict';
  /** Set to make the next mode write fail, as a settings write can. */
  failModeWrite = false;
  override status(running: boolean): ViewStatus {
    return { permissionMode: this.mode, modelLabel: 'test-model', running };
  }
  override configureModel(): void {
    this.configureRequests++;
  }
  readonly forks: { readonly from: string; readonly ordinal: number; readonly id: string }[] = [];
  override async forkBefore(sessionId: string, ordinal: number): Promise<string> {
    const id = `fork${this.forks.length + 1}`;
    this.forks.push({ from: sessionId, ordinal, id });
    // What the store's fork holds: the events before the user's `ordinal`-th message.
    const events = this.stored.get(sessionId) ?? [];
    let seen = -1;
    const cut = events.findIndex((event) => event.type === 'user-message' && ++seen === ordinal);
    this.stored.set(
      id,
      events.slice(0, cut).map((event) => ({ ...event, session_id: id })),
    );
    return id;
  }
  override async setPermissionMode(mode: PermissionMode): Promise<void> {
    if (this.failModeWrite) throw new Error('Unable to write to Workspace Settings.');
    this.mode = mode;
  }
  readonly editorActions: string[] = [];
  override editorAction(action: 'set-api-key' | 'open-settings'): void {
    this.editorActions.push(action);
  }
  override rememberSession(sessionId: string | undefined): void {
    this.remembered = sessionId;
  }
  override log(message: string): void {
    this.logs.push(message);
  }
}

const noEditor: ApprovalEnvironment = {
  post: () => undefined,
  showDiff: async () => undefined,
  proposedText: async () => undefined,
  unsavedPaths: () => [],
  currentText: async () => undefined,
  addAllowRule: async () => undefined,
  discardProposals: async () => undefined,
};

function setup(initialSession?: string) {
  const backend = new FakeBackend();
  const approvals = new ApprovalBroker({ ...noEditor, post: (message) => controller.post(message) }, '/w');
  const questions = new QuestionBroker((message) => controller.post(message));
  const controller = new ChatController(backend, approvals, questions, initialSession);
  const view: ToWebview[] = [];
  backend.bus.on((event) => controller.onEvent(event));
  controller.attachView((message) => view.push(message));
  return { backend, controller, approvals, questions, view };
}

const deferred = () => {
  let release: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
};

const types = (messages: readonly ToWebview[]): string[] =>
  messages.map((message) => (message.type === 'event' ? `event:${message.event.type}` : message.type));

test('issue 4 Security: every message from the webview is validated; invalid ones are logged and ignored', async () => {
  const { backend, controller, view } = setup();
  await controller.receive({ type: 'send' });
  await controller.receive({ type: 'send', text: 'x', extra: true });
  await controller.receive({ type: 'approval-decision', callId: 'c1', approved: 'yes' });
  await controller.receive('ready');
  assert.equal(backend.logs.length, 4);
  assert.match(backend.logs[0] ?? '', /Ignored an invalid message from the chat view/);
  assert.deepEqual(view, []);
});

test('issue 4 Updates are incremental: nothing before ready, one snapshot, then one event at a time', async () => {
  const { backend, controller, view } = setup();
  const gate = deferred();
  backend.script = async (emit) => {
    emit({ type: 'user-message', text: 'hi' });
    emit({ type: 'assistant-delta', text: 'Hel' });
    emit({ type: 'assistant-delta', text: 'lo' });
    await gate.promise;
    emit({ type: 'assistant-message', text: 'Hello' });
    emit({ type: 'session-finished', reason: 'done' });
  };
  await controller.receive({ type: 'ready' });
  assert.deepEqual(types(view), ['snapshot']);
  const sending = controller.receive({ type: 'send', text: 'hi' });
  await Promise.resolve();
  gate.release();
  await sending;
  assert.deepEqual(types(view), [
    'snapshot',
    'status',
    'snapshot',
    'event:user-message',
    'event:assistant-delta',
    'event:assistant-delta',
    'event:assistant-message',
    'event:session-finished',
    'status',
  ]);
  const statuses = view.flatMap((message) => (message.type === 'status' ? [message.status.running] : []));
  assert.deepEqual(statuses, [true, false], 'the view is told when the turn starts and ends');
  const newChat = view[2];
  assert.equal(newChat?.type === 'snapshot' ? newChat.sessionId : undefined, 's1', 'the new chat is named by its first event');
  assert.equal(backend.remembered, 's1');
  assert.equal(controller.running, false);
});

test('issue 4 State: a view reloaded mid-turn gets stored events plus the streamed text and live output the store does not keep', async () => {
  const { backend, controller, view } = setup();
  const gate = deferred();
  backend.script = async (emit) => {
    emit({ type: 'user-message', text: 'run it' });
    emit({ type: 'assistant-delta', text: 'Running ' });
    emit({
      type: 'tool-call-started',
      call_id: 'c1',
      tool: 'shell',
      effect: 'SideEffecting',
      replay: 'Never',
      concurrency: 'Exclusive',
      attempt: 1,
    });
    emit({ type: 'tool-call-output', call_id: 'c1', chunk: 'compiling…\n' });
    await gate.promise;
  };
  await controller.receive({ type: 'ready' });
  const sending = controller.receive({ type: 'send', text: 'run it' });
  await Promise.resolve();
  assert.equal(controller.runningCalls, 1);
  // The view is reloaded: a new webview, which says ready again.
  const reloaded: ToWebview[] = [];
  controller.attachView((message) => reloaded.push(message));
  backend.bus.emit('s1', { type: 'notice', level: 'info', text: 'dropped: the reloaded view is not ready yet' });
  assert.equal(reloaded.length, 0);
  await controller.receive({ type: 'ready' });
  const snapshot = reloaded[0];
  assert.equal(snapshot?.type, 'snapshot');
  if (snapshot?.type !== 'snapshot') return;
  assert.equal(snapshot.sessionId, 's1');
  assert.deepEqual(
    snapshot.events.map((event) => event.type),
    ['session-started', 'user-message', 'tool-call-started', 'notice', 'tool-call-output', 'assistant-delta'],
  );
  const live = snapshot.events.at(-2);
  assert.equal(live?.type === 'tool-call-output' ? live.chunk : '', 'compiling…\n');
  const text = snapshot.events.at(-1);
  assert.equal(text?.type === 'assistant-delta' ? text.text : '', 'Running ');
  assert.equal(snapshot.status.running, true);
  gate.release();
  await sending;
  assert.equal(view.length > 0, true);
});

test('issue 4 Tool cards: a finished call gets its stored output on its card, live and after a reload, but blocked calls do not', async () => {
  const { backend, controller, view } = setup();
  backend.outputs.set('c1', '1: hello');
  backend.outputs.set('c2', 'BLOCKED (denied): …');
  backend.script = async (emit) => {
    emit({
      type: 'tool-call-started',
      call_id: 'c1',
      tool: 'read',
      effect: 'ReadOnly',
      replay: 'Safe',
      concurrency: 'ParallelSafe',
      attempt: 1,
    });
    emit({ type: 'tool-call-finished', call_id: 'c1', tool: 'read', outcome: 'ok', duration_ms: 3, truncated: false });
    emit({ type: 'dispatch-blocked', call_id: 'c2', tool: 'write', category: 'denied', reason: 'The user declined this call.' });
    emit({
      type: 'tool-call-finished',
      call_id: 'c2',
      tool: 'write',
      outcome: 'blocked',
      category: 'denied',
      duration_ms: 0,
      truncated: false,
    });
    emit({ type: 'session-finished', reason: 'done' });
  };
  await controller.receive({ type: 'ready' });
  await controller.receive({ type: 'send', text: 'go' });
  const live = view.filter((message) => message.type === 'event').map((message) => (message.type === 'event' ? message.event : undefined));
  assert.deepEqual(
    live.map((event) => event?.type),
    ['tool-call-started', 'tool-call-finished', 'tool-call-output', 'dispatch-blocked', 'tool-call-finished', 'session-finished'],
  );
  view.length = 0;
  await controller.receive({ type: 'ready' });
  const snapshot = view[0];
  assert.deepEqual(snapshot?.type === 'snapshot' ? snapshot.events.map((event) => event.type) : [], [
    'session-started',
    'tool-call-started',
    'tool-call-output',
    'tool-call-finished',
    'dispatch-blocked',
    'tool-call-finished',
    'session-finished',
  ]);
});

test('issue 4 Controls (issue 14 item 7): a second send while a turn runs is queued; Cancel aborts the turn, closes approvals and questions, and hands the queue back', async () => {
  const { backend, controller, view, approvals, questions } = setup();
  let approval: Promise<unknown> = Promise.resolve();
  let question: Promise<unknown> = Promise.resolve();
  backend.script = async (_emit, signal) => {
    const request: ApprovalRequest = {
      callId: 'c1',
      sessionId: 's1',
      tool: 'shell',
      arguments: { command: 'make' },
      declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
      reason: 'strict',
      subject: 'make',
    };
    approval = approvals.request(request, new AbortController().signal);
    question = questions.ask({ callId: 'q1', sessionId: 's1', question: 'Sure?' }, new AbortController().signal);
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
  };
  await controller.receive({ type: 'ready' });
  const sending = controller.receive({ type: 'send', text: 'build' });
  await Promise.resolve();
  assert.equal(controller.running, true);
  await controller.receive({ type: 'send', text: 'again' });
  assert.deepEqual(
    view.filter((message) => message.type === 'error'),
    [],
    'a message typed while Zuno works is not refused',
  );
  assert.deepEqual(view.at(-1), { type: 'queue', items: [{ id: 'queued-1', text: 'again' }] });
  assert.deepEqual(
    types(view).filter((type) => type === 'approval' || type === 'question'),
    ['approval', 'question'],
  );
  await controller.receive({ type: 'new-chat' });
  assert.match(JSON.stringify(view.at(-1)), /Cancel it first, then start a new chat/);
  await controller.receive({ type: 'cancel' });
  await sending;
  assert.ok(
    view.some((message) => message.type === 'restore-draft' && message.text === 'again'),
    'the run never took it, so it goes back to the composer',
  );
  assert.deepEqual(await approval, { approved: false, reason: 'cancelled' });
  assert.deepEqual(await question, { answered: false });
  assert.equal(controller.running, false);
});

test('issue 4 Approvals in the view: a decision from the view reaches the pending request', async () => {
  const { controller, approvals } = setup();
  await controller.receive({ type: 'ready' });
  const request: ApprovalRequest = {
    callId: 'c9',
    sessionId: 's1',
    tool: 'shell',
    arguments: { command: 'ls' },
    declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
    reason: 'strict',
  };
  const pending = approvals.request(request, new AbortController().signal);
  await controller.receive({ type: 'approval-decision', callId: 'c9', approved: false, reason: 'no' });
  assert.deepEqual(await pending, { approved: false, reason: 'no' });
});

test('issue 4 History: list, open and start chats; an unknown chat is refused; a vanished remembered chat falls back to a new one', async () => {
  const { backend, controller, view } = setup('gone');
  await controller.receive({ type: 'ready' });
  const first = view[0];
  assert.equal(first?.type === 'snapshot' ? first.sessionId : 'x', undefined);
  backend.bus.emit('old', { type: 'user-message', text: 'earlier' });
  await controller.receive({ type: 'list-sessions' });
  assert.deepEqual(view.at(-1), { type: 'sessions', sessions: [{ id: 'old', title: 'chat old', updatedAt: 1 }] });
  await controller.receive({ type: 'open-session', sessionId: 'old' });
  const opened = view.at(-1);
  assert.deepEqual(opened?.type === 'snapshot' ? [opened.sessionId, opened.events.map((event) => event.type)] : [], [
    'old',
    ['user-message'],
  ]);
  assert.equal(backend.remembered, 'old');
  await controller.receive({ type: 'open-session', sessionId: 'nope' });
  assert.match(JSON.stringify(view.at(-1)), /There is no chat nope/);
  await controller.receive({ type: 'new-chat' });
  const fresh = view.at(-1);
  assert.deepEqual(fresh?.type === 'snapshot' ? [fresh.sessionId, fresh.events.length] : [], [undefined, 0]);
  await controller.receive({ type: 'configure-model' });
  assert.equal(backend.configureRequests, 1);
});

test('issue 14 item 10: opening a delegated task from the history marks the snapshot as a task of its chat; a task is not renamed, and without a store behind it delete says why', async () => {
  const { backend, controller, view } = setup();
  backend.bus.emit('child', { type: 'user-message', text: 'Update CHANGELOG.md' });
  backend.sessions = () => [{ id: 'child', title: 'task call_8_0 of session parent (general): Update CHANGELOG.md', updatedAt: 1 }];
  await controller.receive({ type: 'ready' });
  await controller.receive({ type: 'open-session', sessionId: 'child' });
  const opened = view.at(-1);
  assert.deepEqual(opened?.type === 'snapshot' ? opened.delegated : 'no snapshot', { agent: 'general', parentSessionId: 'parent' });
  await controller.receive({ type: 'rename-session', sessionId: 'child', title: 'Mine' });
  assert.match(JSON.stringify(view.at(-1)), /cannot be renamed/);
  await controller.receive({ type: 'delete-session', sessionId: 'child' });
  assert.match(JSON.stringify(view.at(-1)), /not available here/);
});

test('issue 4 Controls: a run that cannot start reports why in the view and leaves no turn running', async () => {
  const { backend, controller, view } = setup();
  backend.run = async () => {
    throw new Error('No model is set up yet. Run “Zuno: Select Model”.');
  };
  await controller.receive({ type: 'ready' });
  await controller.receive({ type: 'send', text: 'hi' });
  assert.deepEqual(view.at(-3), {
    type: 'error',
    text: 'No model is set up yet. Run “Zuno: Select Model”.',
    actions: ['configure-model', 'retry'],
  });
  assert.deepEqual(view.at(-2), { type: 'restore-draft', text: 'hi' }, 'issue 14 item 7: the text is not lost');
  assert.deepEqual(view.at(-1), { type: 'status', status: { permissionMode: 'strict', modelLabel: 'test-model', running: false } });
  assert.equal(controller.running, false);
});

test('issue 4 State: a chat whose turn died with the window (reload mid-turn) reads as interrupted, not as still running', async () => {
  const { backend, controller, view } = setup('s9');
  backend.bus.emit('s9', { type: 'session-started' });
  backend.bus.emit('s9', { type: 'user-message', text: 'long job' });
  backend.bus.emit('s9', { type: 'approval-requested', call_id: 'c1', tool: 'shell', subject: 'make' });
  await controller.receive({ type: 'ready' });
  const snapshot = view[0];
  assert.ok(snapshot?.type === 'snapshot');
  assert.equal(snapshot.interrupted, true, 'issue 14 item 11: the view draws one recovery card with Resume');
  assert.equal(snapshot.events.at(-1)?.type, 'approval-requested', 'no made-up end event');
  assert.equal(backend.stored.get('s9')?.length, 3, 'the store is not written by a snapshot');

  // Resume continues the same session with the resume prompt (the runtime adds the recovery notice before it).
  const prompts: [string, string | undefined][] = [];
  backend.run = async (prompt, sessionId) => {
    prompts.push([prompt, sessionId]);
    backend.bus.emit('s9', { type: 'session-finished', reason: 'done' });
  };
  await controller.receive({ type: 'resume' });
  assert.deepEqual(prompts, [[RESUME_PROMPT, 's9']]);
  // Once the session finished, Resume does nothing more: a second press is not a second run.
  await controller.receive({ type: 'resume' });
  assert.equal(prompts.length, 1);
});

test('S4 + issue 4: when the store cannot open (no ripgrep, no folder), the view still gets a page and the reason', async () => {
  const { backend, controller, view } = setup('s1');
  backend.open = async () => {
    throw new Error('ripgrep was not found. Tried: …');
  };
  await controller.receive({ type: 'ready' });
  assert.deepEqual(types(view), ['snapshot', 'error']);
  const snapshot = view[0];
  assert.deepEqual(snapshot?.type === 'snapshot' ? snapshot.events : undefined, []);
  assert.deepEqual(view[1], { type: 'error', text: 'ripgrep was not found. Tried: …' });
});

test("issue 14 item 7: queued messages are taken at the run's next step, removable until then, and what is left is sent when the run ends", async () => {
  const { backend, controller, view } = setup();
  const prompts: string[] = [];
  const taken: (readonly QueuedPrompt[])[] = [];
  const step = deferred();
  let runs = 0;
  backend.run = async (prompt, _sessionId, _signal, takeQueued) => {
    prompts.push(prompt);
    runs += 1;
    if (runs > 1) return;
    await step.promise;
    taken.push(takeQueued?.() ?? []);
  };
  await controller.receive({ type: 'ready' });
  const sending = controller.receive({ type: 'send', text: 'fix the test' });
  await Promise.resolve();
  await controller.receive({ type: 'send', text: 'also update the README' });
  await controller.receive({ type: 'send', text: 'never mind this one' });
  await controller.receive({ type: 'unqueue', id: 'queued-2' });
  assert.deepEqual(view.at(-1), { type: 'queue', items: [{ id: 'queued-1', text: 'also update the README' }] });
  step.release();
  await sending;
  assert.deepEqual(taken, [[{ text: 'also update the README' }]], 'the step took the queue, without the removed message');
  assert.deepEqual(prompts, ['fix the test'], 'nothing was left, so no second run');

  // A message queued after the run's last step is not lost: it is sent when the run ends.
  runs = 0;
  const late = deferred();
  backend.run = async (prompt) => {
    prompts.push(prompt);
    runs += 1;
    if (runs === 1) await late.promise;
  };
  const second = controller.receive({ type: 'send', text: 'first' });
  await Promise.resolve();
  await controller.receive({ type: 'send', text: 'typed too late' });
  late.release();
  await second;
  assert.deepEqual(prompts.slice(1), ['first', 'typed too late']);
  assert.equal(controller.running, false);
});

test('issue 14 item 7: a message that cannot be sent (no model) goes back to the composer with the error', async () => {
  const { backend, controller, view } = setup();
  backend.run = async () => {
    throw new Error('No model is set.');
  };
  await controller.receive({ type: 'ready' });
  await controller.receive({ type: 'send', text: 'my long carefully written request' });
  assert.ok(view.some((message) => message.type === 'error'));
  assert.ok(view.some((message) => message.type === 'restore-draft' && message.text === 'my long carefully written request'));
});

test("issue 14 item 7: errors reach the view in the editor's words with buttons that fix them, and Retry sends the prompt again", async () => {
  const { backend, controller, view } = setup();
  const prompts: string[] = [];
  backend.run = async (prompt) => {
    prompts.push(prompt);
    if (prompts.length === 1) {
      throw new Error(
        connectionError(Object.assign(new Error('fetch failed'), { code: 'ECONNREFUSED' }), 'http://127.0.0.1:11434/v1').message,
      );
    }
  };
  await controller.receive({ type: 'ready' });
  await controller.receive({ type: 'send', text: 'fix the cart' });
  const error = view.find((message) => message.type === 'error');
  assert.ok(error?.type === 'error');
  assert.doesNotMatch(error.text, /--base-url|model\.base_url/, 'no CLI flags in the editor');
  assert.match(error.text, /Zuno: Select Model/);
  assert.deepEqual(error.actions, ['configure-model', 'retry']);
  await controller.receive({ type: 'error-action', action: 'retry' });
  assert.deepEqual(prompts, ['fix the cart', 'fix the cart']);
  await controller.receive({ type: 'error-action', action: 'configure-model' });
  await controller.receive({ type: 'error-action', action: 'set-api-key' });
  await controller.receive({ type: 'error-action', action: 'open-settings' });
  assert.equal(backend.configureRequests, 1);
  assert.deepEqual(backend.editorActions, ['set-api-key', 'open-settings']);
});

test('issue 14 item 7: a run that ends in an error (HTTP 401) gets an error card offering Set API Key', async () => {
  const { backend, controller, view } = setup();
  backend.script = async (emit) => {
    emit({ type: 'user-message', text: 'hi' });
    emit({
      type: 'session-finished',
      reason: 'error',
      message: `The model server at http://x/v1 rejected the request as unauthorized (HTTP 401). ${apiKeyHint({ key: undefined, envVar: undefined })}`,
    });
  };
  await controller.receive({ type: 'ready' });
  await controller.receive({ type: 'send', text: 'hi' });
  const error = view.find((message) => message.type === 'error');
  assert.ok(error?.type === 'error');
  assert.deepEqual(error.actions, ['set-api-key', 'retry']);
  assert.match(error.text, /set one with "Zuno: Set API Key"/);
  assert.doesNotMatch(error.text, /--api-key-env|ZUNO_API_KEY/);
});

test('issue 10 item 2: Compact Chat Context needs a chat, is refused while a turn runs, and says when there was nothing to compact', async () => {
  const { backend, controller } = setup();
  assert.match((await controller.compact()) ?? '', /no chat to compact yet/);
  assert.deepEqual(backend.compacted, []);

  const gate = deferred();
  backend.script = async () => gate.promise;
  const running = controller.send('hello');
  assert.match((await controller.compact()) ?? '', /working in this chat/);
  gate.release();
  await running;
  assert.equal(await controller.compact(), undefined, 'the chat s1 was compacted');
  assert.deepEqual(backend.compacted, ['s1']);

  const fresh = setup('fresh');
  assert.match((await fresh.controller.compact()) ?? '', /Nothing to compact yet/);
});

test('issue 14 item 12: the header mode dropdown writes the mode through the backend and the view gets the new status; a failed write puts the dropdown back', async () => {
  const { backend, controller, view } = setup();
  await controller.receive({ type: 'ready' });
  await controller.receive({ type: 'set-mode', mode: 'auto-edit' });
  assert.equal(backend.mode, 'auto-edit');
  const statuses = () => view.flatMap((message) => (message.type === 'status' ? [message.status.permissionMode] : []));
  assert.equal(statuses().at(-1), 'auto-edit');
  backend.failModeWrite = true;
  await controller.receive({ type: 'set-mode', mode: 'auto' });
  assert.equal(backend.mode, 'auto-edit');
  assert.equal(statuses().at(-1), 'auto-edit', 'the view is told the mode that is really set');
  const errors = view.flatMap((message) => (message.type === 'error' ? [message.text] : []));
  assert.match(errors.at(-1) ?? '', /Unable to write to Workspace Settings/, 'the failure is shown, not swallowed');
  await controller.receive({ type: 'set-mode', mode: 'yolo' });
  assert.equal(backend.mode, 'auto-edit', 'a mode that does not exist is refused at the protocol');
  assert.match(backend.logs.at(-1) ?? '', /Ignored an invalid message/);
});

test('issue 14: edit-and-resend and Retry continue from before that message in a forked chat and send the text as a new turn; refused while a turn runs', async () => {
  const { backend, controller, view } = setup();
  const runs: { prompt: string; session: string | undefined }[] = [];
  const original = backend.run.bind(backend);
  backend.run = async (prompt, sessionId, signal, takeQueued) => {
    runs.push({ prompt, session: sessionId });
    backend.script = async (emit) => {
      emit({ type: 'user-message', text: prompt });
      emit({ type: 'assistant-message', text: `answer to ${prompt}` });
      emit({ type: 'session-finished', reason: 'done' });
    };
    await original(prompt, sessionId, signal, takeQueued);
  };
  await controller.receive({ type: 'ready' });
  await controller.receive({ type: 'send', text: 'first' });
  const chat = controller.sessionId ?? '';
  await controller.receive({ type: 'send', text: 'second' });

  // Edit the second message: a fork of the chat before it, shown, and the edited text sent there.
  await controller.receive({ type: 'resend', ordinal: 1, text: 'second, edited' });
  assert.deepEqual(backend.forks, [{ from: chat, ordinal: 1, id: 'fork1' }]);
  assert.equal(controller.sessionId, 'fork1');
  assert.deepEqual(runs.at(-1), { prompt: 'second, edited', session: 'fork1' });
  const snapshot = view.filter((message) => message.type === 'snapshot').at(-1);
  assert.deepEqual(
    snapshot?.type === 'snapshot' ? snapshot.events.flatMap((event) => (event.type === 'user-message' ? [event.text] : [])) : [],
    ['first'],
    'the forked chat shows the history before the edited message',
  );

  // Retry of the only message of a chat: a new chat with the same prompt.
  await controller.receive({ type: 'resend', ordinal: 0, text: 'first' });
  assert.deepEqual(runs.at(-1), { prompt: 'first', session: undefined });
  assert.equal(backend.forks.length, 1, 'nothing to fork before the first message');

  // While a turn runs, nothing is forked or sent.
  const hold = deferred();
  backend.run = async () => hold.promise;
  const running = controller.receive({ type: 'send', text: 'long' });
  await controller.receive({ type: 'resend', ordinal: 0, text: 'again' });
  assert.match(
    view.flatMap((message) => (message.type === 'error' ? [message.text] : [])).at(-1) ?? '',
    /Cancel it first, then edit or retry/,
  );
  assert.equal(backend.forks.length, 1);
  hold.release();
  await running;
});

test('issue 14: pasted images go to the run with their message; while a turn runs they are queued with it and go with it at the next step', async () => {
  const { backend, controller, view } = setup();
  const pixel = { mediaType: 'image/png' as const, data: 'iVBORw0KGgo=' };
  const received: { prompt: string; images: readonly unknown[] | undefined }[] = [];
  const taken: (readonly QueuedPrompt[])[] = [];
  const hold = deferred();
  backend.run = async (prompt, _sessionId, _signal, takeQueued, images) => {
    received.push({ prompt, images });
    await hold.promise;
    taken.push(takeQueued?.() ?? []);
  };
  await controller.receive({ type: 'ready' });
  const running = controller.receive({ type: 'send', text: 'what is this?', images: [pixel] });
  await controller.receive({ type: 'send', text: 'and this?', images: [pixel, pixel] });
  assert.deepEqual(view.at(-1), { type: 'queue', items: [{ id: 'queued-1', text: 'and this?', images: [pixel, pixel] }] });
  assert.equal(
    view.some((message) => message.type === 'error'),
    false,
    'queued, not refused',
  );
  hold.release();
  await running;
  assert.deepEqual(received, [{ prompt: 'what is this?', images: [pixel] }]);
  assert.deepEqual(taken, [[{ text: 'and this?', images: [pixel, pixel] }]], 'the step took the text with its images');
  await controller.receive({ type: 'send', text: 'bad', images: [{ mediaType: 'image/svg+xml', data: 'PHN2Zz4=' }] });
  assert.equal(received.length, 1, 'an SVG (which can carry script) is refused at the protocol');
  assert.match(backend.logs.at(-1) ?? '', /Ignored an invalid message/);
});

test('issue 14: an image queued for a model that does not take images is refused at once, naming the setting, with the text handed back; Cancel hands back queued text and images', async () => {
  const { backend, controller, view } = setup();
  const pixel = { mediaType: 'image/png' as const, data: 'iVBORw0KGgo=' };
  const hold = deferred();
  let refuse = true;
  backend.imageRefusal = (count) =>
    refuse ? `Zuno did not send this message: it has ${count} image(s); turn on zuno.model.images.` : undefined;
  backend.run = async (_prompt, _sessionId, signal) => {
    await Promise.race([hold.promise, new Promise((resolve) => signal.addEventListener('abort', resolve))]);
  };
  await controller.receive({ type: 'ready' });
  const running = controller.receive({ type: 'send', text: 'start' });
  await controller.receive({ type: 'send', text: 'look at this', images: [pixel] });
  assert.match(view.flatMap((message) => (message.type === 'error' ? [message.text] : [])).at(-1) ?? '', /zuno\.model\.images/);
  assert.deepEqual(view.at(-1), { type: 'restore-draft', text: 'look at this' });
  assert.equal(
    view.some((message) => message.type === 'queue'),
    false,
    'nothing was queued',
  );

  refuse = false;
  await controller.receive({ type: 'send', text: 'look at this', images: [pixel] });
  await controller.receive({ type: 'send', text: 'and read me' });
  controller.cancel();
  await running;
  assert.deepEqual(view.at(-1), { type: 'restore-draft', text: 'look at this\n\nand read me', images: [pixel] });
});

test("issue 14 item 3: a delegated child's call output reaches the view: streamed live, kept for a view reloaded mid-run, its stored output sent once when it streamed none", async () => {
  const { backend, controller, view } = setup();
  const gate = deferred();
  // The child reuses the parent's id c1: its output must stay the child's.
  const started = (call_id: string, tool: string): ZunoEventBody => ({
    type: 'tool-call-started',
    call_id,
    tool,
    effect: 'SideEffecting',
    replay: 'Never',
    concurrency: 'Exclusive',
    attempt: 1,
  });
  backend.script = async (emit) => {
    emit(started('c1', 'task'));
    emit({ type: 'delegation-started', call_id: 'c1', child_session_id: 'child', agent: 'general' });
    backend.bus.emit('child', started('c1', 'shell'));
    backend.bus.emit('child', { type: 'tool-call-output', call_id: 'c1', chunk: 'step 1\n' });
    await gate.promise;
    backend.bus.emit('child', { type: 'tool-call-output', call_id: 'c1', chunk: 'step 2\n' });
    backend.bus.emit('child', {
      type: 'tool-call-finished',
      call_id: 'c1',
      tool: 'shell',
      outcome: 'ok',
      duration_ms: 1,
      truncated: false,
      exit_code: 0,
    });
    backend.bus.emit('child', started('c2', 'write'));
    backend.bus.emit('child', {
      type: 'tool-call-finished',
      call_id: 'c2',
      tool: 'write',
      outcome: 'ok',
      duration_ms: 1,
      truncated: false,
    });
  };
  backend.callOutput = (sessionId, callId) => (sessionId === 'child' && callId === 'c2' ? 'Created NOTES.md (1 line).' : undefined);
  await controller.receive({ type: 'ready' });
  const sending = controller.receive({ type: 'send', text: 'delegate' });
  await Promise.resolve();

  const reloaded: ToWebview[] = [];
  controller.attachView((message) => reloaded.push(message));
  await controller.receive({ type: 'ready' });
  const snapshot = reloaded[0];
  assert.equal(snapshot?.type, 'snapshot');
  const childOutput = (messages: readonly ZunoEvent[]) =>
    messages.flatMap((event) =>
      event.type === 'tool-call-output' && event.session_id === 'child' ? [`${event.call_id}:${event.chunk}`] : [],
    );
  assert.deepEqual(
    snapshot?.type === 'snapshot' ? childOutput(snapshot.events) : [],
    ['c1:step 1\n'],
    'the running child call keeps what it printed',
  );

  gate.release();
  await sending;
  const live = reloaded.flatMap((message) => (message.type === 'event' ? [message.event] : []));
  assert.deepEqual(
    childOutput(live),
    ['c1:step 2\n', 'c2:Created NOTES.md (1 line).'],
    'streamed output is not sent again; the write gets its stored output',
  );
  assert.equal(
    live.some((event) => event.type === 'tool-call-output' && event.session_id !== 'child'),
    false,
    "nothing went to the parent's c1",
  );
  assert.ok(view.length > 0);
});
