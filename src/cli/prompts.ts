/**
 * How `zuno exec` answers approvals and questions: `--approve allow|deny` for scripts, a prompt
 * on a terminal, and without either an honest denial that says how to allow. Approval prompts
 * show what would change, as a unified diff for writes and patches, before anything touches disk.
 */
import { createInterface } from 'node:readline/promises';
import { createTwoFilesPatch } from 'diff';
import type {
  ApprovalDecision,
  ApprovalGateway,
  ApprovalRequest,
  FileChange,
  QuestionAnswer,
  QuestionGateway,
  QuestionRequest,
} from '../core/host';

/** A way to ask one line of the user; the terminal in the CLI, a script in tests. */
export type AskLine = (prompt: string, signal: AbortSignal) => Promise<string>;

/**
 * Reads one line from stdin, prompting on stderr (stdout may carry `--json` events). A terminal
 * in raw mode delivers Ctrl+C to readline rather than as a signal, so it calls `onInterrupt`.
 */
export function terminalAskLine(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, onInterrupt: () => void): AskLine {
  return async (prompt, signal) => {
    // One interface per question, so stdin is released in between and never keeps the process alive.
    const readline = createInterface({ input, output, terminal: true });
    readline.on('SIGINT', onInterrupt);
    try {
      return await readline.question(prompt, { signal });
    } finally {
      readline.close();
    }
  };
}

/** `--approve allow|deny`: the same answer for every approval. */
export function fixedApprovals(answer: 'allow' | 'deny'): ApprovalGateway {
  return {
    async request(): Promise<ApprovalDecision> {
      return answer === 'allow' ? { approved: true } : { approved: false, reason: 'Denied by --approve deny.' };
    },
  };
}

/** No terminal and no `--approve`: every approval is denied, with a reason that says how to allow. */
export function noTerminalApprovals(): ApprovalGateway {
  return {
    async request(): Promise<ApprovalDecision> {
      return {
        approved: false,
        reason:
          'No terminal is attached to ask for approval. Run zuno exec with --approve allow (or --approve deny), or add a permission rule.',
      };
    },
  };
}

/** A unified diff of one proposed change, as the approval prompt shows it. */
export function changeDiff(change: FileChange): string {
  const before = change.before ?? '';
  const after = change.after ?? '';
  const target = change.kind === 'move' && change.movedTo ? change.movedTo : change.path;
  const oldName = change.kind === 'create' ? '/dev/null' : change.path;
  const newName = change.kind === 'delete' ? '/dev/null' : target;
  return createTwoFilesPatch(oldName, newName, before, after, undefined, undefined, { context: 3 });
}

function describeRequest(request: ApprovalRequest): string {
  const lines = [`\nApproval needed: ${request.tool}${request.origin ? ` (from agent ${request.origin.agent})` : ''}`];
  if (request.subject) lines.push(`  ${request.subject}`);
  lines.push(`  why: ${request.reason}`);
  if (request.changes && request.changes.length > 0) {
    for (const change of request.changes) lines.push(changeDiff(change));
  } else {
    lines.push(`  arguments: ${JSON.stringify(request.arguments)}`);
  }
  return lines.join('\n');
}

/** Asks on the terminal: y to allow; anything else denies, with an optional reason for the model. */
export function terminalApprovals(ask: AskLine, write: (text: string) => void): ApprovalGateway {
  return {
    async request(request, signal): Promise<ApprovalDecision> {
      write(`${describeRequest(request)}\n`);
      const answer = (await ask('Allow? [y/N] ', signal)).trim().toLowerCase();
      if (answer === 'y' || answer === 'yes') return { approved: true };
      const reason = (await ask('Reason for the model (optional, Enter to skip): ', signal)).trim();
      return reason ? { approved: false, reason } : { approved: false };
    },
  };
}

/** Asks the question tool's question on the terminal. An empty answer dismisses it. */
export function terminalQuestions(ask: AskLine, write: (text: string) => void): QuestionGateway {
  return {
    async ask(request: QuestionRequest, signal): Promise<QuestionAnswer> {
      const options = request.options ?? [];
      write(
        `\nQuestion: ${request.question}\n${options.map((option, index) => `  ${index + 1}. ${option}`).join('\n')}${options.length > 0 ? '\n' : ''}`,
      );
      const hint =
        options.length === 0
          ? 'Answer (Enter to dismiss): '
          : `Choose ${request.multiple ? 'numbers, comma-separated' : 'a number'}${request.allowFreeText ? ', or type an answer' : ''} (Enter to dismiss): `;
      for (;;) {
        const answer = (await ask(hint, signal)).trim();
        if (answer === '') return { answered: false };
        if (options.length === 0) return { answered: true, selected: [], text: answer };
        const numbers = answer.split(',').map((part) => Number(part.trim()));
        const valid = numbers.every((number) => Number.isInteger(number) && number >= 1 && number <= options.length);
        if (valid && (request.multiple || numbers.length === 1)) {
          return { answered: true, selected: numbers.map((number) => options[number - 1] ?? '') };
        }
        if (request.allowFreeText) return { answered: true, selected: [], text: answer };
        write(`Please answer with ${request.multiple ? 'numbers' : 'a number'} from 1 to ${options.length}.\n`);
      }
    },
  };
}
