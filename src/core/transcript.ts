/**
 * The provider-neutral conversation, as persisted and as handed to a model provider. Each
 * provider translates it to its wire format (OpenAI Chat Completions, Anthropic Messages,
 * vscode.lm). Invariant: every assistant tool call is followed by exactly one `tool` message
 * with its id, in call order, before the next assistant message.
 */

export interface TranscriptToolCall {
  readonly id: string;
  readonly name: string;
  /** Raw JSON text as the model produced it. */
  readonly arguments: string;
}

export type TranscriptMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string; readonly toolCalls?: readonly TranscriptToolCall[] }
  | { readonly role: 'tool'; readonly callId: string; readonly toolName: string; readonly content: string };
