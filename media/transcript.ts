/**
 * The transcript's view model, built by one reducer over the runtime's events. A live event and
 * a stored event go through the same `apply`, so a reload (a snapshot of stored events) rebuilds
 * exactly the cards the user saw. DOM-free on purpose: it is unit-tested in node.
 *
 * Items are mutated in place and carry a `version` that goes up on every change. The view
 * compares versions to re-render only what changed; copying a 2,000-item array per streamed token
 * (an immutable reducer) would make a snapshot replay quadratic.
 */
import type { Concurrency, Effect, Replay } from '../src/core/declarations';
import type { PermissionRule } from '../src/core/config';
import type { ZunoEvent } from '../src/core/events';
import type { BlockedCategory, OutcomeKind } from '../src/core/outcome';
import type { PendingApproval, PendingQuestion } from '../src/webview/protocol';
import { applyChildEvent, noteChildApproval, startDelegation, type Delegation } from './delegation';
import { RESUME_PROMPT } from '../src/webview/recovery-words';
import { appendOutput, type CallOutput } from './call-output';

/** Where a tool card is in its life. `finished` always comes with an outcome. */
export type ToolState = 'requested' | 'awaiting-approval' | 'awaiting-answer' | 'approved' | 'running' | 'finished';

interface ItemBase {
  readonly key: string;
  /** Goes up on every change; the view re-renders an item when this differs from what it drew. */
  version: number;
}

export interface UserItem extends ItemBase {
  readonly kind: 'user';
  readonly text: string;
  /** The goal a delegated task was given: drawn as the task's brief, not as something the user typed. */
  readonly brief?: { readonly agent: string; readonly parentSessionId: string };
  /** The checkpoint taken before this message's first change (issue 13): files can be restored to it. */
  checkpointId?: string;
}

export interface AssistantItem extends ItemBase {
  readonly kind: 'assistant';
  text: string;
  /** True while deltas may still arrive; `assistant-message` carries the final text. */
  streaming: boolean;
  /** A reasoning model's thoughts, shown collapsed (issue 10 item 4). */
  reasoning?: string;
}

export interface ToolItem extends ItemBase, CallOutput {
  readonly kind: 'tool';
  readonly callId: string;
  tool: string;
  /** The raw JSON arguments as the model sent them (displayed escaped, summarised). */
  argumentsText: string;
  effect?: Effect;
  replay?: Replay;
  concurrency?: Concurrency;
  attempt: number;
  /**
   * A `tool-call-started` arrived. A call that settles without one never ran: it was blocked,
   * cancelled before its start, or failed while being prepared (e.g. a patch whose preview could
   * not be built), and its card must not say that it ran.
   */
  started: boolean;
  /** Set for a delegated child call: the `task` call it runs under. */
  parentCallId?: string;
  /** The agent that made a delegated call, when the approval said so. */
  agent?: string;
  subject?: string;
  state: ToolState;
  outcome?: OutcomeKind;
  category?: BlockedCategory;
  /** Why the call was blocked (from `dispatch-blocked`). */
  blockedReason?: string;
  /** The user's decision on an approval, once made. */
  decision?: { readonly approved: boolean; readonly reason?: string; readonly addedRule?: PermissionRule };
  durationMs?: number;
  /** The runtime truncated the result to its output cap (SPEC O1). */
  truncated: boolean;
  /** A restore put the workspace's files back to this checkpoint, undoing what this call changed (issue 13). */
  rolledBackTo?: string;
  /** The exit code of a command that ran to its end. */
  exitCode?: number;
  /**
   * Consecutive calls of one read-only tool form a group drawn as one row ("Read 4 files",
   * issue 14 item 5): each member names the group's first call, which counts the members.
   */
  groupLeader?: string;
  groupSize: number;
  /** A `task` call's child agent and its calls, drawn inside this card (issue 14 item 3). */
  delegation?: Delegation;
}

/** Read-only tools whose consecutive calls are grouped; by name, so the group forms before any start event. */
export const GROUPED_TOOLS: ReadonlySet<string> = new Set(['read', 'grep', 'glob', 'list']);

export interface NoticeItem extends ItemBase {
  readonly kind: 'notice';
  readonly level: 'info' | 'warning' | 'error';
  readonly title?: string;
  readonly text: string;
}

export interface SessionEndItem extends ItemBase {
  readonly kind: 'session-end';
  readonly reason: 'done' | 'step-limit' | 'cancelled' | 'error';
  readonly message?: string;
}

/** Files were restored to a checkpoint (issue 13); the restore can itself be undone. */
export interface RewindItem extends ItemBase {
  readonly kind: 'rewind';
  readonly checkpointId: string;
  /** The message the files were restored to before, when the checkpoint was taken for one. */
  readonly messageText?: string;
  readonly restored: readonly string[];
  readonly removed: readonly string[];
  /** Restoring to it undoes this restore. */
  readonly undoCheckpointId: string;
  readonly forkedSessionId?: string;
}

/** Where the context was compacted (issue 10 item 2): what comes before is no longer sent, but stays shown. */
export interface CompactionItem extends ItemBase {
  readonly kind: 'compaction';
  readonly reason: 'threshold' | 'overflow' | 'manual';
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly kept: readonly string[];
}

/**
 * Zuno stopped mid-run (the window closed or reloaded; issue 14 item 11): one card that names the
 * calls cut off, offers Resume while the chat can still be resumed, and keeps the runtime's
 * model-facing recovery notice under Details.
 */
export interface RecoveryItem extends ItemBase {
  readonly kind: 'recovery';
  /** The calls that were running when Zuno stopped; none of them is re-run. */
  readonly callIds: string[];
  /** The chat has not continued since: Resume is offered. */
  resumable: boolean;
  /** The user pressed Resume (the resume prompt follows the notice). */
  resumed: boolean;
  /** The recovery notice the model was given, once the chat continued. */
  noticeText?: string;
}

export type TranscriptItem = UserItem | AssistantItem | ToolItem | NoticeItem | SessionEndItem | RewindItem | CompactionItem | RecoveryItem;

/** The key of a call's card; stable across reloads because call ids are persisted. */
export const toolKey = (callId: string): string => `call:${callId}`;

export class Transcript {
  private readonly list: TranscriptItem[] = [];
  private readonly cards = new Map<string, ToolItem>();
  /** The `task` card of each child session seen, by the child's session id. */
  private readonly delegations = new Map<string, ToolItem>();
  /** The assistant message that deltas are being appended to, until its final text arrives. */
  private openAssistant: AssistantItem | undefined;
  private sequence = 0;

  /** The recovery card that the chat's next notices and Resume belong to, until a message follows it. */
  private openRecovery: RecoveryItem | undefined;
  /** True until a delegated task's first message (its goal) has arrived. */
  private briefPending: boolean;

  /** `delegated`: the session is a delegated task (issue 14 item 10). */
  constructor(private readonly delegated?: { readonly agent: string; readonly parentSessionId: string }) {
    this.briefPending = delegated !== undefined;
  }

  get items(): readonly TranscriptItem[] {
    return this.list;
  }

  card(callId: string): ToolItem | undefined {
    return this.cards.get(callId);
  }

  /** Whether the session is a delegated child's, whose events belong inside its task's card. */
  isChildSession(sessionId: string): boolean {
    return this.delegations.has(sessionId);
  }

  apply(event: ZunoEvent): void {
    const task = this.delegations.get(event.session_id);
    if (task?.delegation !== undefined) {
      if (applyChildEvent(task.delegation, event)) this.touch(task);
      return;
    }
    switch (event.type) {
      case 'session-started':
        // Every message of a chat continues its session: no marker. Calls a dead run left open
        // get their recovered outcome here, and the recovery card says what happened to them.
        this.closeUnfinishedCards();
        return;
      case 'user-message': {
        this.closeAssistant();
        const recovery = this.openRecovery;
        this.openRecovery = undefined;
        if (recovery !== undefined && event.text === RESUME_PROMPT) {
          // The Resume button's prompt: the card says "Resumed" instead of a message the user never typed.
          recovery.resumed = true;
          recovery.resumable = false;
          this.touch(recovery);
          return;
        }
        // A delegated task's first message is its goal, from the agent that delegated it.
        const brief = this.briefPending ? this.delegated : undefined;
        this.briefPending = false;
        this.push<UserItem>({ kind: 'user', key: this.nextKey(), version: 0, text: event.text, ...(brief !== undefined ? { brief } : {}) });
        return;
      }
      case 'assistant-delta':
        this.appendDelta(event.text);
        return;
      case 'assistant-message':
        this.finishAssistant(event.text, event.reasoning);
        return;
      case 'tool-call-requested': {
        const card = this.ensureCard(event.call_id, event.tool);
        card.argumentsText = event.arguments;
        this.touch(card);
        return;
      }
      case 'tool-call-started': {
        const card = this.ensureCard(event.call_id, event.tool);
        card.effect = event.effect;
        card.replay = event.replay;
        card.concurrency = event.concurrency;
        card.attempt = event.attempt;
        card.started = true;
        if (event.parent_call_id !== undefined) card.parentCallId = event.parent_call_id;
        // A question asked before the start event arrived keeps its form's state.
        if (card.state !== 'finished' && card.state !== 'awaiting-answer') card.state = 'running';
        this.touch(card);
        return;
      }
      case 'tool-call-output': {
        const card = this.ensureCard(event.call_id, undefined);
        appendOutput(card, event.chunk);
        this.touch(card);
        return;
      }
      case 'approval-requested': {
        const card = this.ensureCard(event.call_id, event.tool);
        if (event.subject !== undefined) card.subject = event.subject;
        if (event.parent_call_id !== undefined) card.parentCallId = event.parent_call_id;
        if (card.state !== 'finished') card.state = 'awaiting-approval';
        this.touch(card);
        return;
      }
      case 'approval-resolved': {
        const card = this.ensureCard(event.call_id, event.tool);
        card.decision = {
          approved: event.approved,
          ...(event.reason !== undefined ? { reason: event.reason } : {}),
          ...(event.added_rule !== undefined ? { addedRule: event.added_rule } : {}),
        };
        // A denial is followed by `dispatch-blocked`; until then the card just shows the decision.
        if (card.state === 'awaiting-approval' && event.approved) card.state = 'approved';
        this.touch(card);
        return;
      }
      case 'dispatch-blocked': {
        // B1: the block is announced before the result; the card reads "not run" from here on.
        const card = this.ensureCard(event.call_id, event.tool);
        card.state = 'finished';
        card.outcome = 'blocked';
        card.category = event.category;
        card.blockedReason = event.reason;
        this.touch(card);
        return;
      }
      case 'tool-call-finished': {
        const card = this.ensureCard(event.call_id, event.tool);
        card.state = 'finished';
        card.outcome = event.outcome;
        if (event.category !== undefined) card.category = event.category;
        card.durationMs = event.duration_ms;
        card.truncated = event.truncated;
        if (event.exit_code !== undefined) card.exitCode = event.exit_code;
        this.touch(card);
        return;
      }
      case 'delegation-started': {
        const card = this.ensureCard(event.call_id, 'task');
        card.delegation = startDelegation(event.child_session_id, event.agent);
        this.delegations.set(event.child_session_id, card);
        this.touch(card);
        return;
      }
      case 'recovery-notice': {
        // R3: one notice per call cut off, all with the same text: one card for all of them.
        const recovery = this.openRecovery ?? this.pushRecovery([]);
        if (!recovery.callIds.includes(event.call_id)) recovery.callIds.push(event.call_id);
        recovery.noticeText = event.text;
        recovery.resumable = false;
        this.touch(recovery);
        return;
      }
      case 'notice':
        this.push<NoticeItem>({ kind: 'notice', key: this.nextKey(), version: 0, level: event.level, text: event.text });
        return;
      case 'checkpoint-created': {
        // Taken during the turn of the last user message, before its first change.
        const message = event.message_index === undefined ? undefined : this.lastUser();
        if (message === undefined) return;
        message.checkpointId = event.checkpoint_id;
        this.touch(message);
        return;
      }
      case 'rewind':
        this.applyRewind(event);
        return;
      case 'context-compacted':
        this.closeAssistant();
        this.push<CompactionItem>({
          kind: 'compaction',
          key: this.nextKey(),
          version: 0,
          reason: event.reason,
          tokensBefore: event.tokens_before,
          tokensAfter: event.tokens_after,
          kept: event.kept,
        });
        return;
      case 'session-finished':
        this.closeAssistant();
        this.closeUnfinishedCards();
        this.push<SessionEndItem>({
          kind: 'session-end',
          key: this.nextKey(),
          version: 0,
          reason: event.reason,
          ...(event.message === undefined ? {} : { message: event.message }),
        });
        return;
    }
  }

  /**
   * A pending approval can reach the view before (or without) its events, e.g. after a reload
   * or for a delegated child call; its declarations fill the badges until the call starts.
   */
  noteApproval(approval: PendingApproval): void {
    const task = this.delegatingCard(approval);
    if (task?.delegation !== undefined) {
      // Inside its task's card: a top-level card under the child's id could be one of the parent's.
      noteChildApproval(task.delegation, approval.callId, approval.tool, approval.subject);
      this.touch(task);
      return;
    }
    const card = this.ensureCard(approval.callId, approval.tool);
    card.effect ??= approval.declarations.effect;
    card.replay ??= approval.declarations.replay;
    card.concurrency ??= approval.declarations.concurrency;
    if (approval.subject !== undefined) card.subject = approval.subject;
    if (approval.origin !== undefined) {
      card.parentCallId = approval.origin.parentCallId;
      card.agent = approval.origin.agent;
    }
    if (card.state !== 'finished') card.state = 'awaiting-approval';
    this.touch(card);
  }

  /** The task card that draws a child's approval, when the approval came from a delegated agent. */
  delegatingCard(approval: PendingApproval): ToolItem | undefined {
    if (approval.origin === undefined) return undefined;
    const task = this.card(approval.origin.parentCallId);
    return task?.delegation === undefined ? undefined : task;
  }

  noteQuestion(question: PendingQuestion): void {
    const card = this.ensureCard(question.callId, 'question');
    if (card.state !== 'finished') card.state = 'awaiting-answer';
    this.touch(card);
  }

  /** The user answered (or cancelled) the question; the call runs on until it finishes. */
  closeQuestion(callId: string): void {
    const card = this.card(callId);
    if (card === undefined) return;
    if (card.state === 'awaiting-answer') card.state = 'running';
    this.touch(card);
  }

  /** The item a restore to `checkpointId` starts from: a user message, or a restore (whose undo it is). */
  checkpointItem(checkpointId: string): UserItem | RewindItem | undefined {
    return this.list.find(
      (item): item is UserItem | RewindItem =>
        (item.kind === 'user' && item.checkpointId === checkpointId) || (item.kind === 'rewind' && item.undoCheckpointId === checkpointId),
    );
  }

  /** Marks the item of a checkpoint changed (its preview opened or closed). */
  touchCheckpoint(checkpointId: string): void {
    const item = this.checkpointItem(checkpointId);
    if (item !== undefined) this.touch(item);
  }

  /** Marks a card changed without changing its data (its approval form went away). */
  touchCall(callId: string): void {
    const card = this.card(callId);
    if (card !== undefined) this.touch(card);
  }

  private lastUser(): UserItem | undefined {
    for (let index = this.list.length - 1; index >= 0; index--) {
      const item = this.list[index];
      if (item?.kind === 'user') return item;
    }
    return undefined;
  }

  /**
   * The cards whose changes a restore undid say so: every call that changed something after the
   * message restored to. Undoing a restore brings their changes back, so their marks go.
   */
  private applyRewind(event: Extract<ZunoEvent, { type: 'rewind' }>): void {
    const from = this.checkpointItem(event.checkpoint_id);
    const start = from === undefined ? -1 : this.list.indexOf(from);
    if (from?.kind === 'rewind') {
      for (const item of this.list) {
        if (item.kind === 'tool' && item.rolledBackTo === from.checkpointId) {
          delete item.rolledBackTo;
          this.touch(item);
        }
      }
    } else if (start !== -1) {
      for (const item of this.list.slice(start)) {
        if (item.kind === 'tool' && item.started && item.effect === 'SideEffecting' && item.rolledBackTo === undefined) {
          item.rolledBackTo = event.checkpoint_id;
          this.touch(item);
        }
      }
    }
    this.push<RewindItem>({
      kind: 'rewind',
      key: this.nextKey(),
      version: 0,
      checkpointId: event.checkpoint_id,
      ...(from?.kind === 'user' ? { messageText: from.text } : {}),
      restored: event.restored,
      removed: event.removed,
      undoCheckpointId: event.undo_checkpoint_id,
      ...(event.forked_session_id !== undefined ? { forkedSessionId: event.forked_session_id } : {}),
    });
  }

  private appendDelta(text: string): void {
    const open = this.openAssistant;
    // Text that follows a tool card is a new message below it, not more of the one above.
    if (open !== undefined && this.list[this.list.length - 1] === open) {
      open.text += text;
      this.touch(open);
      return;
    }
    this.closeAssistant();
    this.openAssistant = this.push<AssistantItem>({ kind: 'assistant', key: this.nextKey(), version: 0, text, streaming: true });
  }

  private finishAssistant(text: string, reasoning: string | undefined): void {
    const open = this.openAssistant;
    if (open !== undefined) {
      // The final text is authoritative: it replaces whatever the deltas added up to.
      open.text = text;
      open.streaming = false;
      if (reasoning !== undefined) open.reasoning = reasoning;
      this.openAssistant = undefined;
      this.touch(open);
      return;
    }
    this.push<AssistantItem>({
      kind: 'assistant',
      key: this.nextKey(),
      version: 0,
      text,
      streaming: false,
      ...(reasoning !== undefined ? { reasoning } : {}),
    });
  }

  /**
   * A run is over, or a new run began: no call of the old run can still be approved, answered or
   * finish. The scheduler answers every call of a run that ends (cancelled or not), so only a run
   * cut off by a reload or a crash leaves such cards, which would otherwise say "Waiting for
   * approval" forever. As in the store (R3): a call that was running is indeterminate; one that
   * never started was cancelled before it ran.
   */
  /**
   * The chat's last run never finished (a snapshot after a reload): the calls it left running are
   * indeterminate, those waiting never ran, and one recovery card offers Resume.
   */
  markInterrupted(): void {
    this.closeAssistant();
    const running = [...this.cards.values()].filter((card) => card.state === 'running' || card.state === 'awaiting-answer');
    this.closeUnfinishedCards();
    const recovery = this.pushRecovery(running.map((card) => card.callId));
    recovery.resumable = true;
  }

  private pushRecovery(callIds: string[]): RecoveryItem {
    const recovery: RecoveryItem = { kind: 'recovery', key: this.nextKey(), version: 0, callIds, resumable: false, resumed: false };
    this.push(recovery);
    this.openRecovery = recovery;
    return recovery;
  }

  private closeUnfinishedCards(): void {
    for (const card of this.cards.values()) {
      if (card.state === 'finished') continue;
      card.outcome = card.state === 'running' || card.state === 'awaiting-answer' ? 'indeterminate' : 'cancelled';
      card.state = 'finished';
      this.touch(card);
    }
  }

  private closeAssistant(): void {
    const open = this.openAssistant;
    if (open === undefined) return;
    open.streaming = false;
    this.openAssistant = undefined;
    this.touch(open);
  }

  private ensureCard(callId: string, tool: string | undefined): ToolItem {
    const existing = this.card(callId);
    if (existing !== undefined) {
      if (tool !== undefined && existing.tool === '') existing.tool = tool;
      return existing;
    }
    const card = this.push<ToolItem>({
      kind: 'tool',
      key: toolKey(callId),
      version: 0,
      callId,
      tool: tool ?? '',
      argumentsText: '',
      attempt: 1,
      started: false,
      state: 'requested',
      output: '',
      droppedOutputChars: 0,
      outputLines: 0,
      truncated: false,
      groupSize: 1,
    });
    this.joinGroup(card);
    return card;
  }

  /** Adds an item at the end; tool cards are also indexed by call id for the events that follow. */
  private push<T extends TranscriptItem>(item: T): T {
    this.list.push(item);
    if (item.kind === 'tool') this.cards.set(item.callId, item);
    return item;
  }

  private nextKey(): string {
    return `item:${this.sequence++}`;
  }

  private touch(item: TranscriptItem): void {
    item.version += 1;
    // The group's row shows every member's state, so a member's change redraws it.
    if (item.kind === 'tool' && item.groupLeader !== undefined) {
      const leader = this.cards.get(item.groupLeader);
      if (leader !== undefined) leader.version += 1;
    }
  }

  /** Joins a new card to the group of the card right above it when both are calls of one grouped tool. */
  private joinGroup(card: ToolItem): void {
    if (!GROUPED_TOOLS.has(card.tool)) return;
    const above = this.list[this.list.length - 2];
    if (above?.kind !== 'tool' || above.tool !== card.tool || above.parentCallId !== card.parentCallId) return;
    const leader = this.cards.get(above.groupLeader ?? above.callId);
    if (leader === undefined) return;
    leader.groupSize += 1;
    card.groupLeader = leader.callId;
  }

  /** The calls of a group, leader first, in the order they were made. */
  groupMembers(leaderCallId: string): ToolItem[] {
    const leader = this.cards.get(leaderCallId);
    if (leader === undefined) return [];
    const members = [leader];
    const start = this.list.indexOf(leader);
    for (let index = start + 1; index < this.list.length && members.length < leader.groupSize; index += 1) {
      const item = this.list[index];
      if (item?.kind === 'tool' && item.groupLeader === leaderCallId) members.push(item);
    }
    return members;
  }
}
