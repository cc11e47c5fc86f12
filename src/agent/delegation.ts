/**
 * Child agents for the `task` tool (SPEC S1, E1 Delegating, A1, C3 `concurrency.delegations`).
 *
 * A child is the same agent loop (`runAgent`) in a session of its own:
 * - Its session is created here, titled with the parent session and call, and every call row
 *   of the child carries the parent call id (the scheduler records the origin), so the store
 *   links both ways.
 * - It runs with an exact tool allowlist (A1): the configured agent's `tools`, else the `tools`
 *   argument, else the parent's default surface without `task`. Its environment has no
 *   `delegation`, so a child cannot start children of its own: recursion is bounded at one
 *   level, and a child can never wait for a delegation slot that its own parent holds.
 * - Its calls go through a scheduler that stamps them with their origin, so every one is
 *   evaluated by the policy again and an approval prompt says which parent call it serves.
 * - At most `concurrency.delegations` children run at once: a semaphore shared by the runtime.
 * - Exclusive calls of different agents never overlap: the child's scheduler shares the
 *   runtime's AgentExclusivity (see src/core/scheduler.ts for why this does not deadlock).
 * - Its background commands are stopped when it finishes.
 *
 * What it changed is read back from its call rows, not from what it says.
 */
import { relative, isAbsolute, sep } from 'node:path';
import type { TurnCheckpoints } from '../core/checkpoints';
import {
  delegatedSessionTitle,
  type ChildCall,
  type DelegationPlan,
  type DelegationRequest,
  type DelegationResult,
  type Delegator,
} from '../core/delegation';
import { ToolError } from '../core/errors';
import type { EventBus } from '../core/events';
import type { FairSharedLock } from '../core/lock';
import type { ToolRegistry } from '../core/registry';
import {
  Scheduler,
  type AgentExclusivity,
  type SchedulerOptions,
  type ToolCallRequest,
  type ToolCallResult,
  type TurnOptions,
} from '../core/scheduler';
import type { CallEnvironment, CallSubject } from '../core/tool';
import type { CallRow, Store } from '../store/store';
import { agentRunner } from './loop';
import type { ModelProvider } from './provider';

/** The agent used when `task` names none. */
export const GENERAL_AGENT = 'general';
/** Step bound of a child when neither the call nor its agent sets one. */
export const DEFAULT_CHILD_STEPS = 25;
/** Subjects longer than this are cut in the change summary. */
const MAX_SUBJECT_CHARS = 200;

/** Where model providers come from: the session's model, or another one by name (agents, council members). */
export interface ModelSource {
  /** The provider for `model`; the session's own model when undefined. Rejects with a ToolError when it cannot be reached. */
  forModel(model: string | undefined): Promise<ModelProvider>;
}

/**
 * A ModelSource for a session model and, when `otherModel` is given, providers for other model
 * names (created once each). Without `otherModel`, a named model is an error the model reads.
 */
export function modelSource(
  sessionModel: ModelProvider,
  otherModel?: (model: string) => ModelProvider | Promise<ModelProvider>,
): ModelSource {
  const others = new Map<string, Promise<ModelProvider>>();
  return {
    async forModel(model) {
      if (model === undefined) return sessionModel;
      if (!otherModel)
        throw new ToolError(
          `The model "${model}" cannot be reached from this host: only the session's model (${sessionModel.label}) can. Leave out the model, or ask the user to configure it.`,
        );
      let provider = others.get(model);
      if (!provider) {
        provider = Promise.resolve().then(() => otherModel(model));
        others.set(model, provider);
        // A failed creation (a missing key, say) may be fixed and tried again.
        provider.catch(() => others.delete(model));
      }
      return provider;
    },
  };
}

/** A scheduler whose every turn carries the origin of a delegated child (E1): policy again, origin in prompts. */
class ChildScheduler extends Scheduler {
  constructor(
    options: SchedulerOptions,
    private readonly origin: { readonly parentCallId: string; readonly agent: string },
  ) {
    super(options);
  }

  override runTurn(sessionId: string, calls: readonly ToolCallRequest[], options: TurnOptions): Promise<ToolCallResult[]> {
    return super.runTurn(sessionId, calls, { ...options, origin: this.origin });
  }
}

export interface ChildAgentsOptions {
  readonly store: Store;
  /** The parent's registry; children see the same tools through their allowlist. */
  readonly registry: ToolRegistry;
  readonly events: EventBus;
  /** The parent's environment. Children get it without `delegation`. */
  readonly env: CallEnvironment;
  readonly models: ModelSource;
  /** Shared by every delegator of the runtime: `new FairSharedLock(config.concurrency.delegations)`, taken shared. */
  readonly slots: FairSharedLock;
  /** Shared by every scheduler of the runtime: children's Exclusive calls never overlap another agent's. */
  readonly exclusivity: AgentExclusivity;
  /** A child's first side effect takes its parent turn's checkpoint (issue 13). */
  readonly checkpoints?: TurnCheckpoints;
}

const CHILD_INSTRUCTIONS =
  'You are a delegated agent: another agent gave you the goal in the first message and will read only your final reply. ' +
  'Work toward that goal alone, with the tools you have, and do not start unrelated work. ' +
  'You cannot ask the other agent anything: when something is unclear, make a sensible choice and say so. ' +
  'Finish with a reply that states the result, what you changed (files, commands), and anything left undone.';

export class ChildAgents implements Delegator {
  private readonly childEnv: CallEnvironment;
  private readonly childRegistry: ToolRegistry;

  constructor(private readonly options: ChildAgentsOptions) {
    const { delegation: _noFurtherDelegation, ...childEnv } = options.env;
    this.childEnv = childEnv;
    // Children always run with an allowlist, which replaces the default surface (A1), so the
    // default-surface flag plays no part here; MCP tools come from the parent's sources.
    this.childRegistry = options.registry.asSlots();
  }

  plan(request: DelegationRequest): DelegationPlan {
    const config = this.options.env.config;
    const agentName = request.agent ?? GENERAL_AGENT;
    const agent = request.agent !== undefined ? config.agents[request.agent] : undefined;
    if (request.agent !== undefined && !agent) {
      const known = Object.entries(config.agents).map(([name, entry]) => (entry.description ? `${name} (${entry.description})` : name));
      throw new ToolError(
        `There is no agent named "${request.agent}". ` +
          (known.length > 0 ? `The configured agents are: ${known.join('; ')}.` : 'No agents are configured.') +
          ' Leave out "agent" to delegate to a general agent.',
      );
    }
    if (request.tools?.includes('task')) {
      throw new ToolError('A delegated agent cannot delegate further, so "task" cannot be in its tools. Remove it from "tools".');
    }
    const registered = new Set(this.options.registry.names());
    // The general agent gets what the parent is offered by default, without task (no recursion).
    const base = agent?.tools ?? this.options.registry.surface(this.options.env).map((tool) => tool.name);
    const available = base.filter((name) => name !== 'task' && registered.has(name));
    let allowlist = available;
    if (request.tools !== undefined) {
      const outside = request.tools.filter((name) => !available.includes(name));
      if (outside.length > 0) {
        throw new ToolError(
          `"tools" can only narrow what the ${agentName} agent may use, and ${outside.map((name) => `"${name}"`).join(', ')} ${outside.length === 1 ? 'is' : 'are'} not among them. ` +
            `Choose from: ${available.join(', ') || '(none)'}.`,
        );
      }
      allowlist = [...new Set(request.tools)];
    }
    return { request, agent: agentName, allowlist, maxSteps: request.maxSteps ?? agent?.max_steps ?? DEFAULT_CHILD_STEPS };
  }

  async run(plan: DelegationPlan, signal: AbortSignal): Promise<DelegationResult> {
    const { store, events } = this.options;
    const { request } = plan;
    const agent = request.agent !== undefined ? this.options.env.config.agents[request.agent] : undefined;
    // Waiting for a slot is cancellable; a run cancelled here never started anything.
    const release = await this.options.slots.acquire('shared', signal);
    try {
      const provider = await this.options.models.forModel(agent?.model);
      const goalLine = request.goal.split('\n')[0] ?? '';
      const session = store.createSession({
        workspace: this.childEnv.workspaceRoot,
        title: delegatedSessionTitle({
          parentCallId: request.parentCallId,
          parentSessionId: request.parentSessionId,
          agent: plan.agent,
          goal: goalLine,
        }),
      });
      // In the parent's session, so its record (and a view of it) can find the child's events.
      events.emit(request.parentSessionId, {
        type: 'delegation-started',
        call_id: request.parentCallId,
        child_session_id: session.id,
        agent: plan.agent,
      });
      const scheduler = new ChildScheduler(
        {
          registry: this.childRegistry,
          ledger: store,
          events,
          env: this.childEnv,
          exclusivity: this.options.exclusivity,
          ...(this.options.checkpoints ? { checkpoints: this.options.checkpoints.forChildOf(request.parentSessionId) } : {}),
        },
        { parentCallId: request.parentCallId, agent: plan.agent },
      );
      try {
        const runChild = agentRunner({ store, scheduler, registry: this.childRegistry, env: this.childEnv, events });
        const result = await runChild({
          provider,
          sessionId: session.id,
          prompt: request.goal,
          signal,
          allowlist: plan.allowlist,
          maxSteps: plan.maxSteps,
          instructions: agent?.prompt ? `${CHILD_INSTRUCTIONS}\n\n${agent.prompt}` : CHILD_INSTRUCTIONS,
        });
        return {
          childSessionId: session.id,
          agent: plan.agent,
          reason: result.reason,
          answer: result.text,
          maxSteps: plan.maxSteps,
          calls: await this.childCalls(session.id),
          ...(result.error ? { error: result.error.message } : {}),
        };
      } finally {
        // A child's background commands end with it: nobody is left to follow them.
        await this.childEnv.background?.endSession(session.id);
      }
    } finally {
      release();
    }
  }

  /** Every call of the child, in order, from its rows: what it acted on and how it ended. */
  private async childCalls(sessionId: string): Promise<ChildCall[]> {
    const rows = this.options.store.calls(sessionId);
    return Promise.all(
      rows.map(async (row) => {
        const subject = await this.subjectOf(row);
        return {
          tool: row.tool,
          effect: row.effect,
          outcome: row.category !== undefined ? `${row.status} (${row.category})` : row.status,
          ...(subject !== undefined ? { subject } : {}),
        };
      }),
    );
  }

  /** The call's main subject, as permission rules saw it, shortened for a summary. */
  private async subjectOf(row: CallRow): Promise<string | undefined> {
    const tool = this.childRegistry.get(row.tool);
    if (!tool) return undefined;
    let raw: unknown;
    try {
      raw = JSON.parse(row.argumentsJson.trim() === '' ? '{}' : row.argumentsJson);
    } catch {
      return undefined;
    }
    const parsed = tool.parse(raw);
    if (!parsed.success) return undefined;
    const subjects: readonly CallSubject[] = await tool.subjectsFor(parsed.args, this.childEnv).catch(() => []);
    const first = subjects[0];
    if (!first) return undefined;
    let text = first.value;
    if (first.kind === 'path') {
      const inside = relative(this.childEnv.workspaceRoot, first.value);
      if (inside !== '' && !inside.startsWith(`..${sep}`) && inside !== '..' && !isAbsolute(inside)) text = inside;
    }
    if (text.length > MAX_SUBJECT_CHARS) text = `${text.slice(0, MAX_SUBJECT_CHARS - 1)}…`;
    return first.kind === 'command' ? `\`${text}\`` : text;
  }
}
