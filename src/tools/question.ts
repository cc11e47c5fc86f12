/**
 * question: asks the user one structured question (SPEC S1; UserMediated, E1: by design not an
 * approval surface). It is offered only where a person can answer: the editor, or a CLI on a
 * TTY. A dismissed question is an ordinary result the model reads, not a failure.
 */
import { z } from 'zod';
import { ToolError } from '../core/errors';
import { defineTool } from '../core/tool';

const parameters = z
  .strictObject({
    question: z.string().trim().min(1).max(4000).describe('The question, self-contained and specific.'),
    options: z.array(z.string().trim().min(1).max(500)).min(2).max(20).optional().describe('Choices to pick from.'),
    multiple: z.boolean().optional().describe('Allow picking several options.'),
    allow_free_text: z.boolean().optional().describe('Allow a typed answer (always allowed when there are no options).'),
  })
  .refine((args) => !args.multiple || args.options, { message: '`multiple` needs `options`', path: ['multiple'] });

export const questionTool = defineTool({
  name: 'question',
  description:
    'Ask the user one structured question when you cannot proceed without their decision (a choice between approaches, ' +
    'a missing fact). Offer `options` when the answers are known. Do not use it for permission to run a tool: ' +
    'approvals are handled separately. The user may dismiss the question; then decide yourself or stop.',
  parameters,
  declarations: { effect: 'UserMediated', replay: 'Never', concurrency: 'Exclusive' },
  unavailableReason: (env) =>
    env.host.questions
      ? undefined
      : 'No person can answer questions here (a CLI without a terminal). Decide yourself, or stop and explain what you need.',
  async run(args, context) {
    const gateway = context.host.questions;
    if (!gateway) throw new ToolError('No person can answer questions here.');
    const answer = await gateway.ask(
      {
        callId: context.callId,
        sessionId: context.sessionId,
        question: args.question,
        ...(args.options ? { options: args.options } : {}),
        ...(args.multiple !== undefined ? { multiple: args.multiple } : {}),
        allowFreeText: args.allow_free_text ?? !args.options,
      },
      context.signal,
    );
    if (!answer.answered) {
      return {
        output: 'The user dismissed the question without answering. Decide yourself, or stop and explain what you need.',
        metadata: { answered: false },
      };
    }
    const unknown = args.options ? answer.selected.filter((choice) => !args.options?.includes(choice)) : [];
    if (unknown.length > 0) throw new ToolError(`The answer named options that were not offered: ${unknown.join(', ')}.`);
    const parts = [
      ...(answer.selected.length > 0 ? [`Selected: ${answer.selected.join(', ')}`] : []),
      ...(answer.text ? [`Answer: ${answer.text}`] : []),
    ];
    return {
      output: parts.length > 0 ? parts.join('\n') : 'The user answered with nothing.',
      metadata: { answered: true, selected: answer.selected },
    };
  },
});
