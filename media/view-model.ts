/**
 * Everything the chat view shows, reduced from the host's messages (src/webview/protocol.ts).
 * The host sends a snapshot once per (re)load and then single events, so this model never
 * receives the whole transcript per token. DOM-free, unit-tested in node.
 */
import type {
  PendingApproval,
  PendingQuestion,
  QueuedMessage,
  RewindPreviewView,
  SessionSummary,
  ToWebview,
  ViewStatus,
} from '../src/webview/protocol';
import type { ErrorAction } from '../src/webview/editor-words';
import { ContextMeter } from './meter';
import { toolKey, Transcript } from './transcript';

export interface RewindState {
  readonly checkpointId: string;
  /** "Restore and fork the conversation from here": the chat continues in a new session. */
  readonly fork: boolean;
  /** Waiting for the preview, or for the restore itself. */
  readonly busy: boolean;
  readonly preview?: RewindPreviewView;
}

/** What the view shows before the host's first snapshot arrives. */
const INITIAL_STATUS: ViewStatus = { permissionMode: 'strict', modelLabel: '', running: false };

export class ViewModel {
  transcript = new Transcript();
  meter = new ContextMeter();
  sessionId: string | undefined;
  readonly approvals = new Map<string, PendingApproval>();
  readonly questions = new Map<string, PendingQuestion>();
  status: ViewStatus = INITIAL_STATUS;
  /** Undefined until the host answers a `list-sessions`. */
  sessions: readonly SessionSummary[] | undefined;
  /** The store's last answer to a history search: the sessions whose text matched, with an excerpt. */
  sessionSearch: { readonly query: string; readonly hits: ReadonlyMap<string, string | undefined> } | undefined;
  error: string | undefined;
  /** The error card's buttons (issue 14 item 7). */
  errorActions: readonly ErrorAction[] = [];
  /** Messages typed while Zuno works, waiting for its next step (issue 14 item 7). */
  queue: readonly QueuedMessage[] = [];
  /** Goes up when the transcript is replaced (snapshot): the list must drop everything it drew. */
  generation = 0;
  /** Goes up when the header, status, history or error banner change. */
  chromeVersion = 0;
  /** The restore the user opened (issue 13): one at a time, drawn under the item of its checkpoint. */
  rewind: RewindState | undefined;

  receive(message: ToWebview): void {
    switch (message.type) {
      case 'snapshot':
        this.transcript = new Transcript(message.delegated);
        this.meter = new ContextMeter();
        for (const event of message.events) {
          this.transcript.apply(event);
          // A child's usage is its own context, not this chat's.
          if (!this.transcript.isChildSession(event.session_id)) this.meter.apply(event);
        }
        if (message.interrupted === true) this.transcript.markInterrupted();
        this.sessionId = message.sessionId;
        this.approvals.clear();
        this.questions.clear();
        for (const approval of message.approvals) this.addApproval(approval);
        for (const question of message.questions) this.addQuestion(question);
        this.status = message.status;
        this.error = undefined;
        this.queue = [];
        this.rewind = undefined;
        this.generation += 1;
        this.chromeVersion += 1;
        return;
      case 'event':
        this.transcript.apply(message.event);
        if (!this.transcript.isChildSession(message.event.session_id) && this.meter.apply(message.event)) this.chromeVersion += 1;
        return;
      case 'approval':
        this.addApproval(message.approval);
        return;
      case 'approval-closed': {
        const closed = this.approvals.get(message.callId);
        const key = closed === undefined ? undefined : this.transcript.delegatingCard(closed)?.callId;
        this.approvals.delete(message.callId);
        this.transcript.touchCall(key ?? message.callId);
        this.touchPendingApprovals();
        return;
      }
      case 'question':
        this.addQuestion(message.question);
        return;
      case 'question-closed':
        this.questions.delete(message.callId);
        this.transcript.closeQuestion(message.callId);
        return;
      case 'sessions':
        this.sessions = message.sessions;
        this.chromeVersion += 1;
        return;
      case 'session-search':
        this.sessionSearch = { query: message.query, hits: new Map(message.hits.map((hit) => [hit.sessionId, hit.excerpt])) };
        this.chromeVersion += 1;
        return;
      case 'status':
        this.status = message.status;
        this.chromeVersion += 1;
        return;
      case 'error':
        this.error = message.text;
        this.errorActions = message.actions ?? [];
        this.chromeVersion += 1;
        return;
      case 'queue':
        this.queue = message.items;
        this.chromeVersion += 1;
        return;
      case 'restore-draft':
      case 'compose':
      case 'mention-results':
        // The composer is the view's own (media/main.ts puts the text back); nothing to keep here.
        return;
      case 'rewind-preview':
        // A preview nobody asked for any more (closed meanwhile) is dropped.
        if (this.rewind?.checkpointId !== message.preview.checkpointId) return;
        this.rewind = { ...this.rewind, preview: message.preview, busy: false };
        this.transcript.touchCheckpoint(message.preview.checkpointId);
        return;
      case 'rewind-closed':
        if (this.rewind?.checkpointId === message.checkpointId) this.closeRewind();
        return;
    }
  }

  /** The key of the item that draws a call's approval: the call's own card, or its delegated task's (issue 14 item 3). */
  approvalItemKey(callId: string): string {
    const approval = this.approvals.get(callId);
    const task = approval === undefined ? undefined : this.transcript.delegatingCard(approval);
    return toolKey(task?.callId ?? callId);
  }

  /** The user clicked a restore button: the preview is asked for, and drawn once it arrives. */
  openRewind(checkpointId: string, fork: boolean): void {
    const previous = this.rewind?.checkpointId;
    this.rewind = { checkpointId, fork, busy: true };
    if (previous !== undefined && previous !== checkpointId) this.transcript.touchCheckpoint(previous);
    this.transcript.touchCheckpoint(checkpointId);
  }

  /** The user confirmed; the panel waits for the restore's outcome. */
  confirmRewind(): void {
    if (this.rewind === undefined) return;
    this.rewind = { ...this.rewind, busy: true };
    this.transcript.touchCheckpoint(this.rewind.checkpointId);
  }

  closeRewind(): void {
    const open = this.rewind;
    this.rewind = undefined;
    if (open !== undefined) this.transcript.touchCheckpoint(open.checkpointId);
  }

  dismissError(): void {
    this.error = undefined;
    this.errorActions = [];
    this.chromeVersion += 1;
  }

  private addApproval(approval: PendingApproval): void {
    this.approvals.set(approval.callId, approval);
    this.transcript.noteApproval(approval);
    this.touchPendingApprovals();
  }

  /** The other pending approvals redraw too: their "Approve all N" counts them all (issue 14). */
  private touchPendingApprovals(): void {
    for (const approval of this.approvals.values())
      this.transcript.touchCall(this.transcript.delegatingCard(approval)?.callId ?? approval.callId);
  }

  private addQuestion(question: PendingQuestion): void {
    this.questions.set(question.callId, question);
    this.transcript.noteQuestion(question);
  }
}
