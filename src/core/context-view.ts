/**
 * What of a session's transcript is sent to the model (issue 10 item 2). The store keeps every
 * message; the model is sent a view of it that fits the context window:
 *
 * - pruned: old tool outputs become a one-line stub that keeps the call, its outcome and a
 *   digest, so the model knows what it did and can run the call again;
 * - compacted: the messages before a cut are replaced by one user message, the handoff.
 *
 * Both keep the transcript invariant (core/transcript.ts): a cut never falls between an
 * assistant's tool calls and their results, and a pruned result is still that call's one result.
 */
import { estimateTokens, messageCharacters } from './token-budget';
import type { TranscriptMessage, TranscriptToolCall } from './transcript';

/** The messages before `cut` are replaced by `handoff` (a user message) in what is sent. */
export interface Compaction {
  readonly cut: number;
  readonly handoff: string;
}

/** Tool outputs shorter than this are kept whole: a stub would save nothing. */
const PRUNABLE_CHARACTERS = 600;

/** Argument names that say what a call was about, in order of preference. */
const SUBJECT_KEYS = ['path', 'file', 'command', 'pattern', 'url', 'query', 'text', 'name'] as const;

/** The call's subject for a digest: a path, a command, a pattern; else its arguments, shortened. */
export function callSubject(argumentsJson: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsJson);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed === 'object' && parsed !== null) {
    for (const key of SUBJECT_KEYS) {
      const value: unknown = (parsed as Record<string, unknown>)[key];
      if (typeof value === 'string' && value.length > 0) return shorten(value.replace(/\s+/g, ' '), 120);
    }
  }
  return shorten(argumentsJson, 120);
}

function shorten(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/** The stub that replaces a pruned tool output: the call, its outcome, a digest, and what to do. */
export function prunedStub(call: Pick<TranscriptToolCall, 'name' | 'arguments'>, content: string, outcome?: string): string {
  const lines = content.length === 0 ? 0 : content.split('\n').length;
  const outcomeText = outcome !== undefined ? `, ${outcome}` : '';
  return (
    `[pruned] ${call.name} ${callSubject(call.arguments)}: ${lines} lines, ${content.length} characters${outcomeText}. ` +
    'The output was pruned to save context; run the call again if you need it.'
  );
}

/** Every tool call of the transcript by id, for digests. */
export function callsById(messages: readonly TranscriptMessage[]): Map<string, TranscriptToolCall> {
  const calls = new Map<string, TranscriptToolCall>();
  for (const message of messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) calls.set(call.id, call);
  }
  return calls;
}

/**
 * The call ids whose outputs to prune so that the newest turn's results and the newest
 * `keepTokens` of older tool output stay whole: walks back from the newest result and marks
 * every long result past the budget.
 * Already pruned ids stay pruned, so the sent prefix changes as little as possible (caching).
 */
export function choosePrunedOutputs(
  messages: readonly TranscriptMessage[],
  keepTokens: number,
  alreadyPruned: ReadonlySet<string>,
): Set<string> {
  const pruned = new Set(alreadyPruned);
  let kept = 0;
  // The newest turn's results are what the model asked for just now: never pruned.
  let newestTurn = messages.length;
  while (newestTurn > 0 && messages[newestTurn - 1]?.role === 'tool') newestTurn--;
  for (let index = newestTurn - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role !== 'tool' || pruned.has(message.callId)) continue;
    const tokens = estimateTokens(message.content.length);
    if (kept + tokens <= keepTokens) kept += tokens;
    else if (message.content.length >= PRUNABLE_CHARACTERS) pruned.add(message.callId);
  }
  return pruned;
}

/**
 * The index to compact up to: the messages from it on (about `keepTokens` of the newest) are
 * sent whole. It is never a tool message, so no call loses its result, and it is after
 * `from` (the current cut) when the transcript allows any progress at all.
 */
export function chooseCut(messages: readonly TranscriptMessage[], from: number, keepTokens: number): number {
  let lastBoundary = -1;
  let kept = 0;
  let cut = -1;
  for (let index = messages.length - 1; index > from; index--) {
    const message = messages[index];
    if (!message) continue;
    kept += estimateTokens(messageCharacters(message));
    if (message.role === 'tool') continue;
    if (lastBoundary === -1) lastBoundary = index;
    if (kept > keepTokens) break;
    cut = index;
  }
  // The newest turn alone is over the budget: keep just it (its results are what the model needs next).
  if (cut === -1) return lastBoundary === -1 ? from : lastBoundary;
  return cut;
}

/**
 * The messages to send: the handoff and the messages from the cut on, with pruned outputs as
 * stubs. `outcomeOf` names a call's recorded outcome for its stub.
 */
export function contextView(
  transcript: readonly TranscriptMessage[],
  compaction: Compaction | undefined,
  pruned: ReadonlySet<string>,
  outcomeOf: (callId: string) => string | undefined = () => undefined,
): TranscriptMessage[] {
  const start = compaction ? Math.min(compaction.cut, transcript.length) : 0;
  const view: TranscriptMessage[] = compaction ? [{ role: 'user', content: compaction.handoff }] : [];
  const calls = pruned.size > 0 ? callsById(transcript) : undefined;
  for (let index = start; index < transcript.length; index++) {
    const message = transcript[index];
    if (!message) continue;
    const call = message.role === 'tool' && pruned.has(message.callId) ? calls?.get(message.callId) : undefined;
    if (message.role === 'tool' && call) view.push({ ...message, content: prunedStub(call, message.content, outcomeOf(message.callId)) });
    else view.push(message);
  }
  return view;
}
