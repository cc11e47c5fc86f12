/**
 * Persistent work state as tools see it (SPEC S2): a plan, a todo list and a goal per session,
 * and proposed memories. The sql.js store implements these; the core only knows the shape, and
 * validation errors thrown by an implementation are addressed to the model.
 */

export const TODO_STATUSES = ['pending', 'in_progress', 'completed', 'cancelled'] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

export const GOAL_STATUSES = ['active', 'achieved', 'abandoned'] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];

export interface TodoItem {
  readonly id: string;
  readonly content: string;
  readonly status: TodoStatus;
}

export interface TodoChange {
  readonly id: string;
  readonly content?: string | undefined;
  readonly status?: TodoStatus | undefined;
}

export interface Goal {
  readonly text: string;
  readonly status: GoalStatus;
  readonly updatedAt: number;
}

export interface WorkStateStore {
  getPlan(sessionId: string): string | undefined;
  setPlan(sessionId: string, plan: string): void;
  getTodos(sessionId: string): TodoItem[];
  /** Replaces the list; refused as a whole when an id repeats or a status is unknown. */
  setTodos(sessionId: string, todos: readonly TodoItem[]): TodoItem[];
  /** Changes existing items by id; refused as a whole when an id is unknown. */
  updateTodos(sessionId: string, changes: readonly TodoChange[]): TodoItem[];
  getGoal(sessionId: string): Goal | undefined;
  setGoal(sessionId: string, goal: { readonly text: string; readonly status?: GoalStatus }): Goal;
}

export interface MemoryBook {
  /** Stores a proposal; the user accepts or deletes it later. */
  proposeMemory(text: string, sourceSessionId?: string): { readonly id: string; readonly text: string; readonly status: string };
}
