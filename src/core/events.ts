/**
 * The runtime's event stream. The CLI prints these as JSON lines (`zuno exec --json`), the store
 * persists them, and the editor's webview renders them. Field names are snake_case because they
 * are a public, documented wire format (README: "The CLI contract").
 */
import type { PermissionRule } from './config';
import type { Concurrency, Effect, Replay } from './declarations';
import type { BlockedCategory, OutcomeKind } from './outcome';

export type ZunoEventBody =
  | { type: 'session-started'; workspace?: string; resumed?: boolean }
  | { type: 'session-finished'; reason: 'done' | 'step-limit' | 'cancelled' | 'error'; message?: string }
  | { type: 'user-message'; text: string }
  | { type: 'assistant-delta'; text: string }
  /** `reasoning`: a reasoning model's thoughts for this answer (issue 10 item 4), shown collapsed. */
  | { type: 'assistant-message'; text: string; reasoning?: string }
  | {
      type: 'tool-call-requested';
      call_id: string;
      tool: string;
      arguments: string;
    }
  | {
      type: 'tool-call-started';
      call_id: string;
      tool: string;
      effect: Effect;
      replay: Replay;
      concurrency: Concurrency;
      attempt: number;
      parent_call_id?: string;
    }
  | { type: 'tool-call-output'; call_id: string; chunk: string }
  | { type: 'dispatch-blocked'; call_id: string; tool: string; category: BlockedCategory; reason: string }
  | { type: 'approval-requested'; call_id: string; tool: string; subject?: string; parent_call_id?: string }
  | {
      type: 'approval-resolved';
      call_id: string;
      tool: string;
      approved: boolean;
      reason?: string;
      /** The visible rule the user added while approving ("Allow like this"), so the record names it. */
      added_rule?: PermissionRule;
    }
  | {
      type: 'tool-call-finished';
      call_id: string;
      tool: string;
      outcome: OutcomeKind;
      category?: BlockedCategory;
      duration_ms: number;
      truncated: boolean;
      /** A command's exit code, when the tool ran one to its end (shown on the shell row). */
      exit_code?: number;
    }
  /**
   * A `task` call started its child agent (issue 14 item 3), in the parent's session: the child's
   * own events carry `child_session_id`, so a viewer can draw them inside the parent call.
   */
  | { type: 'delegation-started'; call_id: string; child_session_id: string; agent: string }
  | { type: 'recovery-notice'; call_id: string; attempt: number; tool: string; text: string }
  | { type: 'notice'; level: 'info' | 'warning' | 'error'; text: string }
  /** A restorable checkpoint of the work tree, taken before the turn's first side effect (issue 13). */
  | { type: 'checkpoint-created'; checkpoint_id: string; message_index?: number; skipped?: string[]; nested?: string[] }
  /** Files were restored to a checkpoint; `undo_checkpoint_id` restores what the rewind replaced (issue 13). */
  | { type: 'rewind'; checkpoint_id: string; restored: string[]; removed: string[]; undo_checkpoint_id: string; forked_session_id?: string }
  | UsageEventBody
  | ContextCompactedEventBody;

/**
 * The messages before `message_index` are no longer sent; a handoff rebuilt from the store
 * replaces them (issue 10 item 2). The store and the UI keep them all. `kept` lists what the
 * handoff carries, for the divider the UI draws; `summary` is the model's prose, kept so a
 * resumed session rebuilds the same handoff without asking again.
 */
export interface ContextCompactedEventBody {
  type: 'context-compacted';
  /** `threshold`: the next request would have passed the budget; `overflow`: the server refused it as too long; `manual`: asked for. */
  reason: 'threshold' | 'overflow' | 'manual';
  message_index: number;
  /** Estimated tokens of the request before and after. */
  tokens_before: number;
  tokens_after: number;
  kept: string[];
  summary: string;
}

/**
 * Tokens of one model request (issue 10 item 1), emitted once its turn's tool results are in the
 * transcript, so `estimated_next_input_tokens` is the size of the request that would come next.
 */
export interface UsageEventBody {
  type: 'usage';
  input_tokens: number;
  output_tokens: number;
  /** Prompt tokens served from the server's cache. */
  cached_tokens?: number;
  /** Prompt tokens written to the cache (Anthropic). */
  cache_write_tokens?: number;
  /** True when the server reported nothing and the counts are Zuno's chars/4 estimate. */
  estimated?: boolean;
  context_window?: number;
  /** Where the window came from; `default` means a guess (32k). */
  context_window_source?: 'config' | 'server' | 'table' | 'default';
  estimated_next_input_tokens?: number;
  model?: string;
  /** US dollars for this request, when `model.prices` has the model (issue 10 item 7). */
  cost_usd?: number;
}

export type ZunoEvent = ZunoEventBody & { ts: number; session_id: string };
export type ZunoEventType = ZunoEventBody['type'];

/** Receives events as they happen. Listeners must not throw; the bus isolates them anyway. */
export type EventListener = (event: ZunoEvent) => void;

/** A tiny fan-out. Listener failures are swallowed so a broken UI can never wedge the runtime. */
export class EventBus {
  private readonly listeners = new Set<EventListener>();

  constructor(private readonly now: () => number = Date.now) {}

  on(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(sessionId: string, body: ZunoEventBody): ZunoEvent {
    const event = { ...body, ts: this.now(), session_id: sessionId };
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A failing listener is the listener's problem, not the scheduler's.
      }
    }
    return event;
  }
}
