/**
 * Estimates how many tokens the next model request will take, before it is sent (issue 10
 * item 1), so the loop can warn, and later prune or compact, in time. The last request's
 * reported usage is the anchor: its input and output tokens are what the transcript held up
 * to and including the answer. Only what was appended since is estimated, at four characters
 * a token, the usual rule of thumb for English and code.
 */
import type { TranscriptMessage } from './transcript';

export const CHARS_PER_TOKEN = 4;

export function estimateTokens(characters: number): number {
  return Math.ceil(characters / CHARS_PER_TOKEN);
}

/** The characters a message puts on the wire, near enough: its text, and its calls' names and arguments. */
export function messageCharacters(message: TranscriptMessage): number {
  if (message.role !== 'assistant') return message.content.length;
  return message.content.length + (message.toolCalls ?? []).reduce((sum, call) => sum + call.name.length + call.arguments.length, 0);
}

export interface RequestShape {
  readonly system: string;
  /** The tool definitions as sent; their JSON counts against the window too. */
  readonly tools: readonly unknown[];
  readonly messages: readonly TranscriptMessage[];
}

/** A whole request at chars/4, with no reported usage to anchor it. */
export function estimateRequest(request: RequestShape): number {
  let characters = request.system.length + JSON.stringify(request.tools).length;
  for (const message of request.messages) characters += messageCharacters(message);
  return estimateTokens(characters);
}

export class RequestEstimator {
  private anchor: { readonly tokens: number; readonly messages: number } | undefined;
  /** Server-counted tokens per chars/4 token, learned from the last reported usage (wire overhead, escaping, the tokenizer). */
  private ratio = 1;

  /** A whole request at chars/4, scaled by what the server's counts showed so far. */
  measure(request: RequestShape): number {
    return Math.ceil(estimateRequest(request) * this.ratio);
  }

  /** The next request's input tokens: the anchor plus the messages after it, or all of it at chars/4. */
  estimate(request: RequestShape): number {
    const anchor = this.anchor;
    if (anchor && anchor.messages <= request.messages.length) {
      let characters = 0;
      for (let index = anchor.messages; index < request.messages.length; index++) {
        const message = request.messages[index];
        if (message) characters += messageCharacters(message);
      }
      return anchor.tokens + estimateTokens(characters);
    }
    return this.measure(request);
  }

  /** Forgets the anchor: the messages it counted were pruned or compacted, so its count no longer holds. */
  reset(): void {
    this.anchor = undefined;
  }

  /**
   * A request of `sentMessages` messages used `inputTokens` and its answer, appended as the
   * next message, `outputTokens`: together they are the exact size of the transcript so far.
   */
  record(sentMessages: number, inputTokens: number, outputTokens: number, measuredInput?: number): void {
    this.anchor = { tokens: inputTokens + outputTokens, messages: sentMessages + 1 };
    // `measuredInput`: the same request at chars/4, given when the server counted it, to calibrate whole-request estimates.
    if (measuredInput !== undefined && measuredInput > 0) this.ratio = Math.min(4, Math.max(0.5, inputTokens / measuredInput));
  }
}
