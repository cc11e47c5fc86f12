/**
 * The `vscode-lm` model provider: a model from VS Code's Language Model API (SPEC §9), behind the
 * same ModelProvider interface as the HTTP providers, so the agent loop does not know which one
 * it talks to. Tools go out as LanguageModelChatTool, calls come back as LanguageModelToolCallPart,
 * results go in as LanguageModelToolResultPart.
 */
import * as vscode from 'vscode';
import {
  jsonSchemaForModel,
  ProviderError,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type TokenUsage,
} from '../../agent/provider';
import type { TranscriptToolCall } from '../../core/transcript';
import { toChatTurns, type ChatPart, type ChatTurn } from './lm-messages';

function toMessage(turn: ChatTurn): vscode.LanguageModelChatMessage {
  const text = (part: Extract<ChatPart, { kind: 'text' }>): vscode.LanguageModelTextPart => new vscode.LanguageModelTextPart(part.text);
  if (turn.role === 'assistant') {
    return vscode.LanguageModelChatMessage.Assistant(
      turn.parts.flatMap<vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart>((part) =>
        part.kind === 'text'
          ? [text(part)]
          : part.kind === 'tool-call'
            ? [new vscode.LanguageModelToolCallPart(part.callId, part.name, part.input)]
            : [],
      ),
    );
  }
  return vscode.LanguageModelChatMessage.User(
    turn.parts.flatMap<vscode.LanguageModelTextPart | vscode.LanguageModelToolResultPart>((part) =>
      part.kind === 'text'
        ? [text(part)]
        : part.kind === 'tool-result'
          ? [new vscode.LanguageModelToolResultPart(part.callId, [new vscode.LanguageModelTextPart(part.text)])]
          : [],
    ),
  );
}

/** The models VS Code offers now (none without an extension that provides one). */
export async function availableChatModels(): Promise<vscode.LanguageModelChat[]> {
  return vscode.lm.selectChatModels();
}

/** The configured model by id, or the first one offered when no id is set. */
export async function resolveChatModel(modelId: string | undefined): Promise<vscode.LanguageModelChat> {
  const models = modelId ? await vscode.lm.selectChatModels({ id: modelId }) : await availableChatModels();
  const model = models[0];
  if (model) return model;
  if (modelId) {
    const offered = (await availableChatModels()).map((candidate) => candidate.id);
    throw new ProviderError(
      `VS Code offers no language model with the id "${modelId}". ` +
        (offered.length > 0 ? `Available: ${offered.join(', ')}. ` : '') +
        'Run “Zuno: Select Model” to choose one.',
    );
  }
  throw new ProviderError(
    'VS Code offers no language model. Install and sign in to an extension that provides one, or run “Zuno: Select Model” to use another provider.',
  );
}

function describeLmError(error: unknown, model: vscode.LanguageModelChat): ProviderError {
  if (error instanceof vscode.LanguageModelError) {
    const what =
      error.code === vscode.LanguageModelError.NoPermissions().code
        ? 'Zuno is not allowed to use it yet: accept the permission prompt, or allow Zuno in the language model access settings.'
        : error.code === vscode.LanguageModelError.Blocked().code
          ? 'The request was blocked (a quota or a content filter). Try again later or choose another model.'
          : error.code === vscode.LanguageModelError.NotFound().code
            ? 'The model is no longer available. Run “Zuno: Select Model”.'
            : '';
    return new ProviderError(
      `The VS Code language model ${model.name} (${model.id}) refused the request: ${error.message}. ${what}`.trim(),
    );
  }
  return new ProviderError(
    `The VS Code language model ${model.name} (${model.id}) failed: ${error instanceof Error ? error.message : String(error)}`,
  );
}

/**
 * The tokens of a request and its answer as the model's own tokenizer counts them: vscode.lm
 * reports no usage, so Zuno asks `countTokens` (once over the whole prompt text, not per
 * message, to keep a long session's step cheap). Undefined when counting fails.
 */
async function countUsage(
  chat: vscode.LanguageModelChat,
  turns: readonly ChatTurn[],
  answer: string,
  token: vscode.CancellationToken,
): Promise<TokenUsage | undefined> {
  const prompt = turns
    .flatMap((turn) =>
      turn.parts.map((part) =>
        part.kind === 'text' ? part.text : part.kind === 'tool-result' ? part.text : `${part.name} ${JSON.stringify(part.input)}`,
      ),
    )
    .join('\n');
  try {
    const [inputTokens, outputTokens] = await Promise.all([chat.countTokens(prompt, token), chat.countTokens(answer, token)]);
    return { inputTokens, outputTokens };
  } catch {
    return undefined;
  }
}

export class LanguageModelProvider implements ModelProvider {
  readonly label: string;
  readonly model: string;

  constructor(private readonly chat: vscode.LanguageModelChat) {
    this.label = `VS Code language model ${chat.name} (${chat.vendor}/${chat.id})`;
    this.model = chat.id;
  }

  /** vscode.lm states the window itself. */
  serverContextWindow(): Promise<number | undefined> {
    return Promise.resolve(this.chat.maxInputTokens > 0 ? this.chat.maxInputTokens : undefined);
  }

  async stream(request: ModelRequest, onDelta: (text: string) => void): Promise<ModelResponse> {
    const cancellation = new vscode.CancellationTokenSource();
    const onAbort = (): void => cancellation.cancel();
    request.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const turns = toChatTurns(request.system, request.messages);
      const messages = turns.map(toMessage);
      const tools: vscode.LanguageModelChatTool[] = request.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: jsonSchemaForModel(tool.inputSchema),
      }));
      const response = await this.chat.sendRequest(
        messages,
        { justification: 'Zuno uses the model to work in your workspace through tools.', ...(tools.length > 0 ? { tools } : {}) },
        cancellation.token,
      );
      let text = '';
      const toolCalls: TranscriptToolCall[] = [];
      for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart) {
          text += part.value;
          onDelta(part.value);
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          toolCalls.push({ id: part.callId, name: part.name, arguments: JSON.stringify(part.input) });
        }
      }
      const answer = [text, ...toolCalls.map((call) => `${call.name} ${call.arguments}`)].join('\n');
      const usage = await countUsage(this.chat, turns, answer, cancellation.token);
      return { text, toolCalls, stopReason: toolCalls.length > 0 ? 'tool_calls' : 'end', ...(usage ? { usage } : {}) };
    } catch (error) {
      if (request.signal.aborted || error instanceof vscode.CancellationError) throw request.signal.reason ?? error;
      throw describeLmError(error, this.chat);
    } finally {
      request.signal.removeEventListener('abort', onAbort);
      cancellation.dispose();
    }
  }
}
