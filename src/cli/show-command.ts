/** `zuno show SESSION`: a stored session's calls, work state and instructions, as text or --json. */
import { Store, type CallRow } from '../store/store';
import { INSTRUCTIONS_NOTICE_PREFIX } from '../agent/project-context';
import { SessionNotFoundError } from '../agent/loop';
import { formatTodos } from '../tools/todo';
import type { ShowCommand } from './args';
import { EXIT_OK, type CliProcess } from './process';
import { openCommandStore } from './workspace';

function callJson(store: Store, call: CallRow): Record<string, unknown> {
  let parsedArguments: unknown = call.argumentsJson;
  try {
    parsedArguments = JSON.parse(call.argumentsJson);
  } catch {
    // Malformed arguments are shown as the model sent them.
  }
  return {
    call_id: call.callId,
    tool: call.tool,
    arguments: parsedArguments,
    effect: call.effect,
    replay: call.replay,
    concurrency: call.concurrency,
    outcome: call.status,
    category: call.category ?? null,
    attempt: call.attempt,
    started_at: call.startedAt,
    finished_at: call.finishedAt ?? null,
    duration_ms: call.durationMs ?? null,
    truncated: call.truncated,
    parent_call_id: call.parentCallId ?? null,
    output: call.output ?? null,
    attempts: store.callAttempts(call.sessionId, call.callId).map((attempt) => ({
      attempt: attempt.attempt,
      outcome: attempt.status,
      started_at: attempt.startedAt,
      finished_at: attempt.finishedAt ?? null,
    })),
  };
}

export async function show(command: ShowCommand, io: CliProcess): Promise<number> {
  const { stateDir, store } = await openCommandStore(command, io, true);
  try {
    const session = store.getSession(command.sessionId);
    if (!session) {
      throw new SessionNotFoundError(
        `There is no session "${command.sessionId}" in ${stateDir}. Pass the --state-dir (or --workspace) that holds it.`,
      );
    }
    const calls = store.calls(session.id).map((call) => callJson(store, call));
    // What each run loaded into its system prompt, from the session-start notices (issue 10 item 3).
    const instructions = store
      .events(session.id)
      .flatMap((event) =>
        event.type === 'notice' && event.text.startsWith(INSTRUCTIONS_NOTICE_PREFIX)
          ? [event.text.slice(INSTRUCTIONS_NOTICE_PREFIX.length)]
          : [],
      );
    if (command.json) {
      const document = {
        session: {
          id: session.id,
          workspace: session.workspace,
          title: session.title ?? null,
          status: session.status,
          created_at: session.createdAt,
          updated_at: session.updatedAt,
        },
        calls,
        instructions,
        work_state: { plan: store.getPlan(session.id) ?? null, todos: store.getTodos(session.id), goal: store.getGoal(session.id) ?? null },
        messages: store.messages(session.id),
        events: store.events(session.id),
      };
      io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    } else {
      io.stdout.write(`session ${session.id} (${session.status}) in ${session.workspace}\n`);
      for (const loaded of instructions) io.stdout.write(`instructions: ${loaded}\n`);
      for (const call of store.calls(session.id)) {
        const category = call.category ? ` (${call.category})` : '';
        io.stdout.write(
          `  ${call.callId}  ${call.tool}  ${call.status}${category}  attempt ${call.attempt}  ${new Date(call.startedAt).toISOString()}\n`,
        );
      }
      const goal = store.getGoal(session.id);
      if (goal) io.stdout.write(`goal (${goal.status}): ${goal.text}\n`);
      const plan = store.getPlan(session.id);
      if (plan) io.stdout.write(`plan:\n${plan.replace(/^/gm, '  ')}\n`);
      const todos = store.getTodos(session.id);
      if (todos.length > 0) io.stdout.write(`todos:\n${formatTodos(todos).replace(/^/gm, '  ')}\n`);
    }
    return EXIT_OK;
  } finally {
    await store.close();
  }
}
