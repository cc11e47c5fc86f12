/** goal_get / goal_update: the session's goal and its status, persisted in SQL (SPEC S2). */
import { z } from 'zod';
import { defineTool } from '../core/tool';
import { GOAL_STATUSES } from '../core/work-state';
import { INSPECTION, requireWorkState, STATE_CHANGE, workStateUnavailable } from './work-state';

export const goalGetTool = defineTool({
  name: 'goal_get',
  description: 'Read the goal of this session and its status (active, achieved, abandoned). Returns "(no goal set)" when none was set.',
  parameters: z.strictObject({}),
  declarations: INSPECTION,
  unavailableReason: workStateUnavailable,
  async run(_args, context) {
    const goal = requireWorkState(context).getGoal(context.sessionId);
    return { output: goal ? `Goal (${goal.status}): ${goal.text}` : '(no goal set)' };
  },
});

export const goalUpdateTool = defineTool({
  name: 'goal_update',
  description:
    'Set the goal of this session, or change its status: {"text": "...", "status": "active"|"achieved"|"abandoned"}. ' +
    'Mark it achieved only when the work is done and verified.',
  parameters: z.strictObject({
    text: z.string().trim().min(1).max(4000).describe('What the session is trying to achieve.'),
    status: z.enum(GOAL_STATUSES).optional().describe('Defaults to active.'),
  }),
  declarations: STATE_CHANGE,
  subjects: async () => [{ kind: 'name', value: 'goal' }],
  unavailableReason: workStateUnavailable,
  async run(args, context) {
    const goal = requireWorkState(context).setGoal(context.sessionId, { text: args.text, ...(args.status ? { status: args.status } : {}) });
    return { output: `Goal saved (${goal.status}): ${goal.text}` };
  },
});
