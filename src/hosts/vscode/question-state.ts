/**
 * The `question` tool's gateway in the editor: each question is a form in the chat view until
 * it is answered, dismissed, or the turn is cancelled. No `vscode` import. A dismissed or
 * cancelled question resolves as unanswered, which the tool reports to the model as an outcome
 * it can read, not as a failure.
 */
import type { QuestionAnswer, QuestionGateway, QuestionRequest } from '../../core/host';
import type { PendingQuestion, ToWebview } from '../../webview/protocol';

export interface AnswerInput {
  readonly answered: boolean;
  readonly selected: readonly string[];
  readonly text?: string;
}

export type AnswerResult = { readonly accepted: true } | { readonly accepted: false; readonly error: string };

interface Entry {
  readonly request: QuestionRequest;
  readonly view: PendingQuestion;
  readonly settle: (answer: QuestionAnswer) => void;
}

export class QuestionBroker implements QuestionGateway {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly post: (message: ToWebview) => void) {}

  ask(request: QuestionRequest, signal: AbortSignal): Promise<QuestionAnswer> {
    if (signal.aborted) return Promise.resolve({ answered: false });
    return new Promise<QuestionAnswer>((resolve) => {
      const onAbort = (): void => this.close(request.callId, { answered: false });
      const view: PendingQuestion = {
        callId: request.callId,
        question: request.question,
        ...(request.options ? { options: request.options } : {}),
        ...(request.multiple !== undefined ? { multiple: request.multiple } : {}),
        ...(request.allowFreeText !== undefined ? { allowFreeText: request.allowFreeText } : {}),
      };
      this.entries.set(request.callId, {
        request,
        view,
        settle: (answer) => {
          signal.removeEventListener('abort', onAbort);
          resolve(answer);
        },
      });
      signal.addEventListener('abort', onAbort, { once: true });
      this.post({ type: 'question', question: view });
    });
  }

  pending(): PendingQuestion[] {
    return [...this.entries.values()].map((entry) => entry.view);
  }

  /**
   * Checks the answer against the question: the webview is untrusted, so a choice that was not
   * offered, several choices to a single-choice question, or free text where none was invited
   * are refused and the form stays open.
   */
  answer(callId: string, input: AnswerInput): AnswerResult {
    const entry = this.entries.get(callId);
    if (!entry) return this.refuse(callId, 'This question is no longer open.');
    if (!input.answered) {
      this.close(callId, { answered: false });
      return { accepted: true };
    }
    const { request } = entry;
    const options = request.options ?? [];
    const unknown = input.selected.filter((choice) => !options.includes(choice));
    if (unknown.length > 0) return this.refuse(callId, `Not one of the offered choices: ${unknown.join(', ')}.`);
    if (!request.multiple && input.selected.length > 1) return this.refuse(callId, 'Choose only one answer.');
    const text = input.text?.trim();
    const freeText = request.allowFreeText ?? options.length === 0;
    if (text && !freeText) return this.refuse(callId, 'This question takes one of the offered choices, not free text.');
    if (input.selected.length === 0 && !text) return this.refuse(callId, 'Choose an answer or type one, or dismiss the question.');
    this.close(callId, { answered: true, selected: [...input.selected], ...(text ? { text } : {}) });
    return { accepted: true };
  }

  cancelAll(): void {
    for (const callId of [...this.entries.keys()]) this.close(callId, { answered: false });
  }

  private close(callId: string, answer: QuestionAnswer): void {
    const entry = this.entries.get(callId);
    if (!entry) return;
    this.entries.delete(callId);
    entry.settle(answer);
    this.post({ type: 'question-closed', callId });
  }

  private refuse(callId: string, error: string): AnswerResult {
    this.post({ type: 'error', text: error });
    if (!this.entries.has(callId)) this.post({ type: 'question-closed', callId });
    return { accepted: false, error };
  }
}
