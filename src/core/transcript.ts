/**
 * The provider-neutral conversation, as persisted and as handed to a model provider. Each
 * provider translates it to its wire format (OpenAI Chat Completions, Anthropic Messages,
 * vscode.lm). Invariant: every assistant tool call is followed by exactly one `tool` message
 * with its id, in call order, before the next assistant message.
 */

/** An Anthropic extended-thinking block, exactly as the server sent it. */
export type ThinkingBlock =
  | { readonly type: 'thinking'; readonly thinking: string; readonly signature: string }
  | { readonly type: 'redacted_thinking'; readonly data: string };

/** The image formats both Chat Completions and Anthropic Messages accept. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/** An image the user pasted into a message (issue 14), as base64 without a `data:` prefix. */
export interface ImagePart {
  readonly mediaType: ImageMediaType;
  readonly data: string;
}

export interface TranscriptToolCall {
  readonly id: string;
  readonly name: string;
  /** Raw JSON text as the model produced it. */
  readonly arguments: string;
}

export type TranscriptMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string; readonly images?: readonly ImagePart[] }
  | {
      readonly role: 'assistant';
      readonly content: string;
      readonly toolCalls?: readonly TranscriptToolCall[];
      /** A reasoning model's thoughts (OpenAI-compatible `reasoning_content`/`reasoning`): kept and shown, never sent back. */
      readonly reasoning?: string;
      /** Anthropic thinking blocks, sent back unchanged with their signatures (the API refuses a tool-result turn without them). */
      readonly thinking?: readonly ThinkingBlock[];
    }
  | { readonly role: 'tool'; readonly callId: string; readonly toolName: string; readonly content: string };
