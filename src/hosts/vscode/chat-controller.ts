/**
 * The chat view's brain, with no `vscode` import: it takes validated messages from the webview,
 * drives the runtime through `ChatBackend`, and streams events back. The rules it keeps (issue 4,
 * "Chat sidebar"):
 *
 * - Updates are incremental: a `snapshot` once per (re)load of the view, then one `event` at a
 *   time. Nothing is posted to a view that has not said `ready`; its snapshot covers what it missed.
 * - State lives in the store. The snapshot is the session's stored events, plus what the store
 *   deliberately does not keep (streamed text and live output of the turn in flight), plus the
 *   final output of each finished call, so a reloaded view rebuilds every card.
 * - One turn at a time: the approvals and the terminal belong to it. Switching chats while it
 *   runs is refused with a clear message rather than hiding its pending approvals.
 */
import type { QueuedPrompt } from '../../agent/loop';
import type { PermissionMode } from '../../core/config';
import type { ZunoEvent } from '../../core/events';
import type { ImagePart } from '../../core/transcript';
import { editorWording, errorActions } from '../../webview/editor-words';
import { parseFromWebview, type FromWebview, type ToWebview, type ViewStatus } from '../../webview/protocol';
import type { ApprovalBroker } from './approval-state';
import { ChatHistory, type HistoryBackend, type StoredSession } from './chat-history';
import { RESUME_PROMPT } from '../../webview/recovery-words';
import { MessageQueue } from './message-queue';
import { ChatRewinds, type RewindBackend } from './chat-rewind';
import type { MentionSource } from './mentions';
import type { QuestionBroker } from './question-state';

export interface ChatBackend {
  /** Opens whatever the synchronous methods need (the store: sql.js is loaded on first use only). */
  open(): Promise<void>;
  /** The stored events of a session, in order. */
  events(sessionId: string): readonly ZunoEvent[];
  /** The model-facing output of a finished call, from its stored row. */
  callOutput(sessionId: string, callId: string): string | undefined;
  sessions(): readonly StoredSession[];
  /** Search, rename and delete in the view's history (issue 14 item 10). */
  readonly history?: HistoryBackend;
  hasSession(sessionId: string): boolean;
  /** True when the session's last run never finished (the window closed or reloaded mid-turn). */
  interrupted(sessionId: string): boolean;
  /**
   * Runs one prompt in the session (a new one when undefined) until the model stops. Resolves
   * when the run is over; rejects when it cannot start (no model, invalid config, no ripgrep).
   * `takeQueued` hands over the messages typed meanwhile, at each step.
   */
  run(
    prompt: string,
    sessionId: string | undefined,
    signal: AbortSignal,
    takeQueued?: () => readonly QueuedPrompt[],
    images?: readonly ImagePart[],
  ): Promise<void>;
  /**
   * Why `images` images cannot go to the model now (the model setting), for a message queued with
   * them; without it they are checked only when the run takes them.
   */
  imageRefusal?(images: number): string | undefined;
  /** Compacts the session's turns before its newest one (issue 10 item 2); false when there were none. */
  compact(sessionId: string, signal: AbortSignal): Promise<boolean>;
  status(running: boolean): ViewStatus;
  /** "Set up a model" from the view: the Select Model command. */
  configureModel(): void;
  /** A new session holding the chat before the user's `ordinal`-th message (edit-and-resend, Retry); its id. */
  forkBefore(sessionId: string, ordinal: number): Promise<string>;
  /** The header's mode dropdown: writes the setting as "Set Permission Mode" does. */
  setPermissionMode(mode: PermissionMode): Promise<void>;
  /** An error card's Set API Key or Open settings button: the editor command behind it. */
  editorAction(action: 'set-api-key' | 'open-settings'): void;
  /** Remembers the chat shown, so a reloaded window reopens it. */
  rememberSession(sessionId: string | undefined): void;
  log(message: string): void;
  /** Restoring files to a checkpoint (issue 13); without it the view's restore buttons say they are unavailable. */
  readonly rewinds?: RewindBackend;
  /** Workspace files for @-mentions (issue 14); without it a mention stays plain text. */
  readonly mentions?: MentionSource;
}

/** Longest live output kept per running call for a snapshot; the tail is what matters. */
const LIVE_OUTPUT_LIMIT = 64 * 1024;

/** `kept` with `chunk` added, cut to its last LIVE_OUTPUT_LIMIT characters. */
const keepTail = (kept: string, chunk: string): string => {
  const joined = kept + chunk;
  return joined.length > LIVE_OUTPUT_LIMIT ? joined.slice(joined.length - LIVE_OUTPUT_LIMIT) : joined;
};

/** A delegated child numbers its calls in its own session, so its ids can equal the parent's: keyed by both. */
const childCallKey = (sessionId: string, callId: string): string => `${sessionId}\u0000${callId}`;

interface Turn {
  readonly controller: AbortController;
  /** Undefined until a new chat's `session-started` names it. */
  sessionId: string | undefined;
}

export class ChatController {
  private viewPost: ((message: ToWebview) => void) | undefined;
  private viewReady = false;
  private currentSession: string | undefined;
  private turn: Turn | undefined;
  /** Streamed text since the last complete assistant message (not persisted by the runtime). */
  private partialText = '';
  /** Live output of calls that started and have not finished, by call id. */
  private readonly liveOutput = new Map<string, string>();
  /** Calls that streamed output, so their final output is not sent a second time. */
  private readonly streamed = new Set<string>();
  /**
   * Live output of delegated children's calls that have not finished, by child session and call id
   * (a child's ids can equal the parent's): for a snapshot, and so their stored output is not sent twice.
   */
  private readonly childLiveOutput = new Map<string, { readonly sessionId: string; readonly callId: string; text: string }>();
  private readonly listeners = new Set<() => void>();
  private readonly queue = new MessageQueue((items) => this.post({ type: 'queue', items }));
  /** The last prompt sent, for an error card's Retry. */
  private lastPrompt: string | undefined;
  private readonly rewinds: ChatRewinds | undefined;
  /** The parent session of each delegated child seen (issue 14 item 3): its events are drawn in the parent's chat. */
  private readonly childSessions = new Map<string, string>();
  private readonly history: ChatHistory;
  /** Text for the composer that arrived before the view was ready (Add Selection to Chat as it opens the view). */
  private pendingCompose: string[] = [];
  /** What the model receives for each queued message (by its id), its @-mentions expanded when it was typed. */
  private readonly queuedPrompts = new Map<string, string>();

  constructor(
    private readonly backend: ChatBackend,
    private readonly approvals: ApprovalBroker,
    private readonly questions: QuestionBroker,
    initialSession?: string,
  ) {
    this.currentSession = initialSession;
    const rewinds = backend.rewinds;
    this.rewinds =
      rewinds &&
      new ChatRewinds({
        backend: rewinds,
        post: (message) => this.post(message),
        sessionId: () => this.currentSession,
        running: () => this.running,
        openSession: (id) => this.openSession(id),
        send: (text) => this.send(text),
      });
    this.history = new ChatHistory({
      list: () => backend.sessions(),
      backend: backend.history,
      post: (message) => this.post(message),
      shownSession: () => this.currentSession,
      runningSession: () => (this.turn ? (this.turn.sessionId ?? this.currentSession) : undefined),
      closeShown: () => this.switchTo(undefined),
    });
  }

  get sessionId(): string | undefined {
    return this.currentSession;
  }

  get running(): boolean {
    return this.turn !== undefined;
  }

  /** How many calls are executing now (started, not finished), for the status bar. */
  get runningCalls(): number {
    return this.liveOutput.size;
  }

  /** Called when `running` or `runningCalls` changes. */
  onDidChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A view (re)appeared; it gets nothing until it says `ready`. */
  attachView(post: (message: ToWebview) => void): void {
    this.viewPost = post;
    this.viewReady = false;
  }

  detachView(): void {
    this.viewPost = undefined;
    this.viewReady = false;
  }

  /** Posts to the view when it is ready; the approval and question brokers post through here. */
  post(message: ToWebview): void {
    if (this.viewReady) this.viewPost?.(message);
  }

  /** Every message from the webview arrives here unvalidated. */
  async receive(raw: unknown): Promise<void> {
    const parsed = parseFromWebview(raw);
    if (!parsed.ok) {
      this.backend.log(`Ignored an invalid message from the chat view: ${parsed.error}`);
      return;
    }
    try {
      await this.handle(parsed.message);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.backend.log(`Handling "${parsed.message.type}" from the chat view failed: ${text}`);
      this.post({ type: 'error', text });
    }
  }

  private async handle(message: FromWebview): Promise<void> {
    switch (message.type) {
      case 'ready':
        return this.sendSnapshot();
      case 'send':
        return this.send(message.text, message.images);
      case 'cancel':
        this.cancel();
        return;
      case 'resume':
        return this.resume();
      case 'new-chat':
        this.newChat();
        return;
      case 'list-sessions':
      case 'search-sessions':
      case 'rename-session':
      case 'delete-session':
        await this.backend.open();
        this.history.handle(message);
        return;
      case 'open-session':
        await this.openSession(message.sessionId);
        return;
      case 'approval-decision':
        await this.approvals.decide(message.callId, {
          approved: message.approved,
          ...(message.reason !== undefined ? { reason: message.reason } : {}),
          ...(message.allowLikeThis !== undefined ? { allowLikeThis: message.allowLikeThis } : {}),
          ...(message.ruleChoice !== undefined ? { ruleChoice: message.ruleChoice } : {}),
        });
        return;
      case 'approve-all':
        await this.approvals.approveAll(message.callIds);
        return;
      case 'show-diff':
        await this.approvals.showDiff(message.callId);
        return;
      case 'question-answer':
        this.questions.answer(message.callId, {
          answered: message.answered,
          selected: message.selected,
          ...(message.text !== undefined ? { text: message.text } : {}),
        });
        return;
      case 'configure-model':
        this.backend.configureModel();
        return;
      case 'set-mode':
        try {
          await this.backend.setPermissionMode(message.mode);
        } finally {
          // Also after a failed write: the dropdown goes back to the mode that is really set.
          this.refreshStatus();
        }
        return;
      case 'resend':
        return this.resend(message.ordinal, message.text);
      case 'unqueue':
        this.queue.remove(message.id);
        return;
      case 'error-action':
        return this.errorAction(message.action);
      case 'mention-search':
        this.post({ type: 'mention-results', query: message.query, paths: (await this.backend.mentions?.search(message.query)) ?? [] });
        return;
      case 'rewind-preview':
      case 'rewind-apply':
      case 'rewind-show-diff':
        if (!this.rewinds) throw new Error('Restoring files is not available here.');
        return this.rewinds.handle(message);
    }
  }

  /**
   * Sends one prompt. While a turn runs it is queued instead, and the turn takes it at its next
   * step; what a turn leaves in the queue is sent when it ends, or handed back to the composer
   * when it was cancelled, so nothing typed is lost (issue 14 item 7).
   */
  async send(typed: string, images?: readonly ImagePart[]): Promise<void> {
    const refusal = this.turn && images !== undefined ? this.backend.imageRefusal?.(images.length) : undefined;
    if (refusal !== undefined) {
      // Refused now, as a message sent while idle is: the text comes back, the images stay in the composer.
      this.postError(refusal);
      this.post({ type: 'restore-draft', text: typed });
      return;
    }
    // The model reads the files the text @-mentions; the chat and the queue keep what was typed.
    const prompt = this.backend.mentions ? await this.backend.mentions.expand(typed) : typed;
    if (this.turn) {
      this.queuedPrompts.set(this.queue.add(typed, images).id, prompt);
      return;
    }
    const turn: Turn = { controller: new AbortController(), sessionId: this.currentSession };
    this.turn = turn;
    this.lastPrompt = typed;
    this.partialText = '';
    this.refreshStatus();
    let started = false;
    try {
      await this.backend.run(
        prompt,
        this.currentSession,
        turn.controller.signal,
        () => {
          started = true;
          return this.queue
            .take()
            .map(({ id, text, images: pasted }) => ({ text: this.queuedPrompts.get(id) ?? text, ...(pasted ? { images: pasted } : {}) }));
        },
        images,
      );
    } catch (error) {
      this.postError(error instanceof Error ? error.message : String(error));
      // The run never started (no model, invalid config): the text goes back to the composer.
      if (!started) this.post({ type: 'restore-draft', text: typed });
    } finally {
      this.turn = undefined;
      this.partialText = '';
      this.liveOutput.clear();
      this.streamed.clear();
      this.childLiveOutput.clear();
      this.refreshStatus();
    }
    const left = this.queue.take();
    this.queuedPrompts.clear();
    if (left.length === 0) return;
    const text = left.map((item) => item.text).join('\n\n');
    const pasted = left.flatMap((item) => item.images ?? []);
    const withImages = pasted.length > 0 ? { images: pasted } : {};
    if (turn.controller.signal.aborted) this.post({ type: 'restore-draft', text, ...withImages });
    else await this.send(text, withImages.images);
  }

  /**
   * Edit-and-resend and Retry (issue 14): the chat goes on from before that message in a new
   * chat (the old one stays in History), and the text is a new turn: nothing the later turns
   * did is replayed. Files are restored only through the checkpoint restore, which the view asks for.
   */
  private async resend(ordinal: number, text: string): Promise<void> {
    const sessionId = this.currentSession;
    if (sessionId === undefined) throw new Error('There is no message to edit or retry in this chat yet: type one below.');
    if (this.refuseWhileRunning('edit or retry a message')) return;
    if (ordinal === 0) this.switchTo(undefined);
    else {
      await this.backend.open();
      this.switchTo(await this.backend.forkBefore(sessionId, ordinal));
    }
    await this.send(text);
  }

  /**
   * The recovery card's Resume: the session continues with a prompt that asks the model to pick
   * up where it stopped; the runtime delivers the recovery notice before it (SPEC R3).
   */
  private async resume(): Promise<void> {
    const sessionId = this.currentSession;
    if (sessionId === undefined || this.turn) return;
    await this.backend.open();
    if (!this.backend.interrupted(sessionId)) return;
    await this.send(RESUME_PROMPT);
  }

  /** Puts text into the composer without sending it; kept until the view is ready when it is still loading. */
  compose(text: string): void {
    if (this.viewReady && this.viewPost) this.post({ type: 'compose', text });
    else this.pendingCompose.push(text);
  }

  /** The chat shown, as stored, for Export Chat; undefined before its first message. */
  async exportable(): Promise<{ sessionId: string; title: string; events: readonly ZunoEvent[] } | undefined> {
    const sessionId = this.currentSession;
    if (sessionId === undefined) return undefined;
    await this.backend.open();
    if (!this.backend.hasSession(sessionId)) return undefined;
    const title = this.backend.sessions().find((session) => session.id === sessionId)?.title ?? '';
    return { sessionId, title, events: this.backend.events(sessionId) };
  }

  /** An error for the view, in the editor's words and with the buttons that can fix it (issue 14 item 7). */
  private postError(text: string): void {
    this.post({ type: 'error', text: editorWording(text), actions: errorActions(text) });
  }

  private async errorAction(action: 'retry' | 'configure-model' | 'set-api-key' | 'open-settings'): Promise<void> {
    switch (action) {
      case 'retry':
        if (this.lastPrompt === undefined) {
          this.post({ type: 'error', text: 'There is nothing to retry yet: type a message below.' });
          return;
        }
        return this.send(this.lastPrompt);
      case 'configure-model':
        this.backend.configureModel();
        return;
      case 'set-api-key':
      case 'open-settings':
        this.backend.editorAction(action);
        return;
    }
  }

  /**
   * Compact Chat Context: runs like a turn (Cancel stops it, a message waits), so the chat's
   * divider arrives as an event. Returns why nothing was done, for the caller to show.
   */
  async compact(): Promise<string | undefined> {
    const sessionId = this.currentSession;
    if (this.turn) return 'Zuno is working in this chat: compact it when the turn has finished.';
    if (sessionId === undefined) return 'There is no chat to compact yet: send a message first.';
    const turn: Turn = { controller: new AbortController(), sessionId };
    this.turn = turn;
    this.refreshStatus();
    try {
      return (await this.backend.compact(sessionId, turn.controller.signal))
        ? undefined
        : 'Nothing to compact yet: the chat has no turns before its newest one.';
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    } finally {
      this.turn = undefined;
      this.refreshStatus();
    }
  }

  /** Cancel in the view, the palette or the title bar: stops the model, the tools and every prompt. */
  cancel(): void {
    this.turn?.controller.abort();
    this.approvals.cancelAll();
    this.questions.cancelAll();
  }

  /** Refused while a turn runs (it would hide that turn's approvals); the caller shows why. */
  newChat(): boolean {
    if (this.refuseWhileRunning('start a new chat')) return false;
    this.switchTo(undefined);
    return true;
  }

  async openSession(sessionId: string): Promise<boolean> {
    if (sessionId !== this.currentSession && this.refuseWhileRunning('open another chat')) return false;
    await this.backend.open();
    if (!this.backend.hasSession(sessionId)) {
      this.post({ type: 'error', text: `There is no chat ${sessionId} in this workspace's history.` });
      return false;
    }
    this.switchTo(sessionId);
    return true;
  }

  /** Tells the view (and the status bar) that model, mode or config changed. */
  refreshStatus(): void {
    this.post({ type: 'status', status: this.backend.status(this.running) });
    this.changed();
  }

  /** Every runtime event passes through here, for every session. */
  onEvent(event: ZunoEvent): void {
    const parent = this.childSessions.get(event.session_id);
    if (parent !== undefined) {
      if (parent === this.currentSession || event.session_id === this.currentSession) this.postChildEvent(event);
      return;
    }
    if (event.type === 'delegation-started') this.childSessions.set(event.child_session_id, event.session_id);
    const turn = this.turn;
    if (turn && turn.sessionId === undefined && event.type === 'session-started') {
      // The new chat this turn started now has a name: show it.
      turn.sessionId = event.session_id;
      this.currentSession = event.session_id;
      this.backend.rememberSession(event.session_id);
      this.postSnapshotNow();
      return;
    }
    if (!turn || event.session_id !== turn.sessionId) {
      if (event.session_id === this.currentSession) this.post({ type: 'event', event });
      return;
    }
    this.track(event);
    if (event.session_id !== this.currentSession) return;
    this.post({ type: 'event', event });
    // A run that failed (the server refused, the key is wrong) gets a card with what to do next.
    if (event.type === 'session-finished' && event.reason === 'error') this.postError(event.message ?? 'The run stopped with an error.');
    if (event.type === 'tool-call-finished' && event.outcome !== 'blocked' && !this.streamed.has(event.call_id)) {
      // A call that streamed nothing still gets its output on its card, as after a reload.
      this.postFinalOutput(event);
    }
  }

  /**
   * A delegated child's event, drawn in its task's card. As for the parent's cards, a call that
   * streamed nothing gets its stored output once it finishes, so the user can open it (issue 14 item 3).
   */
  private postChildEvent(event: ZunoEvent): void {
    this.post({ type: 'event', event });
    if (event.type === 'tool-call-output') {
      const key = childCallKey(event.session_id, event.call_id);
      const live = this.childLiveOutput.get(key) ?? { sessionId: event.session_id, callId: event.call_id, text: '' };
      live.text = keepTail(live.text, event.chunk);
      this.childLiveOutput.set(key, live);
      return;
    }
    if (event.type !== 'tool-call-finished') return;
    const streamed = this.childLiveOutput.delete(childCallKey(event.session_id, event.call_id));
    if (event.outcome !== 'blocked' && !streamed) this.postFinalOutput(event);
  }

  /** Keeps the turn's transient state, which the store does not persist, for snapshots. */
  private track(event: ZunoEvent): void {
    switch (event.type) {
      case 'assistant-delta':
        this.partialText += event.text;
        return;
      case 'assistant-message':
        this.partialText = '';
        return;
      case 'tool-call-started':
        this.liveOutput.set(event.call_id, '');
        this.changed();
        return;
      case 'tool-call-output': {
        this.streamed.add(event.call_id);
        this.liveOutput.set(event.call_id, keepTail(this.liveOutput.get(event.call_id) ?? '', event.chunk));
        return;
      }
      case 'tool-call-finished':
        if (this.liveOutput.delete(event.call_id)) this.changed();
        return;
      default:
        return;
    }
  }

  private postFinalOutput(finished: Extract<ZunoEvent, { type: 'tool-call-finished' }>): void {
    const output = this.backend.callOutput(finished.session_id, finished.call_id);
    if (output)
      this.post({
        type: 'event',
        event: { type: 'tool-call-output', call_id: finished.call_id, chunk: output, ts: finished.ts, session_id: finished.session_id },
      });
  }

  private async sendSnapshot(): Promise<void> {
    try {
      await this.backend.open();
    } catch (error) {
      // No store (no folder, no ripgrep, the state dir locked): the view still gets a page and
      // the reason, rather than staying blank.
      this.postSnapshotNow(false);
      this.post({ type: 'error', text: error instanceof Error ? error.message : String(error) });
      return;
    }
    if (this.currentSession !== undefined && !this.backend.hasSession(this.currentSession)) this.switchTo(undefined);
    // Built and posted in one synchronous step after the store is open, so no event can fall
    // between what the snapshot holds and what is streamed after it.
    this.postSnapshotNow();
  }

  private postSnapshotNow(withHistory = true): void {
    if (!this.viewPost) return;
    const sessionId = this.currentSession;
    const runningHere = this.turn !== undefined && this.turn.sessionId === sessionId;
    this.viewPost({
      type: 'snapshot',
      sessionId,
      events: sessionId === undefined || !withHistory ? [] : this.snapshotEvents(sessionId, runningHere),
      ...this.recoverySnapshot(sessionId, withHistory && !runningHere),
      approvals: runningHere || sessionId === undefined ? this.approvals.pending() : [],
      questions: runningHere || sessionId === undefined ? this.questions.pending() : [],
      status: this.backend.status(this.running),
    });
    this.viewReady = true;
    if (this.queue.size > 0) this.post({ type: 'queue', items: this.queue.list() });
    for (const text of this.pendingCompose.splice(0)) this.post({ type: 'compose', text });
  }

  /**
   * What the view needs to know about the session besides its events: a delegated task opened from
   * the history shows its goal as the task's brief (issue 14 item 10); a chat whose last run was
   * cut off gets one recovery card with Resume (item 11). A task is resumed by its chat, not alone.
   * Not persisted: the next run of the session records what really happened (R3).
   */
  private recoverySnapshot(
    sessionId: string | undefined,
    stored: boolean,
  ): { delegated?: { agent: string; parentSessionId: string }; interrupted?: true } {
    if (sessionId === undefined || !stored) return {};
    const origin = this.history.origin(sessionId);
    if (origin !== undefined) return { delegated: { agent: origin.agent, parentSessionId: origin.sessionId } };
    return this.backend.interrupted(sessionId) ? { interrupted: true } : {};
  }

  private snapshotEvents(sessionId: string, runningHere: boolean): ZunoEvent[] {
    const events: ZunoEvent[] = [];
    for (const event of this.withOutputs(sessionId)) {
      events.push(event);
      // A delegated child's calls are drawn inside its task's card; its events, outputs too, follow the start.
      if (event.type === 'delegation-started') {
        this.childSessions.set(event.child_session_id, sessionId);
        events.push(...this.withOutputs(event.child_session_id));
      }
    }
    if (runningHere) {
      const now = events.at(-1)?.ts ?? 0;
      for (const [callId, chunk] of this.liveOutput) {
        if (chunk) events.push({ type: 'tool-call-output', call_id: callId, chunk, ts: now, session_id: sessionId });
      }
      // Delegated children's running calls too: the view puts them in their task cards by session.
      for (const live of this.childLiveOutput.values()) {
        if (live.text && this.childSessions.get(live.sessionId) === sessionId)
          events.push({ type: 'tool-call-output', call_id: live.callId, chunk: live.text, ts: now, session_id: live.sessionId });
      }
      if (this.partialText) events.push({ type: 'assistant-delta', text: this.partialText, ts: now, session_id: sessionId });
    }
    return events;
  }

  /** A session's stored events, each finished call's stored output just before its end. */
  private withOutputs(sessionId: string): ZunoEvent[] {
    const events: ZunoEvent[] = [];
    for (const event of this.backend.events(sessionId)) {
      if (event.type === 'tool-call-finished' && event.outcome !== 'blocked') {
        const output = this.backend.callOutput(sessionId, event.call_id);
        if (output) events.push({ type: 'tool-call-output', call_id: event.call_id, chunk: output, ts: event.ts, session_id: sessionId });
      }
      events.push(event);
    }
    return events;
  }

  private switchTo(sessionId: string | undefined): void {
    this.currentSession = sessionId;
    this.backend.rememberSession(sessionId);
    this.postSnapshotNow();
  }

  private refuseWhileRunning(what: string): boolean {
    if (!this.turn) return false;
    this.post({ type: 'error', text: `Zuno is working in this chat. Cancel it first, then ${what}.` });
    return true;
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
