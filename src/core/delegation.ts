/**
 * Delegation as tools see it (SPEC S1 `task`, S2 `council_run`, E1 Delegating). The agent layer
 * (src/agent/delegation.ts, src/agent/council.ts) implements these interfaces; the core only
 * knows their shape, so tools stay free of the model providers and the store.
 *
 * What keeps agents from stepping on each other (Exclusive calls of different agents never
 * overlap) is the scheduler's: `AgentExclusivity` in src/core/scheduler.ts.
 */
import type { Declarations } from './declarations';

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

/** Where a delegated child session came from, read back from its stored title. */
export interface DelegatedOrigin {
  readonly parentSessionId: string;
  readonly parentCallId: string;
  readonly agent: string;
  /** The first line of the goal, as far as the title keeps it. */
  readonly goal: string;
}

/**
 * A child session's title. It is the one link from a child to its parent that the session list
 * carries (the history nests children under parents from it), so it is written and read here only.
 */
export function delegatedSessionTitle(origin: DelegatedOrigin): string {
  return `task ${origin.parentCallId} of session ${origin.parentSessionId} (${origin.agent}): ${origin.goal.slice(0, 60)}`;
}

const DELEGATED_TITLE = /^task (\S+) of session (\S+) \(([^)]*)\): ([\s\S]*)$/;

/** The origin of a child session from its title; undefined for a chat the user started. */
export function parseDelegatedSessionTitle(title: string | undefined): DelegatedOrigin | undefined {
  const match = title === undefined ? null : DELEGATED_TITLE.exec(title);
  if (match === null) return undefined;
  const [, parentCallId = '', parentSessionId = '', agent = '', goal = ''] = match;
  return { parentSessionId, parentCallId, agent, goal };
}
