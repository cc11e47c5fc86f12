/**
 * Delegation as tools see it (SPEC S1 `task`, S2 `council_run`, E1 Delegating). The agent layer
 * (src/agent/delegation.ts, src/agent/council.ts) implements these interfaces; the core only
 * knows their shape, so tools stay free of the model providers and the store.
 *
 * It also holds the one rule that keeps agents from stepping on each other: Exclusive calls of
 * different agents never overlap (`AgentExclusivity`).
 */
import type { Declarations } from './declarations';
import { FairSharedLock } from './lock';
import type { ToolRegistration } from './registry';
import type { Tool } from './tool';

export interface DelegationRequest {
  readonly goal: string;
  /** A name from `config.agents`; the general-purpose agent when absent. */
  readonly agent?: string;
  /** An exact allowlist for the child, replacing its surface (SPEC A1). */
  readonly tools?: readonly string[];
  readonly maxSteps?: number;
  readonly parentSessionId: string;
  /** The parent's `task` call: child calls carry it as their origin, and its row links the child session. */
  readonly parentCallId: string;
}

/** A checked request, ready to run: what was wrong with it was reported before anything ran. */
export interface DelegationPlan {
  readonly request: DelegationRequest;
  /** The agent's name, shown in approval prompts as the call's origin. */
  readonly agent: string;
  readonly allowlist: readonly string[];
  readonly maxSteps: number;
}

/** One call of the child, from its stored row. */
export interface ChildCall {
  readonly tool: string;
  readonly effect: Declarations['effect'];
  /** The path, command line or URL it acted on, when it has one. */
  readonly subject?: string;
  /** `ok`, `error`, `indeterminate`, `cancelled`, `blocked (denied)`, … */
  readonly outcome: string;
}

export interface DelegationResult {
  readonly childSessionId: string;
  readonly agent: string;
  readonly reason: 'done' | 'step-limit' | 'cancelled' | 'error';
  /** The child's last answer. */
  readonly answer: string;
  readonly maxSteps: number;
  /** Every call the child made, in order, from the store. */
  readonly calls: readonly ChildCall[];
  /** Set when the reason is `error`. */
  readonly error?: string;
}

export interface Delegator {
  /**
   * Checks the agent, the tool allowlist and the step bound. Throws a ToolError, addressed to
   * the model, when the request cannot run; nothing has started then.
   */
  plan(request: DelegationRequest): DelegationPlan;
  /** Runs the child to its end. Aborting `signal` cancels it (and its calls). */
  run(plan: DelegationPlan, signal: AbortSignal): Promise<DelegationResult>;
}

export interface CouncilMemberAnswer {
  readonly name: string;
  /** The model the member used; absent for the session's model. */
  readonly model?: string;
  readonly answer?: string;
  /** Why this member has no answer. */
  readonly error?: string;
}

export interface CouncilVerdict {
  readonly members: readonly CouncilMemberAnswer[];
  readonly synthesis?: string;
  /** Why there is no synthesis. */
  readonly synthesisError?: string;
}

export interface Council {
  /** Asks every member, then has the session's model combine their answers. */
  convene(question: string, signal: AbortSignal): Promise<CouncilVerdict>;
}

/**
 * Exclusive calls of different agents never overlap.
 *
 * The scheduler orders the calls of one turn of one agent (C1). Sibling children (and a parent
 * whose background child keeps working) run separate turns, so nothing else would stop two of
 * them from writing the same file at once. Every tool of every agent of a runtime is therefore
 * wrapped: while an Exclusive call runs, it holds one runtime-wide mutex.
 *
 * Which calls take it, and why:
 * - Exclusive calls with an effect on the workspace (write, apply_patch, shell, execute, …).
 * - Not Delegating calls (task, council_run): a parent's `task` call is in flight for as long as
 *   its child runs, and the child's writes need the mutex, so holding it there would deadlock.
 *   The child's own calls take it instead.
 * - Not UserMediated calls (question): they wait for a person, not for the workspace.
 * - Not non-exclusive calls (reads, background starts, bg/job inspection): they may overlap
 *   another agent's write, as they may overlap a save in the editor; writes are atomic, so a
 *   read sees the old or the new file. Holding back a sibling's write for a `bg wait` would be
 *   pointless.
 *
 * The mutex is taken after approval, when the call runs, so a call waiting for the user holds
 * nothing. A holder never waits for another lock while holding it, so there is no cycle.
 */
export class AgentExclusivity {
  private readonly mutex = new FairSharedLock(1);
  private readonly guarded = new WeakSet<Tool>();

  /** Whether an Exclusive call holds the mutex and how many wait for it: for tests and diagnostics. */
  get holders(): { readonly held: boolean; readonly waiting: number } {
    const { exclusive, waiting } = this.mutex.holders;
    return { held: exclusive, waiting };
  }

  /** Calls that hold the runtime-wide mutex while they run. */
  static holdsMutex(declarations: Declarations): boolean {
    return declarations.concurrency === 'Exclusive' && declarations.effect !== 'Delegating' && declarations.effect !== 'UserMediated';
  }

  /** The tool, wrapped so its Exclusive calls take the mutex. Wrapping twice is harmless (same tool back). */
  guard(tool: Tool): Tool {
    if (this.guarded.has(tool)) return tool;
    const mutex = this.mutex;
    const wrapped: Tool = {
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      hasPreview: tool.hasPreview,
      parse: (raw) => tool.parse(raw),
      declarationsFor: (args) => tool.declarationsFor(args),
      subjectsFor: (args, env) => tool.subjectsFor(args, env),
      unavailableReason: (env) => tool.unavailableReason(env),
      preview: (args, env) => tool.preview(args, env),
      async run(args, context) {
        let declarations: Declarations | undefined;
        try {
          declarations = tool.declarationsFor(args);
        } catch {
          // A classifier that fails counts as the strictest declarations (T2): take the mutex.
        }
        if (declarations && !AgentExclusivity.holdsMutex(declarations)) return tool.run(args, context);
        const release = await mutex.acquire('exclusive', context.signal);
        try {
          return await tool.run(args, context);
        } finally {
          release();
        }
      },
    };
    this.guarded.add(wrapped);
    return wrapped;
  }

  guardAll(registrations: readonly ToolRegistration[]): ToolRegistration[] {
    return registrations.map((registration) => ({ ...registration, tool: this.guard(registration.tool) }));
  }
}
