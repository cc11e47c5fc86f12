/** todo_get / todo_update: the session's todo list, persisted in SQL (SPEC S2). */
import { z } from 'zod';
import { defineTool } from '../core/tool';
import { TODO_STATUSES, type TodoItem } from '../core/work-state';
import { INSPECTION, requireWorkState, STATE_CHANGE, workStateUnavailable } from './work-state';

const MARKS: Record<TodoItem['status'], string> = { pending: '[ ]', in_progress: '[~]', completed: '[x]', cancelled: '[-]' };

export function formatTodos(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return '(no todos)';
  return todos.map((todo) => `${MARKS[todo.status]} ${todo.id}: ${todo.content} (${todo.status})`).join('\n');
}

const status = z.enum(TODO_STATUSES);
const item = z.strictObject({ id: z.string().trim().min(1).max(100), content: z.string().trim().min(1).max(2000), status });

const parameters = z
  .strictObject({
    todos: z.array(item).max(200).optional().describe('The whole new list, replacing the old one.'),
    changes: z
      .array(
        z.strictObject({ id: z.string().trim().min(1), content: z.string().trim().min(1).max(2000).optional(), status: status.optional() }),
      )
      .min(1)
      .max(200)
      .optional()
      .describe('Changes to existing items by id (e.g. mark one completed).'),
  })
  .refine((args) => (args.todos === undefined) !== (args.changes === undefined), {
    message: 'give exactly one of `todos` (replace the list) or `changes` (edit items by id)',
  });

export const todoGetTool = defineTool({
  name: 'todo_get',
  description:
    'Read the todo list of this session: each item with its id, content and status (pending, in_progress, completed, cancelled).',
  parameters: z.strictObject({}),
  declarations: INSPECTION,
  unavailableReason: workStateUnavailable,
  async run(_args, context) {
    const todos = requireWorkState(context).getTodos(context.sessionId);
    return { output: formatTodos(todos), metadata: { count: todos.length } };
  },
});

export const todoUpdateTool = defineTool({
  name: 'todo_update',
  description:
    'Change the todo list of this session. Either replace it whole with {"todos": [{id, content, status}, ...]}, or change ' +
    'items by id with {"changes": [{"id": "2", "status": "completed"}]}. Statuses: pending, in_progress, completed, cancelled. ' +
    'Ids must be unique; an unknown id or status refuses the whole update and nothing changes. Keep one item in_progress at a time.',
  parameters,
  declarations: STATE_CHANGE,
  subjects: async () => [{ kind: 'name', value: 'todos' }],
  unavailableReason: workStateUnavailable,
  async run(args, context) {
    const store = requireWorkState(context);
    const todos = args.todos ? store.setTodos(context.sessionId, args.todos) : store.updateTodos(context.sessionId, args.changes ?? []);
    return { output: `Todo list saved:\n${formatTodos(todos)}`, metadata: { count: todos.length } };
  },
});
