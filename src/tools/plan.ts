/** plan_get / plan_update: the session's plan, persisted in SQL (SPEC S2). */
import { z } from 'zod';
import { defineTool } from '../core/tool';
import { INSPECTION, requireWorkState, STATE_CHANGE, workStateUnavailable } from './work-state';

export const planGetTool = defineTool({
  name: 'plan_get',
  description:
    'Read the current plan of this session (free text, usually a numbered list of steps). Returns "(no plan yet)" when none was set.',
  parameters: z.strictObject({}),
  declarations: INSPECTION,
  unavailableReason: workStateUnavailable,
  async run(_args, context) {
    const plan = requireWorkState(context).getPlan(context.sessionId);
    return { output: plan ?? '(no plan yet)' };
  },
});

export const planUpdateTool = defineTool({
  name: 'plan_update',
  description:
    'Replace the plan of this session with new text. Keep it short: the approach and the steps. It persists across ' +
    'restarts and is shown to the user. Use todo_update to track the progress of individual steps.',
  parameters: z.strictObject({ plan: z.string().trim().min(1).max(20_000).describe('The whole new plan.') }),
  declarations: STATE_CHANGE,
  subjects: async () => [{ kind: 'name', value: 'plan' }],
  unavailableReason: workStateUnavailable,
  async run(args, context) {
    requireWorkState(context).setPlan(context.sessionId, args.plan);
    return { output: `Plan saved (${args.plan.split('\n').length} lines).` };
  },
});
