/**
 * The plan and todo list shown at the top of the chat (issue 14 item 14), rebuilt from the chat's
 * own events: a `plan_update` or `todo_update` call's arguments take effect when it finishes `ok`,
 * exactly as the tool applied them, so the panel shows what the session holds without asking the
 * host. A delegated child's calls (they carry a parent call) belong to the child's session and are
 * left out. DOM-free for the unit tests.
 */
import type { ZunoEvent } from '../src/core/events';
import { TODO_STATUSES, type TodoItem, type TodoStatus } from '../src/core/work-state';

type Update =
  | { readonly kind: 'plan'; readonly plan: string }
  | { readonly kind: 'todos'; readonly replace?: TodoItem[]; readonly changes?: TodoChange[] };

interface TodoChange {
  readonly id: string;
  readonly content?: string;
  readonly status?: TodoStatus;
}

export class WorkState {
  plan: string | undefined;
  todos: readonly TodoItem[] = [];
  /** Goes up on every change; the panel redraws when it differs from what it drew. */
  version = 0;
  /** Updates asked for and not finished yet, by call id. */
  private readonly pending = new Map<string, Update>();

  get empty(): boolean {
    return this.plan === undefined && this.todos.length === 0;
  }

  /** The item being worked on: the first in progress. */
  get current(): TodoItem | undefined {
    return this.todos.find((todo) => todo.status === 'in_progress');
  }

  get done(): number {
    return this.todos.filter((todo) => todo.status === 'completed').length;
  }

  reset(): void {
    this.plan = undefined;
    this.todos = [];
    this.pending.clear();
    this.version += 1;
  }

  apply(event: ZunoEvent): void {
    switch (event.type) {
      case 'tool-call-requested': {
        const update = parseUpdate(event.tool, event.arguments);
        if (update !== undefined) this.pending.set(event.call_id, update);
        return;
      }
      case 'tool-call-started':
        if (event.parent_call_id !== undefined) this.pending.delete(event.call_id);
        return;
      case 'tool-call-finished': {
        const update = this.pending.get(event.call_id);
        this.pending.delete(event.call_id);
        if (update === undefined || event.outcome !== 'ok') return;
        if (update.kind === 'plan') this.plan = update.plan;
        else if (update.replace !== undefined) this.todos = update.replace;
        else this.todos = applyChanges(this.todos, update.changes ?? []);
        this.version += 1;
        return;
      }
      default:
        return;
    }
  }
}

function applyChanges(todos: readonly TodoItem[], changes: readonly TodoChange[]): TodoItem[] {
  return todos.map((todo) => {
    let next = todo;
    for (const change of changes)
      if (change.id === todo.id) next = { id: todo.id, content: change.content ?? next.content, status: change.status ?? next.status };
    return next;
  });
}

/** The update a call asks for, read defensively: these are the model's arguments, validated by the tool only when it runs. */
function parseUpdate(tool: string, raw: string): Update | undefined {
  if (tool !== 'plan_update' && tool !== 'todo_update') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const args = parsed as Record<string, unknown>; // an object, checked above; each field is checked below
  if (tool === 'plan_update') return typeof args.plan === 'string' ? { kind: 'plan', plan: args.plan.trim() } : undefined;
  if (Array.isArray(args.todos)) return { kind: 'todos', replace: args.todos.flatMap((item) => todoOf(item) ?? []) };
  if (Array.isArray(args.changes)) return { kind: 'todos', changes: args.changes.flatMap((item) => changeOf(item) ?? []) };
  return undefined;
}

function todoOf(value: unknown): TodoItem | undefined {
  const change = changeOf(value);
  if (change?.content === undefined || change.status === undefined) return undefined;
  return { id: change.id, content: change.content, status: change.status };
}

function changeOf(value: unknown): TodoChange | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { id, content, status } = value as Record<string, unknown>; // checked field by field
  if (typeof id !== 'string') return undefined;
  const known = TODO_STATUSES.find((candidate) => candidate === status);
  return {
    id: id.trim(),
    ...(typeof content === 'string' ? { content: content.trim() } : {}),
    ...(known !== undefined ? { status: known } : {}),
  };
}
