/**
 * What the plan, todo and goal tools share: the store they need, and the rule that `get` is an
 * inspection (ReadOnly, Safe) while `update` changes persistent state (SideEffecting, E3). The
 * store's validation errors are ToolErrors, so the model reads them as they are.
 */
import { ToolError } from '../core/errors';
import type { Declarations } from '../core/declarations';
import type { CallEnvironment } from '../core/tool';
import type { WorkStateStore } from '../core/work-state';

export const INSPECTION: Partial<Declarations> = { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' };
/** Changes to persistent state get the strict prompt (E3) and are never replayed. */
export const STATE_CHANGE: Partial<Declarations> = { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' };

export const NO_WORK_STATE = 'Work state (plan, todos, goal) is not persisted in this session, so these tools are not available.';

export const workStateUnavailable = (env: CallEnvironment): string | undefined => (env.workState ? undefined : NO_WORK_STATE);

export function requireWorkState(env: CallEnvironment): WorkStateStore {
  if (!env.workState) throw new ToolError(NO_WORK_STATE);
  return env.workState;
}
