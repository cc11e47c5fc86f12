/**
 * Where a command runs (issue 12): in the configured sandbox, or unsandboxed with the reason
 * said. Shell, background commands and `execute` all decide here, so none of them can run
 * unsandboxed silently.
 */
import { ToolError } from '../core/errors';
import {
  planSandbox,
  requiredButUnavailable,
  SANDBOX_OFF_NOTICE,
  unavailableNotice,
  unsandboxedLine,
  type SandboxAvailability,
  type SandboxPlan,
} from '../core/sandbox';
import type { CallEnvironment } from '../core/tool';

export interface SandboxChoice {
  /** The sandbox to run in; absent when the command runs unsandboxed. */
  readonly plan?: SandboxPlan;
  /** Unsandboxed when the user did not choose it for every command: the line the result starts with. */
  readonly unsandboxed?: string;
  /** Unsandboxed because the sandbox cannot be used, or is turned off: the notice the user gets once. */
  readonly notice?: string;
}

const NO_SUPPORT: SandboxAvailability = {
  available: false,
  reason: 'this host has no sandbox',
  fix: 'Run Zuno on Linux with bubblewrap, or on macOS.',
};

async function availability(env: CallEnvironment, plan: SandboxPlan): Promise<SandboxAvailability> {
  return env.host.sandbox ? env.host.sandbox.availability(plan.bwrapPath) : NO_SUPPORT;
}

function plan(env: CallEnvironment): SandboxPlan | undefined {
  const home = env.host.sandbox?.home;
  return planSandbox({
    config: env.config,
    workspaceRoot: env.workspaceRoot,
    ...(env.stateDir !== undefined ? { stateDir: env.stateDir } : {}),
    ...(home !== undefined ? { home } : {}),
  });
}

/**
 * Why a sandboxed call cannot run at all: `sandbox.required` is on and the sandbox is unavailable.
 * The scheduler blocks the call `unavailable` with this before anything runs.
 */
export async function sandboxRequiredProblem(env: CallEnvironment, outsideSandbox: boolean): Promise<string | undefined> {
  if (outsideSandbox || !env.config.sandbox.required) return undefined;
  const planned = plan(env);
  if (!planned) return undefined;
  const found = await availability(env, planned);
  return found.available ? undefined : requiredButUnavailable(found);
}

/** Whether a call asks to leave the sandbox: only meaningful while a sandbox is configured. */
export const leavesSandbox = (env: CallEnvironment, requested: 'off' | undefined): boolean =>
  requested === 'off' && env.config.sandbox.mode !== 'off';

export async function chooseSandbox(env: CallEnvironment, requested: 'off' | undefined): Promise<SandboxChoice> {
  if (leavesSandbox(env, requested)) return { unsandboxed: unsandboxedLine('"sandbox": "off" was asked for this call') };
  const planned = plan(env);
  // The user's explicit choice: said once and in the status bar, so that results stay clean.
  if (!planned) return { notice: SANDBOX_OFF_NOTICE };
  const found = await availability(env, planned);
  if (found.available) return { plan: planned };
  // Checked before the call too; this catches a sandbox that went away in between.
  if (env.config.sandbox.required) throw new ToolError(requiredButUnavailable(found));
  return { unsandboxed: unsandboxedLine(found.reason), notice: unavailableNotice(found) };
}
