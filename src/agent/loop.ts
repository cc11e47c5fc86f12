/**
 * The agent loop, shared by `zuno exec` and the editor: the model asks for tools, the scheduler
 * runs them, the results go back, until the model stops or the step limit is reached.
 *
 * The transcript invariant (core/transcript.ts) holds at every model request: each assistant
 * tool call is followed by exactly one tool message, in call order. Blocked and cancelled calls
 * get their result like any other; after a crash, the calls left without one get theirs from
 * the store's rows (`indeterminate`, never re-run). Recovery notices come from SQL (SPEC R3).
 */
import type { EventBus } from '../core/events';
import type { ToolRegistry } from '../core/registry';
import type { ToolCallRequest, ToolCallResult, Scheduler } from '../core/scheduler';
import type { CallEnvironment } from '../core/tool';
import type { ImagePart, TranscriptMessage, TranscriptToolCall } from '../core/transcript';
import { INTERRUPTED_OUTPUT, recoveryNoticeText, type Store } from '../store/store';
import { estimateRequest, estimateTokens, messageCharacters, RequestEstimator } from '../core/token-budget';
import { resolveContextWindow, type ContextWindow } from './context-window';
import { environmentBlock, instructionsBlock, instructionsNotice, loadProjectContext, type ProjectContext } from './project-context';
import { isAbortError, ProviderError, type ModelProvider, type ModelResponse, type TokenUsage, type ToolDefinition } from './provider';
import { contextBudget, SessionContext } from './compaction';
import { imageRefusal } from './images';
import { costUsd, priceFor } from '../core/pricing';

export type FinishReason = 'done' | 'step-limit' | 'cancelled' | 'error';

export interface AgentRunOptions {
  readonly store: Store;
  readonly provider: ModelProvider;
  readonly scheduler: Scheduler;
  readonly registry: ToolRegistry;
  readonly env: CallEnvironment;
  readonly events: EventBus;
  /** Continue this session (after a crash too); a new session is created when absent. */
  readonly sessionId?: string;
  readonly prompt: string;
  /** Images pasted with the prompt (issue 14); refused before anything starts unless `model.images` is on. */
  readonly images?: readonly ImagePart[];
  /** Cancels the model request and the running tools; the run then finishes as `cancelled`. */
  readonly signal: AbortSignal;
  /** An agent's exact tool allowlist, replacing the default surface (SPEC A1). */
  readonly allowlist?: readonly string[];
  /** Defaults to `model.max_steps` from the config. */
  readonly maxSteps?: number;
  /** Extra instructions appended to the system prompt (an agent's `prompt`). */
  readonly instructions?: string;
  /**
   * Messages the user typed while the run worked (issue 14 item 7), taken at each step and added
   * to the transcript before the next model request, so none waits for the run to end.
   */
  readonly takeQueuedMessages?: () => readonly QueuedPrompt[];
  /** Compact the session's earlier turns before this prompt's first request (`zuno exec --compact`, issue 10 item 2). */
  readonly compact?: boolean;
}

/** A message the user typed while the run worked, with the images pasted into it. */
export interface QueuedPrompt {
  readonly text: string;
  readonly images?: readonly ImagePart[];
}

/** What one agent loop runs against: a runtime's parts, or a delegated child's own. */
export type AgentRunContext = Pick<AgentRunOptions, 'store' | 'scheduler' | 'registry' | 'env' | 'events'>;

/** One run's own inputs, given to `Runtime.run` or `agentRunner(context)`. */
export type AgentRequest = Omit<AgentRunOptions, keyof AgentRunContext>;

/** Binds a context once, so callers pass only what differs per run. */
export function agentRunner(context: AgentRunContext): (request: AgentRequest) => Promise<AgentRunResult> {
  return (request) => runAgent({ ...context, ...request });
}

export interface AgentRunResult {
  readonly sessionId: string;
  readonly reason: FinishReason;
  /** The last assistant text of the run. */
  readonly text: string;
  /** Set when the reason is `error`: what failed, for people. */
  readonly error?: Error;
}

/** A prompt with images for a model that is not set up to take them; nothing was started. */
export class ImagesRefusedError extends Error {
  override readonly name = 'ImagesRefusedError';
}

/** `--session ID` names a session the state dir does not hold. */
export class SessionNotFoundError extends Error {
  override readonly name = 'SessionNotFoundError';
}

/** Short on purpose: what Zuno is, where it works, and the etiquette its outcomes rely on. */
export function systemPrompt(
  workspaceRoot: string,
  instructions?: string,
  memories: readonly string[] = [],
  project?: ProjectContext,
): string {
  const projectInstructions = project ? instructionsBlock(project.instructions) : '';
  return [
    `You are Zuno, a coding agent working in the user's workspace at ${workspaceRoot} through tools.`,
    'Paths are relative to the workspace root unless they are absolute.',
    'Read a file before editing it. Prefer apply_patch for edits to existing files; use write to create a file or to replace a whole file on purpose.',
    'Independent read-only calls (read, glob, grep) can go in one turn: they run in parallel.',
    'A BLOCKED result means the call did not run and nothing changed: read the reason and adjust instead of repeating the same call.',
    'An INDETERMINATE result means the effect may or may not have happened: check the real state before changing anything again.',
    'When the work is done, reply with a short summary of what you did, without calling more tools.',
    ...(project ? ['', environmentBlock(project.environment)] : []),
    ...(projectInstructions ? ['', projectInstructions] : []),
    ...(memories.length > 0
      ? ['', 'What the user asked you to remember from earlier sessions:', ...memories.map((memory) => `- ${memory}`)]
      : []),
    ...(instructions ? ['', instructions] : []),
  ].join('\n');
}

/** The result text of a call that has no tool message, taken from its stored row. */
function storedResultText(store: Store, sessionId: string, callId: string): string {
  const row = store.getCall(sessionId, callId);
  if (!row) return 'NOT EXECUTED: the process stopped before this call started. Nothing ran.';
  if (row.status === 'running') return INTERRUPTED_OUTPUT;
  return row.output ?? `The call ended as ${row.status}.`;
}

/**
 * Gives every tool call of the last assistant message that lacks a result one tool message, in
 * call order, so the next request is well formed. `resultFor` supplies the missing text.
 */
function completePairs(
  transcript: TranscriptMessage[],
  append: (message: TranscriptMessage) => void,
  resultFor: (call: TranscriptToolCall) => string,
): void {
  let lastAssistant = -1;
  for (let index = transcript.length - 1; index >= 0; index--) {
    if (transcript[index]?.role === 'assistant') {
      lastAssistant = index;
      break;
    }
  }
  const assistant = transcript[lastAssistant];
  if (assistant?.role !== 'assistant') return;
  const answered = new Set(transcript.slice(lastAssistant + 1).flatMap((message) => (message.role === 'tool' ? [message.callId] : [])));
  for (const call of assistant.toolCalls ?? []) {
    if (!answered.has(call.id)) append({ role: 'tool', callId: call.id, toolName: call.name, content: resultFor(call) });
  }
}

/**
 * Ids must be unique in a session (the store keys calls by them), but some local servers number
 * calls from zero on every answer. Repeated ids get a suffix; the model sees the renamed ids.
 */
function uniqueCallIds(calls: readonly TranscriptToolCall[], used: Set<string>): TranscriptToolCall[] {
  return calls.map((call) => {
    let id = call.id;
    for (let suffix = 2; used.has(id); suffix++) id = `${call.id}-${suffix}`;
    used.add(id);
    return id === call.id ? call : { ...call, id };
  });
}

const cancelledText = (call: TranscriptToolCall): string =>
  `CANCELLED: the call to "${call.name}" did not report a result because the run was cancelled. Check the current state before repeating it.`;

/** The window from the config, else from the server (asked once per run, bounded), else the table or a guess. */
export async function contextWindowFor(provider: ModelProvider, configured: number, signal: AbortSignal): Promise<ContextWindow> {
  const fromServer = configured > 0 ? undefined : await provider.serverContextWindow?.(signal).catch(() => undefined);
  return resolveContextWindow(configured > 0 ? configured : undefined, fromServer, provider.model);
}

const windowSourceText: Readonly<Record<ContextWindow['source'], string>> = {
  config: 'model.context_window',
  server: 'as the server states it',
  table: 'from the table of well-known models',
  default: 'a guess: neither the config nor the server states it',
};

/** The run's end when the server still refuses a compacted request as too long: what to change. */
function overflowError(refusal: ProviderError, estimate: number, window: ContextWindow): ProviderError {
  return new ProviderError(
    `${refusal.message} Zuno compacted the session and the request (about ${estimate} tokens) is still too long for the model's context; ` +
      `Zuno assumed a window of ${window.tokens} tokens (${windowSourceText[window.source]}). ` +
      'Use a model or server setting with a larger context window, or set model.context_window to the window the server really has so Zuno compacts in time.',
    refusal.status !== undefined ? { status: refusal.status } : {},
  );
}

/**
 * Runs the agent on one prompt, in a new or an existing session. A model failure does not
 * reject: the run finishes with reason `error` and the ProviderError in `error`.
 */
export async function runAgent(options: AgentRunOptions): Promise<AgentRunResult> {
  const { store, provider, scheduler, registry, env, events, signal } = options;
  const maxSteps = options.maxSteps ?? env.config.model.max_steps;
  const refusal = imageRefusal(env.config, options.images?.length ?? 0);
  if (refusal !== undefined) throw new ImagesRefusedError(refusal);

  let sessionId: string;
  if (options.sessionId !== undefined) {
    if (!store.getSession(options.sessionId)) {
      const known = store
        .listSessions()
        .slice(0, 5)
        .map((session) => session.id);
      throw new SessionNotFoundError(
        `There is no session "${options.sessionId}" in ${store.stateDir}. ` +
          (known.length > 0 ? `Recent sessions: ${known.join(', ')}. ` : '') +
          'Leave out --session to start a new one, or pass the --state-dir that holds it.',
      );
    }
    sessionId = options.sessionId;
  } else {
    sessionId = store.createSession({ workspace: env.workspaceRoot, title: options.prompt.slice(0, 80) }).id;
  }
  store.setSessionStatus(sessionId, 'active');
  const transcript = store.messages(sessionId);
  // A session created by the caller (a delegated child) is new until it has a transcript.
  const resumed = transcript.length > 0;
  events.emit(sessionId, { type: 'session-started', workspace: env.workspaceRoot, resumed });
  // The prompt's rules are fixed now, before any call (issue 8 §3).
  scheduler.beginPrompt(sessionId);
  // Read once per run, so the system prompt stays the same on every step (prompt caching).
  const project = await loadProjectContext({
    fs: env.host.fs,
    workspaceRoot: env.workspaceRoot,
    ...(env.host.userConfigDirectory !== undefined ? { userConfigDirectory: env.host.userConfigDirectory } : {}),
    now: new Date(),
  });
  const loadedNotice = instructionsNotice(project.instructions);
  if (loadedNotice !== undefined) events.emit(sessionId, { type: 'notice', level: 'info', text: loadedNotice });
  for (const problem of project.instructions.problems)
    events.emit(sessionId, { type: 'notice', level: 'warning', text: `Project instructions: ${problem}` });

  const append = (message: TranscriptMessage): void => {
    store.appendMessage(sessionId, message);
    transcript.push(message);
  };
  if (options.sessionId !== undefined) {
    // R3: calls a dead process left running become indeterminate; none is run again.
    store.recoverInterrupted(sessionId);
    completePairs(transcript, append, (call) => storedResultText(store, sessionId, call.id));
  }
  const usedIds = new Set(
    transcript.flatMap((message) => (message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => call.id) : [])),
  );

  const deliverRecoveryNotices = (): void => {
    const notices = store.pendingRecoveryNotices(sessionId);
    if (notices.length === 0) return;
    const text = recoveryNoticeText(notices);
    append({ role: 'user', content: text });
    for (const notice of notices) {
      events.emit(sessionId, { type: 'recovery-notice', call_id: notice.callId, attempt: notice.attempt, tool: notice.tool, text });
    }
    // Delivered once it is in the transcript: every later request carries it from there.
    store.markNoticesDelivered(notices);
  };

  /** Background commands and delegations that ended since the last step tell the session once. */
  const deliverFinishedJobs = (): void => {
    const finished = env.background?.takeFinishedNotices(sessionId);
    if (!finished) return;
    append({ role: 'user', content: finished });
    events.emit(sessionId, { type: 'notice', level: 'info', text: finished });
  };

  const finish = async (reason: FinishReason, text: string, error?: Error): Promise<AgentRunResult> => {
    // What the turn left is recorded before it counts as finished (issue 13: later changes are not Zuno's).
    await scheduler.checkpoints?.endPrompt(sessionId);
    store.setSessionStatus(sessionId, reason);
    const message =
      reason === 'step-limit'
        ? `Stopped after ${maxSteps} model steps (model.max_steps). Continue with --session ${sessionId}, or raise model.max_steps.`
        : reason === 'cancelled'
          ? 'The run was cancelled.'
          : error?.message;
    events.emit(sessionId, { type: 'session-finished', reason, ...(message !== undefined ? { message } : {}) });
    return { sessionId, reason, text, ...(error ? { error } : {}) };
  };

  /** Adds the messages queued since the last step, as the user's; true when there were any. */
  const deliverQueuedMessages = (): boolean => {
    const queued = options.takeQueuedMessages?.() ?? [];
    for (const { text, images } of queued) {
      // Checked when it was queued too; the setting may have changed since, and then the text goes alone.
      const refusal = imageRefusal(env.config, images?.length ?? 0);
      append({ role: 'user', content: text, ...(images?.length && refusal === undefined ? { images } : {}) });
      events.emit(sessionId, { type: 'user-message', text });
      if (refusal !== undefined)
        events.emit(sessionId, {
          type: 'notice',
          level: 'warning',
          text: refusal.replace('did not send this message', 'sent this message without its images'),
        });
    }
    return queued.length > 0;
  };

  deliverRecoveryNotices();
  append({ role: 'user', content: options.prompt, ...(options.images?.length ? { images: options.images } : {}) });
  scheduler.checkpoints?.notePrompt(sessionId, { messageIndex: transcript.length - 1, text: options.prompt });
  events.emit(sessionId, { type: 'user-message', text: options.prompt });

  // Only memories the user accepted reach the model; proposals wait for the user (memory_propose).
  const memories = env.config.memory.enabled ? store.listMemories('accepted').map((memory) => memory.text) : [];
  const system = systemPrompt(env.workspaceRoot, options.instructions, memories, project);
  const window = await contextWindowFor(provider, env.config.model.context_window, signal);
  const estimator = new RequestEstimator();
  const context = new SessionContext({
    store,
    sessionId,
    provider,
    events,
    budget: contextBudget(window, env.config.model.max_output_tokens || undefined),
  });
  if (resumed) context.restore(transcript);
  let warnedAboutWindow = false;
  const price = priceFor(env.config.model.prices, provider.model);
  let tools: ToolDefinition[] = [];
  const measure = (messages: readonly TranscriptMessage[]): number => estimator.measure({ system, tools, messages });
  /** Reports a request's usage once its turn's results are in, so the estimate is of the next request. */
  const emitUsage = (usage: TokenUsage, estimated: boolean): void => {
    events.emit(sessionId, {
      type: 'usage',
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      ...(usage.cachedTokens !== undefined ? { cached_tokens: usage.cachedTokens } : {}),
      ...(usage.cacheWriteTokens !== undefined ? { cache_write_tokens: usage.cacheWriteTokens } : {}),
      ...(estimated ? { estimated: true } : {}),
      context_window: window.tokens,
      context_window_source: window.source,
      estimated_next_input_tokens: estimator.estimate({ system, tools, messages: context.view(transcript) }),
      ...(provider.model !== undefined ? { model: provider.model } : {}),
      ...(price !== undefined ? { cost_usd: costUsd(usage, price) } : {}),
    });
  };
  let lastText = '';
  for (let step = 1; ; step++) {
    if (signal.aborted) return finish('cancelled', lastText);
    deliverRecoveryNotices();
    deliverFinishedJobs();
    deliverQueuedMessages();
    // MCP servers start here, at the first step that offers tools, and restart after a crash.
    await registry.prepare(signal, (level, text) => events.emit(sessionId, { type: 'notice', level, text }));
    // MCP tools beyond the budget are deferred: mcp_tools finds and enables them (issue 11).
    tools = registry
      .offered(env, sessionId, options.allowlist)
      .sent.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }));

    if (step === 1 && options.compact) {
      // Everything before the newest turn goes into the handoff: the user asked for it.
      const report = await context.compact(transcript, 'manual', measure, signal, undefined, 0);
      if (report) estimator.reset();
      else
        events.emit(sessionId, {
          type: 'notice',
          level: 'info',
          text: 'Nothing to compact yet: the session has no turns before this one.',
        });
    }
    let sent = context.view(transcript);
    let estimate = estimator.estimate({ system, tools, messages: sent });
    // Prune, then compact, before the request would pass the budget (issue 10 item 2).
    if (await context.fit(transcript, estimate, measure, signal)) {
      estimator.reset();
      sent = context.view(transcript);
      estimate = measure(sent);
    }
    // A remote server refuses an oversized request; a local one may cut it silently (Ollama does).
    if (provider.local && !warnedAboutWindow && estimate > window.tokens) {
      warnedAboutWindow = true;
      events.emit(sessionId, {
        type: 'notice',
        level: 'warning',
        text:
          `This request is about ${estimate} tokens, but the model's context window is ${window.tokens} tokens (${windowSourceText[window.source]}). ` +
          'A local server may silently drop the start of the prompt. Load the model with a larger context (for Ollama, num_ctx or OLLAMA_CONTEXT_LENGTH), ' +
          'or set model.context_window if the window is really larger.',
      });
    }

    let answer: ModelResponse | undefined;
    // A server that refuses the request as too long anyway gets one compacted retry; a second refusal ends the run.
    for (let refusals = 0; answer === undefined;) {
      try {
        answer = await provider.stream({ system, messages: sent, tools, signal }, (text) =>
          events.emit(sessionId, { type: 'assistant-delta', text }),
        );
      } catch (error) {
        if (signal.aborted || isAbortError(error)) return finish('cancelled', lastText);
        if (!(error instanceof ProviderError && error.contextOverflow))
          return finish('error', lastText, error instanceof Error ? error : new Error(String(error)));
        refusals++;
        context.shrinkBudget(estimate);
        const report = refusals === 1 ? await context.compact(transcript, 'overflow', measure, signal, estimate) : undefined;
        if (!report) return finish('error', lastText, overflowError(error, estimate, window));
        estimator.reset();
        sent = context.view(transcript);
        estimate = measure(sent);
      }
    }

    const calls = uniqueCallIds(answer.toolCalls, usedIds);
    lastText = answer.text;
    const assistant: TranscriptMessage = {
      role: 'assistant',
      content: answer.text,
      ...(calls.length > 0 ? { toolCalls: calls } : {}),
      ...(answer.reasoning !== undefined ? { reasoning: answer.reasoning } : {}),
      ...(answer.thinking !== undefined && answer.thinking.length > 0 ? { thinking: answer.thinking } : {}),
    };
    // A server that reports no usage is estimated, and the row and the event say so.
    const usage: TokenUsage = answer.usage ?? { inputTokens: estimate, outputTokens: estimateTokens(messageCharacters(assistant)) };
    estimator.record(
      sent.length,
      usage.inputTokens,
      usage.outputTokens,
      answer.usage ? estimateRequest({ system, tools, messages: sent }) : undefined,
    );
    store.recordModelRequest(sessionId, {
      ...usage,
      ...(provider.model !== undefined ? { model: provider.model } : {}),
      estimated: answer.usage === undefined,
      contextWindow: window.tokens,
    });
    append(assistant);
    events.emit(sessionId, { type: 'assistant-message', text: answer.text, ...(answer.reasoning ? { reasoning: answer.reasoning } : {}) });
    if (calls.length === 0) {
      emitUsage(usage, answer.usage === undefined);
      // A message typed while the model wrote its answer is answered in the same run.
      if (step < maxSteps && !signal.aborted && deliverQueuedMessages()) continue;
      return finish('done', lastText);
    }

    for (const call of calls)
      events.emit(sessionId, { type: 'tool-call-requested', call_id: call.id, tool: call.name, arguments: call.arguments });
    const requests: ToolCallRequest[] = calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments }));
    const results = new Map<string, ToolCallResult>();
    for (const result of await scheduler.runTurn(sessionId, requests, {
      signal,
      ...(options.allowlist ? { allowlist: options.allowlist } : {}),
    })) {
      results.set(result.callId, result);
    }
    // One tool message per call, in call order; the scheduler answers every call, and a call it
    // did not answer (it never should) still gets one so the next request stays well formed.
    completePairs(transcript, append, (call) => results.get(call.id)?.output ?? cancelledText(call));
    emitUsage(usage, answer.usage === undefined);

    if (signal.aborted) return finish('cancelled', lastText);
    if (step >= maxSteps) return finish('step-limit', lastText);
  }
}
