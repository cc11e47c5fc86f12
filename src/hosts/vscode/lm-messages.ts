/**
 * The provider-neutral transcript in the shape of VS Code's Language Model API, with no `vscode`
 * import (the adapter in `lm-provider.ts` turns each part into its class). vscode.lm has only
 * user and assistant roles: the system prompt becomes the first user message, and the results
 * of one assistant turn's tool calls travel together in one user message, in call order, as
 * tool-calling models expect.
 */
import type { TranscriptMessage } from '../../core/transcript';

export type ChatPart =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'tool-call'; readonly callId: string; readonly name: string; readonly input: object }
  | { readonly kind: 'tool-result'; readonly callId: string; readonly text: string };

export interface ChatTurn {
  readonly role: 'user' | 'assistant';
  readonly parts: ChatPart[];
}

/**
 * Tool arguments as an object. A model's malformed JSON is passed on wrapped, never dropped, so
 * the model sees what it sent; the scheduler has already reported it as invalid arguments.
 */
export function toolInput(argumentsJson: string): object {
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed;
  } catch {
    // Fall through: keep the raw text.
  }
  return { invalid_json: argumentsJson };
}

export function toChatTurns(system: string, messages: readonly TranscriptMessage[]): ChatTurn[] {
  const turns: ChatTurn[] = [];
  const push = (role: ChatTurn['role'], part: ChatPart, mergeWithPrevious: boolean): void => {
    const last = turns[turns.length - 1];
    if (mergeWithPrevious && last?.role === role) last.parts.push(part);
    else turns.push({ role, parts: [part] });
  };
  if (system) push('user', { kind: 'text', text: system }, false);
  let previousWasTool = false;
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        push('user', { kind: 'text', text: message.content }, false);
        break;
      case 'user':
        push('user', { kind: 'text', text: message.content }, false);
        break;
      case 'assistant': {
        const parts: ChatPart[] = message.content ? [{ kind: 'text', text: message.content }] : [];
        for (const call of message.toolCalls ?? [])
          parts.push({ kind: 'tool-call', callId: call.id, name: call.name, input: toolInput(call.arguments) });
        turns.push({ role: 'assistant', parts: parts.length > 0 ? parts : [{ kind: 'text', text: '' }] });
        break;
      }
      case 'tool':
        push('user', { kind: 'tool-result', callId: message.callId, text: message.content }, previousWasTool);
        break;
    }
    previousWasTool = message.role === 'tool';
  }
  return turns;
}
