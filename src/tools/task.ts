/**
 * task: delegate a bounded goal to a child agent (SPEC S1, E1 Delegating, A1).
 *
 * - Effect Delegating: the call itself is asked for in strict mode, and every call the child
 *   makes goes through the policy again, with the parent call as its origin.
 * - Replay Never: a child may have changed things before a failure.
 * - Concurrency ParallelSafe in the foreground: several task calls of one turn run side by side,
 *   up to `concurrency.delegations` children at once; the children's Exclusive calls are kept
 *   apart by the runtime-wide AgentExclusivity mutex. IsolatedBackground with `background: true`:
 *   the call returns a job id at once and the child runs off the foreground path.
 *
 * The result is the child's final answer plus what it did, taken from its call rows in the store
 * (not from its prose), so the parent knows what changed even when the child says otherwise.
 */
import { z } from 'zod';
import type { Declarations } from '../core/declarations';
import type { ChildCall, DelegationResult, Delegator } from '../core/delegation';
import { ToolError } from '../core/errors';
import { defineTool, type CallEnvironment, type ToolContext } from '../core/tool';

const FOREGROUND: Declarations = { effect: 'Delegating', replay: 'Never', concurrency: 'ParallelSafe' };
const BACKGROUND: Declarations = { effect: 'Delegating', replay: 'Never', concurrency: 'IsolatedBackground' };

const NO_DELEGATION =
  'Delegation is not available here: a delegated agent cannot delegate further, and a host without a model connection cannot start one. Do the work yourself.';

const DESCRIPTION = `Delegate a bounded goal to another agent, which works on it with its own tools and its own transcript and then reports back. Use it for self-contained work that would otherwise fill your context (a survey of a large code base, a separate fix, a review), or to run independent pieces in parallel: several task calls in one step run side by side.

Every call the agent makes is checked by the permission rules again, and the user sees that it comes from a delegated agent. Returns the agent's final answer and the list of what it did (files written, commands run, with their outcomes), taken from its call records.`;

const parameters = z.strictObject({
  goal: z
    .string()
    .trim()
    .min(1)
    .max(20_000)
    .describe('Everything the agent needs, self-contained (it does not see your conversation): what to do, where, and what to report'),
  agent: z
    .string()
    .trim()
    .min(1)
    .optional()
    .describe('A configured agent\'s name (config "agents"); default a general agent with your tools except task'),
  tools: z
    .array(z.string().trim().min(1))
    .max(100)
    .optional()
    .describe(
      'Exact tool names for the agent, replacing its defaults (e.g. ["read", "grep", "glob"] for a read-only survey); it can only narrow what the agent may use',
    ),
  max_steps: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe("The most model steps it may take; default the agent's max_steps, else 25"),
  background: z
    .boolean()
    .optional()
    .describe('Return a job id (job-1) at once while the agent works; read its result later with the job tool. You are told when it ends.'),
});

export const delegationUnavailable = (env: CallEnvironment): string | undefined => (env.delegation ? undefined : NO_DELEGATION);

function requireDelegation(context: ToolContext): Delegator {
  if (!context.delegation) throw new ToolError(NO_DELEGATION);
  return context.delegation;
}

const READ_ONLY_EFFECTS: ReadonlySet<string> = new Set(['ReadOnly']);

/** `read ×3, grep ×1` */
function countByTool(calls: readonly ChildCall[]): string {
  const counts = new Map<string, number>();
  for (const call of calls) counts.set(call.tool, (counts.get(call.tool) ?? 0) + 1);
  return [...counts].map(([tool, count]) => `${tool} ×${count}`).join(', ');
}

/** What the child did, from its call rows: every call with an effect, one line each, and a count of the rest. */
export function describeChildCalls(calls: readonly ChildCall[]): string {
  if (calls.length === 0) return 'It made no tool calls.';
  const acting = calls.filter((call) => !READ_ONLY_EFFECTS.has(call.effect));
  const looking = calls.filter((call) => READ_ONLY_EFFECTS.has(call.effect));
  const lines: string[] = [];
  if (acting.length === 0) lines.push('It changed nothing: it made only read-only calls.');
  for (const call of acting) lines.push(`- ${call.tool}${call.subject !== undefined ? ` ${call.subject}` : ''}: ${call.outcome}`);
  if (looking.length > 0) lines.push(`${acting.length > 0 ? 'Also read-only calls' : 'Read-only calls'}: ${countByTool(looking)}.`);
  return lines.join('\n');
}

/** The model-facing result of a delegation: how it ended, the final answer, what it did. */
export function describeDelegation(result: DelegationResult): string {
  const ending: Record<DelegationResult['reason'], string> = {
    done: 'finished',
    'step-limit': `stopped at its step limit (${result.maxSteps} steps) before it finished: the goal may be incomplete. Continue the rest yourself, or delegate it again with a larger max_steps`,
    cancelled: 'was cancelled before it finished: part of its work may have happened',
    error: `failed: ${result.error ?? 'unknown error'}. Check what it did below before trying again`,
  };
  const answer = result.answer.trim() === '' ? '(no answer)' : result.answer.trim();
  return (
    `The delegated agent (${result.agent}) ${ending[result.reason]}.\n` +
    `Its final answer:\n${answer}\n\n` +
    `What it did, from its call records (child session ${result.childSessionId}):\n${describeChildCalls(result.calls)}`
  );
}

export const taskTool = defineTool({
  name: 'task',
  description: DESCRIPTION,
  parameters,
  declarations: (args) => (args.background ? BACKGROUND : FOREGROUND),
  // Rules may name the agent: {"tool": "task", "match": "reviewer", "action": "allow"}.
  subjects: async (args) => [{ kind: 'name', value: args.agent ?? 'general' }],
  unavailableReason: delegationUnavailable,
  async run(args, context) {
    const delegator = requireDelegation(context);
    // Checked before anything starts, so a bad agent name or tool list is reported at once.
    const plan = delegator.plan({
      goal: args.goal,
      parentSessionId: context.sessionId,
      parentCallId: context.callId,
      ...(args.agent !== undefined ? { agent: args.agent } : {}),
      ...(args.tools !== undefined ? { tools: args.tools } : {}),
      ...(args.max_steps !== undefined ? { maxSteps: args.max_steps } : {}),
    });

    if (args.background) {
      if (!context.background)
        throw new ToolError('Background jobs are not available in this host: delegate without "background" to wait for the result.');
      const job = context.background.startTask({
        sessionId: context.sessionId,
        goal: args.goal,
        agent: plan.agent,
        run: async (signal) => {
          const result = await delegator.run(plan, signal);
          const status = result.reason === 'cancelled' ? 'cancelled' : result.reason === 'error' ? 'failed' : 'done';
          return { status, text: describeDelegation(result), childSessionId: result.childSessionId };
        },
      });
      return {
        output:
          `Started delegated job ${job.id} (${plan.agent}, at most ${plan.maxSteps} steps, tools: ${plan.allowlist.join(', ')}). It works in the background; you will be told when it ends. ` +
          `Read its result with job {"action": "result", "id": "${job.id}"}, or see how it is doing with job {"action": "status", "id": "${job.id}"}.`,
        metadata: { jobId: job.id, agent: plan.agent, background: true },
      };
    }

    const result = await delegator.run(plan, context.signal);
    // A cancelled run still reports what the child did; the scheduler records it as cancelled.
    return {
      status: result.reason === 'error' || result.reason === 'cancelled' ? 'error' : 'ok',
      output: describeDelegation(result),
      metadata: { childSessionId: result.childSessionId, agent: result.agent, reason: result.reason, calls: result.calls.length },
    };
  },
});
