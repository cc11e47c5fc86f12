/**
 * Keeping a session's requests inside the model's context window (issue 10 item 2).
 *
 * Before a request would pass the budget (80% of the window less the output reserve), old
 * tool outputs are pruned to stubs (core/context-view.ts); if that is not enough, the older
 * turns are compacted: replaced by a handoff that Zuno rebuilds from its store — the user's
 * prompts verbatim, the plan, todos and goal, the files changed, every indeterminate or
 * unresolved call with its attempt — to which a summary the model writes is added, never
 * substituted. The store keeps every message; a `context-compacted` event records the cut
 * and the summary, so a resumed session sends the same view (rebuilt from the store again).
 */
import type { EventBus } from '../core/events';
import { callsById, choosePrunedOutputs, chooseCut, contextView, type Compaction } from '../core/context-view';
import { CHARS_PER_TOKEN, estimateRequest } from '../core/token-budget';
import type { TranscriptMessage } from '../core/transcript';
import { summarizeArguments, type Store } from '../store/store';
import type { ContextWindow } from './context-window';
import type { ModelProvider } from './provider';

/** The share of the usable window a request may fill before Zuno prunes, then compacts. */
const BUDGET_SHARE = 0.8;
/** After pruning, the newest tool outputs kept whole: this share of the budget. */
const KEEP_OUTPUTS_SHARE = 0.3;
/** After compacting, the newest messages kept whole: this share of the budget. */
const KEEP_MESSAGES_SHARE = 0.25;
/** What is left for the model's answer when no `model.max_output_tokens` says. */
const DEFAULT_OUTPUT_RESERVE = 4096;

export interface ContextBudget {
  readonly window: ContextWindow;
  /** Tokens kept free for the answer. */
  readonly reserve: number;
  /** The request size past which Zuno prunes, then compacts. */
  readonly tokens: number;
}

/** The budget for a window: 80% of what the window holds once the answer's reserve is set aside. */
export function contextBudget(window: ContextWindow, maxOutputTokens?: number): ContextBudget {
  const reserve = Math.min(maxOutputTokens ?? DEFAULT_OUTPUT_RESERVE, Math.floor(window.tokens / 4));
  return { window, reserve, tokens: Math.floor((window.tokens - reserve) * BUDGET_SHARE) };
}

const EDIT_TOOLS: ReadonlySet<string> = new Set(['write', 'edit', 'apply_patch']);

/** The paths a successful write, edit or apply_patch call changed, from its arguments. */
function changedPaths(tool: string, argumentsJson: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsJson);
  } catch {
    return [];
  }
  if (typeof parsed !== 'object' || parsed === null) return [];
  const args = parsed as Record<string, unknown>;
  if (tool !== 'apply_patch') return typeof args['path'] === 'string' ? [args['path']] : [];
  const patch = typeof args['patch'] === 'string' ? args['patch'] : '';
  return [...patch.matchAll(/^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm)].flatMap((match) =>
    match[1] ? [match[1].trim()] : [],
  );
}

export interface Handoff {
  readonly text: string;
  /** What it carries, one short phrase each, for the UI's divider. */
  readonly kept: string[];
}

/** The user's prompts in order: from the stored `user-message` events, else the transcript's user messages. */
function userPrompts(store: Store, sessionId: string, transcript: readonly TranscriptMessage[]): string[] {
  const fromEvents = store.events(sessionId).flatMap((event) => (event.type === 'user-message' ? [event.text] : []));
  if (fromEvents.length > 0) return fromEvents;
  return transcript.flatMap((message) => (message.role === 'user' ? [message.content] : []));
}

/**
 * The handoff that replaces the compacted turns, rebuilt from the store each time it is built:
 * what the store knows is exact; the model's summary only adds to it. `promptBudget` caps the
 * prompts' characters (the first and the newest are always kept, verbatim).
 */
export function buildHandoff(
  store: Store,
  sessionId: string,
  transcript: readonly TranscriptMessage[],
  summary: string,
  promptBudget = 40_000,
): Handoff {
  const kept: string[] = [];
  const lines: string[] = [
    'Earlier turns of this session were compacted to fit the context window. Zuno rebuilt this handoff from its records: the',
    'prompts, work state, changed files and unresolved calls below are exact; the summary at the end is your own earlier notes.',
  ];

  const prompts = userPrompts(store, sessionId, transcript);
  const shown = prompts.map((prompt, index) => ({ prompt, index }));
  let total = prompts.reduce((sum, prompt) => sum + prompt.length, 0);
  // Drop middle prompts (never the first or the newest) until the rest fit.
  while (total > promptBudget && shown.length > 2) {
    const [removed] = shown.splice(1, 1);
    total -= removed?.prompt.length ?? 0;
  }
  if (prompts.length > 0) {
    lines.push('', "The user's requests, verbatim, oldest first:");
    for (const { prompt, index } of shown) lines.push(`--- request ${index + 1} ---`, prompt);
    if (shown.length < prompts.length) lines.push(`(${prompts.length - shown.length} requests in between were left out to save context.)`);
    lines.push('--- end of requests ---');
    kept.push(`${prompts.length} ${prompts.length === 1 ? 'request' : 'requests'}`);
  }

  const goal = store.getGoal(sessionId);
  if (goal) {
    lines.push('', `Goal (${goal.status}): ${goal.text}`);
    kept.push('goal');
  }
  const plan = store.getPlan(sessionId);
  if (plan) {
    lines.push('', 'Plan:', plan);
    kept.push('plan');
  }
  const todos = store.getTodos(sessionId);
  if (todos.length > 0) {
    lines.push('', 'Todos:', ...todos.map((todo) => `- [${todo.status}] ${todo.id}: ${todo.content}`));
    kept.push(`${todos.length} ${todos.length === 1 ? 'todo' : 'todos'}`);
  }

  const calls = store.calls(sessionId);
  const changed = [
    ...new Set(
      calls.flatMap((call) => (call.status === 'ok' && EDIT_TOOLS.has(call.tool) ? changedPaths(call.tool, call.argumentsJson) : [])),
    ),
  ];
  if (changed.length > 0) {
    lines.push('', 'Files changed so far by write, edit and apply_patch:', ...changed.map((path) => `- ${path}`));
    kept.push(`${changed.length} changed ${changed.length === 1 ? 'file' : 'files'}`);
  }
  const unresolved = calls.filter((call) => call.status === 'indeterminate' || call.status === 'running');
  if (unresolved.length > 0) {
    lines.push(
      '',
      'Calls whose effect is unknown (they may or may not have happened; check the real state before changing anything again, and never assume they ran):',
      ...unresolved.map(
        (call) =>
          `- ${call.tool} (call ${call.callId}, attempt ${call.attempt}, ${call.status === 'running' ? 'unresolved' : 'indeterminate'}): ${summarizeArguments(call.argumentsJson)}`,
      ),
    );
    kept.push(`${unresolved.length} unresolved ${unresolved.length === 1 ? 'call' : 'calls'}`);
  }

  if (summary.trim()) {
    lines.push('', 'Summary of the earlier turns (written by the model when they were compacted):', summary.trim());
    kept.push('summary');
  }
  lines.push('', 'Continue the work from here.');
  return { text: lines.join('\n'), kept };
}

const SUMMARY_SYSTEM =
  'You summarise a coding session so that it can continue after its older turns are dropped. ' +
  'Write plain prose and short lists: what was done and found, decisions and why, what failed, and what remains. ' +
  'Name files, functions and commands exactly. Do not call tools.';

/** The older turns as text for the summary request, newest kept when they must be cut to fit. */
function renderForSummary(messages: readonly TranscriptMessage[], maxCharacters: number): string {
  const calls = callsById(messages);
  const parts = messages.map((message) => {
    switch (message.role) {
      case 'system':
      case 'user':
        return `USER: ${message.content}`;
      case 'assistant': {
        const called = (message.toolCalls ?? [])
          .map((call) => `\n[called ${call.name} ${summarizeArguments(call.arguments, 300)}]`)
          .join('');
        return `ASSISTANT: ${message.content}${called}`;
      }
      case 'tool': {
        const name = calls.get(message.callId)?.name ?? message.toolName;
        const text =
          message.content.length > 800
            ? `${message.content.slice(0, 800)}… (${message.content.length} characters in all)`
            : message.content;
        return `RESULT of ${name}: ${text}`;
      }
    }
  });
  let text = parts.join('\n\n');
  if (text.length > maxCharacters) text = `(older part left out)\n…${text.slice(text.length - maxCharacters)}`;
  return text;
}

export interface SessionContextOptions {
  readonly store: Store;
  readonly sessionId: string;
  readonly provider: ModelProvider;
  readonly events: EventBus;
  readonly budget: ContextBudget;
}

/** What a compaction did, as the `context-compacted` event reports it. */
export interface CompactionReport {
  readonly cut: number;
  readonly kept: string[];
  readonly summary: string;
}

/**
 * One session's sent view: what is pruned and where it was compacted. `restore` picks up the
 * last compaction a previous run recorded; `fit` keeps the next request inside the budget.
 */
export class SessionContext {
  private compaction: Compaction | undefined;
  private summary = '';
  private pruned = new Set<string>();
  private readonly outcomes = new Map<string, string | undefined>();
  private budgetTokens: number;

  constructor(private readonly options: SessionContextOptions) {
    this.budgetTokens = options.budget.tokens;
  }

  /**
   * The server refused a request of about `refusedTokens` as too long, so its real window is
   * smaller than the one Zuno assumed: later requests keep to 80% of the refused size.
   */
  shrinkBudget(refusedTokens: number): void {
    this.budgetTokens = Math.min(this.budgetTokens, Math.floor(refusedTokens * BUDGET_SHARE));
  }

  /** Resumes from the last `context-compacted` event in the store, rebuilding its handoff from today's records. */
  restore(transcript: readonly TranscriptMessage[]): void {
    const { store, sessionId } = this.options;
    const last = store
      .events(sessionId)
      .filter((event) => event.type === 'context-compacted')
      .at(-1);
    if (last?.type !== 'context-compacted' || last.message_index > transcript.length) return;
    this.summary = last.summary;
    this.compaction = { cut: last.message_index, handoff: buildHandoff(store, sessionId, transcript, last.summary).text };
  }

  /** The messages to send for this transcript. */
  view(transcript: readonly TranscriptMessage[]): TranscriptMessage[] {
    return contextView(transcript, this.compaction, this.pruned, (callId) => this.outcome(callId));
  }

  /** A pruned call's recorded outcome, asked of the store once: a call with a result in the transcript has finished. */
  private outcome(callId: string): string | undefined {
    if (this.outcomes.has(callId)) return this.outcomes.get(callId);
    const status = this.options.store.getCall(this.options.sessionId, callId)?.status;
    this.outcomes.set(callId, status);
    return status;
  }

  /**
   * Prunes, then compacts when pruning was not enough, so that `measure(view)` is within the
   * budget if the transcript allows it. Returns whether the view changed (the caller's
   * estimate anchor is then stale).
   */
  async fit(
    transcript: readonly TranscriptMessage[],
    before: number,
    measure: (messages: readonly TranscriptMessage[]) => number,
    signal: AbortSignal,
  ): Promise<boolean> {
    const budget = this.budgetTokens;
    if (before <= budget) return false;
    const start = this.compaction?.cut ?? 0;
    this.pruned = choosePrunedOutputs(transcript.slice(start), Math.floor(budget * KEEP_OUTPUTS_SHARE), this.pruned);
    if (measure(this.view(transcript)) <= budget) return true;
    await this.compact(transcript, 'threshold', measure, signal, before);
    return true;
  }

  /**
   * Replaces the turns before a cut by the handoff, asking the model for a summary of them
   * first. A failed summary request leaves the summary out: the store's facts are the handoff.
   * Returns undefined when there is nothing older to compact.
   */
  async compact(
    transcript: readonly TranscriptMessage[],
    reason: 'threshold' | 'overflow' | 'manual',
    measure: (messages: readonly TranscriptMessage[]) => number,
    signal: AbortSignal,
    before = measure(this.view(transcript)),
    keepTokens = Math.floor(this.budgetTokens * KEEP_MESSAGES_SHARE),
  ): Promise<CompactionReport | undefined> {
    const { store, sessionId, provider, events, budget } = this.options;
    const from = this.compaction?.cut ?? 0;
    const cut = chooseCut(transcript, from, keepTokens);
    if (cut <= from) return undefined;

    const skipHandoff = this.compaction ? 1 : 0;
    const older = this.view(transcript).slice(skipHandoff, skipHandoff + cut - from);
    const previous = this.summary ? `Summary of the turns before these:\n${this.summary}\n\n` : '';
    // Half the budget for the turns to summarise: the request must fit the window itself.
    const room = Math.max(2000, Math.floor(this.budgetTokens * CHARS_PER_TOKEN * 0.5));
    const request = `${previous}Summarise these turns of the session:\n\n${renderForSummary(older, room)}`;
    let summary = '';
    try {
      const answer = await provider.stream(
        { system: SUMMARY_SYSTEM, messages: [{ role: 'user', content: request }], tools: [], signal },
        () => undefined,
      );
      summary = answer.text;
      if (answer.usage) {
        store.recordModelRequest(sessionId, {
          ...answer.usage,
          ...(provider.model !== undefined ? { model: provider.model } : {}),
          contextWindow: budget.window.tokens,
        });
      }
    } catch (error) {
      if (signal.aborted) throw error;
      events.emit(sessionId, {
        type: 'notice',
        level: 'warning',
        text: `The model could not summarise the older turns (${error instanceof Error ? error.message : String(error)}); the handoff carries Zuno's records without a summary.`,
      });
    }
    const combined = [this.summary, summary].filter((part) => part.trim()).join('\n\n');
    const handoff = buildHandoff(store, sessionId, transcript, combined);
    this.summary = combined;
    this.compaction = { cut, handoff: handoff.text };
    // What was pruned before the cut is gone from the view; what is after it stays pruned.
    const remaining = new Set(transcript.slice(cut).flatMap((message) => (message.role === 'tool' ? [message.callId] : [])));
    this.pruned = new Set([...this.pruned].filter((callId) => remaining.has(callId)));
    events.emit(sessionId, {
      type: 'context-compacted',
      reason,
      message_index: cut,
      tokens_before: before,
      tokens_after: measure(this.view(transcript)),
      kept: handoff.kept,
      summary: combined,
    });
    return { cut, kept: handoff.kept, summary: combined };
  }
}

export interface CompactSessionOptions {
  readonly store: Store;
  readonly provider: ModelProvider;
  readonly events: EventBus;
  readonly sessionId: string;
  readonly window: ContextWindow;
  readonly signal: AbortSignal;
}

/**
 * Compacts a stored session now, between runs (the editor's `zuno.compact`): everything before
 * its newest turn goes into the handoff. The next run restores it from the recorded event.
 * Undefined when there is nothing before the newest turn.
 */
export async function compactSession(options: CompactSessionOptions): Promise<CompactionReport | undefined> {
  const { store, provider, events, sessionId, window, signal } = options;
  const transcript = store.messages(sessionId);
  const context = new SessionContext({ store, sessionId, provider, events, budget: contextBudget(window) });
  context.restore(transcript);
  const measure = (messages: readonly TranscriptMessage[]): number => estimateRequest({ system: '', tools: [], messages });
  return context.compact(transcript, 'manual', measure, signal, undefined, 0);
}
