/**
 * Pre- and post-tool hooks (SPEC §9): user commands from `config.hooks`, run through the host's
 * process runner with the call as JSON on stdin.
 *
 * A pre-tool hook blocks the call by exiting with code 2 (its stderr, else its stdout, is the
 * reason) or by printing `{"decision":"block","reason":"..."}` on stdout; exit 0 lets it through.
 * A pre-tool hook that times out, crashes (any other exit) or cannot start blocks the call too:
 * a guard that fails must fail closed. A post-tool hook only observes, so its failures are warnings.
 * Every failure is reported as a `notice` event naming the hook. The hook's timeout always
 * applies, so a hanging hook never wedges the scheduler. Cancelling the turn kills a running hook
 * and skips the hooks not yet run: a stop button must stop everything promptly.
 */
import type { HookConfig, ZunoConfig } from './config';
import type { Declarations } from './declarations';
import type { EventBus } from './events';
import type { BlockedCategory, OutcomeKind } from './outcome';
import type { CallEnvironment } from './tool';

/** Hook output beyond this is dropped: a reason is a sentence, not a log. */
const MAX_HOOK_OUTPUT = 64 * 1024;

export interface HookCall {
  readonly sessionId: string;
  readonly callId: string;
  readonly tool: string;
  /** The validated arguments. */
  readonly arguments: unknown;
  readonly declarations: Declarations;
}

export interface HookResultInfo {
  readonly outcome: OutcomeKind;
  readonly category?: BlockedCategory;
  readonly output: string;
}

export type PreHookVerdict =
  { readonly kind: 'continue' } | { readonly kind: 'blocked'; readonly reason: string } | { readonly kind: 'cancelled' };

interface HookRun {
  readonly status: 'exited' | 'timed-out' | 'cancelled' | 'killed' | 'failed-to-start';
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly detail: string;
}

const appliesTo = (hook: HookConfig, tool: string): boolean => hook.tools === undefined || hook.tools.includes(tool);

const firstLines = (text: string): string => {
  const trimmed = text.trim();
  return trimmed.length > 2000 ? `${trimmed.slice(0, 2000)}…` : trimmed;
};

function payload(event: 'pre_tool' | 'post_tool', call: HookCall, result?: HookResultInfo): string {
  return JSON.stringify({
    event,
    session_id: call.sessionId,
    call_id: call.callId,
    tool: call.tool,
    arguments: call.arguments,
    effect: call.declarations.effect,
    replay: call.declarations.replay,
    concurrency: call.declarations.concurrency,
    ...(result ? { outcome: result.outcome, ...(result.category ? { category: result.category } : {}), output: result.output } : {}),
  });
}

/** A hook's JSON verdict on stdout, when it printed one. */
function jsonBlock(stdout: string): string | undefined {
  const trimmed = stdout.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    if (typeof parsed !== 'object' || parsed === null || !('decision' in parsed) || parsed.decision !== 'block') return undefined;
    const reason = 'reason' in parsed ? parsed.reason : undefined;
    return typeof reason === 'string' && reason.trim().length > 0 ? reason.trim() : 'no reason given';
  } catch {
    return undefined;
  }
}

/** Runs hook commands for the scheduler. One instance per scheduler; it holds no per-call state. */
export class HookRunner {
  /** `hooks` gives the hooks in force: the scheduler passes its prompt's snapshot (issue 8 §3). */
  constructor(
    private readonly env: CallEnvironment,
    private readonly events: EventBus,
    private readonly hooks: () => ZunoConfig['hooks'] = () => env.config.hooks,
  ) {}

  /** Runs the matching pre-tool hooks in config order; the first that blocks decides. */
  async beforeCall(call: HookCall, signal: AbortSignal): Promise<PreHookVerdict> {
    for (const hook of this.hooks().pre_tool) {
      if (!appliesTo(hook, call.tool)) continue;
      if (signal.aborted) return { kind: 'cancelled' };
      const run = await this.run(hook, payload('pre_tool', call), signal);
      if (run.status === 'cancelled' || signal.aborted) return { kind: 'cancelled' };
      if (run.status === 'exited' && run.exitCode === 0) {
        const reason = jsonBlock(run.stdout);
        if (reason !== undefined) return { kind: 'blocked', reason: `pre-tool hook \`${hook.command}\` blocked the call: ${reason}` };
        continue;
      }
      if (run.status === 'exited' && run.exitCode === 2) {
        const reason = firstLines(run.stderr) || firstLines(run.stdout) || 'no reason given';
        return { kind: 'blocked', reason: `pre-tool hook \`${hook.command}\` blocked the call: ${reason}` };
      }
      const failure = `pre-tool hook \`${hook.command}\` failed: ${run.detail}`;
      this.events.emit(call.sessionId, {
        type: 'notice',
        level: 'error',
        text: `${failure}. The call ${call.callId} (${call.tool}) was blocked, because a failing guard must fail closed.`,
      });
      return { kind: 'blocked', reason: failure };
    }
    return { kind: 'continue' };
  }

  /** Runs the matching post-tool hooks; they observe the result, and their failures only warn. */
  async afterCall(call: HookCall, result: HookResultInfo, signal: AbortSignal): Promise<void> {
    for (const hook of this.hooks().post_tool) {
      if (!appliesTo(hook, call.tool)) continue;
      if (signal.aborted) return;
      const run = await this.run(hook, payload('post_tool', call, result), signal);
      if (run.status === 'cancelled') return;
      if (run.status === 'exited' && run.exitCode === 0) continue;
      this.events.emit(call.sessionId, {
        type: 'notice',
        level: 'warning',
        text: `post-tool hook \`${hook.command}\` failed for call ${call.callId} (${call.tool}): ${run.detail}`,
      });
    }
  }

  private async run(hook: HookConfig, stdin: string, signal: AbortSignal): Promise<HookRun> {
    let stdout = '';
    let stderr = '';
    const collect = (chunk: string, stream: 'stdout' | 'stderr'): void => {
      if (stream === 'stdout') stdout = (stdout + chunk).slice(0, MAX_HOOK_OUTPUT);
      else stderr = (stderr + chunk).slice(0, MAX_HOOK_OUTPUT);
    };
    try {
      const result = await this.env.host.processes.run({
        command: hook.command,
        shell: true,
        cwd: this.env.workspaceRoot,
        stdin,
        timeoutMs: hook.timeout_ms,
        signal,
        onOutput: collect,
        display: `hook: ${hook.command}`,
      });
      const said = firstLines(stderr) || firstLines(stdout);
      const saying = said ? `: ${said}` : '';
      if (result.cancelled) return { status: 'cancelled', exitCode: null, stdout, stderr, detail: 'cancelled' };
      if (result.timedOut)
        return {
          status: 'timed-out',
          exitCode: null,
          stdout,
          stderr,
          detail: `timed out after ${hook.timeout_ms} ms and was killed${saying}`,
        };
      if (result.exitCode === null) {
        return { status: 'killed', exitCode: null, stdout, stderr, detail: `was killed by signal ${result.signal ?? 'unknown'}${saying}` };
      }
      return { status: 'exited', exitCode: result.exitCode, stdout, stderr, detail: `exited with code ${result.exitCode}${saying}` };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { status: 'failed-to-start', exitCode: null, stdout, stderr, detail: `could not be run: ${message}` };
    }
  }
}
