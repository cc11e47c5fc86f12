/**
 * The scheduler runs the tool calls of one model turn (SPEC C1, C2, B1–B3, R1–R3).
 *
 * 1. Preflight, in the model's order, one call at a time: resolve the tool, validate its
 *    arguments, classify the call, resolve its subjects, run pre-tool hooks, evaluate permission
 *    and ask the user when needed. A call refused here is blocked: its `dispatch-blocked` event
 *    comes first, and it never runs (I6). This is the one place permission is decided: the tool
 *    receives the path subjects exactly as they were checked (`ToolContext.paths`), and the host
 *    re-verifies them when it opens them, so nothing is resolved or evaluated twice.
 * 2. Execution: every approved call queues on one fair reader/writer lock in model order.
 *    Non-exclusive calls hold it shared, up to `concurrency.tool_calls` at once (I3); an
 *    Exclusive call holds it alone, so it is a two-way barrier (I2). An Exclusive call also
 *    holds the runtime-wide mutex shared with other agents' schedulers (AgentExclusivity).
 * 3. Persistence: outcomes are recorded and returned in the original call order, whatever order
 *    the calls physically finished in (I1). Every call ends with exactly one outcome (I5), even
 *    when a hook, the ledger or the tool itself misbehaves.
 *
 * Before a call runs, its start is durably recorded (R3), so a crash mid-effect leaves a row
 * that recovery turns into `indeterminate`. Only Safe calls are retried, and only after a
 * TransientError (R2).
 */
import type { CheckpointRecorder } from './checkpoints';
import { STRICTEST_DECLARATIONS, type Declarations } from './declarations';
import { BlockedError, ToolError, TransientError } from './errors';
import type { EventBus, ZunoEventBody } from './events';
import { HookRunner, type HookCall } from './hooks';
import type { ApprovalDecision, ApprovalRequest, FileChange } from './host';
import type { CallFinish, CallLedger, CallStart } from './ledger';
import { FairSharedLock } from './lock';
import { blockedMessage, type BlockedCategory, type Outcome } from './outcome';
import { capOutput, OutputCapture, type OutputLimits } from './output';
import { evaluatePermission, pathVisibility, type PathVisibility } from './policy';
import type { ToolRegistry } from './registry';
import type { ShellAnalysis, ShellAnalyzer } from './shell/analysis';
import {
  checkedPathsOf,
  type Authorization,
  type CallEnvironment,
  type CallSubject,
  type CheckedPaths,
  type Tool,
  type ToolContext,
  type ToolResult,
} from './tool';
import { looseningChanges, snapshotRules, stricterDecision, withUserRule, type RulesSnapshot } from './turn-rules';

/** Characters of live output sent as events per call (about 1 MiB of text). */
export const LIVE_OUTPUT_LIMIT = 1024 * 1024;
export interface ToolCallRequest {
  readonly id: string;
  readonly name: string;
  /** Raw JSON text from the model. */
  readonly arguments: string;
}

export interface ToolCallResult {
  readonly callId: string;
  readonly tool: string;
  readonly outcome: Outcome;
  /** Model-facing text. */
  readonly output: string;
  readonly truncated: boolean;
  readonly attempt: number;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export interface TurnOptions {
  readonly signal: AbortSignal;
  /** Set for a delegated child agent: its calls are evaluated again (E1 Delegating) and approval prompts show the origin. */
  readonly origin?: { readonly parentCallId: string; readonly agent: string };
  /** An agent allowlist replacing the default surface (A1). */
  readonly allowlist?: readonly string[];
  /**
   * The session's turn (step) number, recorded with each call: with the call's position it lets
   * the store list calls in model order, although a blocked call is persisted only after the
   * earlier calls finish while later ones may already have started.
   */
  readonly turn?: number;
}

/**
 * Exclusive calls of different agents never overlap.
 *
 * One scheduler orders the calls of one turn of one agent (C1). Sibling children (and a parent
 * whose background child keeps working) run separate turns, often through separate schedulers,
 * so nothing else would stop two of them from writing the same file at once. Every scheduler of
 * a runtime therefore shares one of these, and a call that needs it holds it while it runs.
 *
 * Which calls take it, and why:
 * - Exclusive calls with an effect on the workspace (write, apply_patch, shell, execute, …),
 *   and a call whose classifier failed (it counts as the strictest, T2).
 * - Not Delegating calls (task, council_run): a parent's `task` call is in flight for as long as
 *   its child runs, and the child's writes need the mutex, so holding it there would deadlock.
 *   The child's own calls take it instead.
 * - Not UserMediated calls (question): they wait for a person, not for the workspace.
 * - Not non-exclusive calls (reads, background starts, bg/job inspection): they may overlap
 *   another agent's write, as they may overlap a save in the editor; writes are atomic, so a
 *   read sees the old or the new file.
 *
 * The mutex is taken when the call runs, after approval and after the turn's own lock, so a call
 * waiting for the user holds nothing. A holder never waits for another lock while holding it
 * (it is taken last and released first), so there is no cycle.
 */
export class AgentExclusivity {
  private readonly mutex = new FairSharedLock(1);

  /** Whether an Exclusive call holds the mutex and how many wait for it: for tests and diagnostics. */
  get holders(): { readonly held: boolean; readonly waiting: number } {
    const { exclusive, waiting } = this.mutex.holders;
    return { held: exclusive, waiting };
  }

  /** Calls that hold the runtime-wide mutex while they run. */
  static holdsMutex(declarations: Declarations): boolean {
    return declarations.concurrency === 'Exclusive' && declarations.effect !== 'Delegating' && declarations.effect !== 'UserMediated';
  }

  /** Waits for the mutex (in arrival order); rejects when `signal` aborts first. */
  acquire(signal: AbortSignal): Promise<() => void> {
    return this.mutex.acquire('exclusive', signal);
  }
}

export interface SchedulerOptions {
  readonly registry: ToolRegistry;
  readonly ledger: CallLedger;
  readonly events: EventBus;
  readonly env: CallEnvironment;
  /** Shared by every scheduler of a runtime, the children's included. Without it the scheduler has its own. */
  readonly exclusivity?: AgentExclusivity;
  /** For tests and benches: the sleep used between Safe retries. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Checkpoints before each user turn's first side effect (issue 13); none without it. */
  readonly checkpoints?: CheckpointRecorder;
}

/** The longest JSON Schema quoted back to the model after invalid arguments. */
const MAX_SCHEMA_HINT = 2000;

/** Waits `ms`, or rejects as soon as `signal` aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new Error('aborted'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

const RESULT_STATUSES: ReadonlySet<unknown> = new Set([undefined, 'ok', 'error', 'indeterminate']);

/** Tools are typed, but a JavaScript tool or an extension's may still break the contract. */
function isToolResult(value: unknown): value is ToolResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    'output' in value &&
    typeof value.output === 'string' &&
    RESULT_STATUSES.has('status' in value ? value.status : undefined)
  );
}

const describeError = (error: unknown): string => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The call is evaluated against the prompt's rules and the live ones: each line is parsed once
 * for both (a 4 KiB line costs milliseconds).
 */
function analysedOnce(analyzer: ShellAnalyzer): ShellAnalyzer {
  const analyses = new Map<string, ShellAnalysis>();
  return {
    analyze(line) {
      const known = analyses.get(line);
      if (known !== undefined) return known;
      const analysis = analyzer.analyze(line);
      analyses.set(line, analysis);
      return analysis;
    },
  };
}

/** Everything known about a call once preflight has approved it. */
interface ReadyCall {
  readonly position: number;
  readonly request: ToolCallRequest;
  readonly tool: Tool;
  readonly args: unknown;
  readonly declarations: Declarations;
  /** Derived once, with the decision: what the call may reveal of the file tree. */
  readonly visibility: PathVisibility;
  /** The path subjects the policy was evaluated on, handed to the tool as they are (no second resolution). */
  readonly paths: CheckedPaths;
  readonly approvedEdits?: Readonly<Record<string, string>>;
}

/** A call's one outcome, waiting to be persisted in call order. */
/** A call whose approval was asked and is awaited after the turn's other calls are asked too. */
interface AwaitingApproval {
  readonly call: ReadyCall;
  readonly decided: Promise<ReadyCall | SettledCall>;
}

interface SettledCall {
  readonly result: ToolCallResult;
  /** The start as recorded, or as it would have been for a call that never started. */
  readonly start: CallStart;
  /** False when the call never began: it is recorded in one step (`recordBlocked`). */
  readonly started: boolean;
  readonly finishedAt: number;
  readonly durationMs: number;
}

interface Turn {
  readonly sessionId: string;
  readonly options: TurnOptions;
  readonly signal: AbortSignal;
  /** One controller per executing call, all aborted by the turn's one listener (see `callSignal`). */
  readonly running: Set<AbortController>;
}

export class Scheduler {
  private readonly registry: ToolRegistry;
  private readonly ledger: CallLedger;
  private readonly events: EventBus;
  private readonly env: CallEnvironment;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly hooks: HookRunner;
  private readonly limits: OutputLimits;
  private readonly exclusivity: AgentExclusivity;
  private realWorkspaceRoot: Promise<string> | undefined;
  private realStateDir: Promise<string> | undefined;
  private readonly noticesGiven = new Set<string>();
  /** The permission config and hooks of the current prompt (issue 8 §3); see `beginPrompt`. */
  private snapshot: RulesSnapshot | undefined;
  /** Told when prompts begin and before side effects; the agent loop tells it the rest (issue 13). */
  readonly checkpoints: CheckpointRecorder | undefined;

  constructor(options: SchedulerOptions) {
    this.registry = options.registry;
    this.ledger = options.ledger;
    this.events = options.events;
    this.env = options.env;
    this.sleep = options.sleep ?? abortableSleep;
    this.exclusivity = options.exclusivity ?? new AgentExclusivity();
    this.checkpoints = options.checkpoints;
    this.hooks = new HookRunner(options.env, options.events, () => this.rules().hooks);
    this.limits = { maxBytes: options.env.config.tool_output.max_bytes, maxLines: options.env.config.tool_output.max_lines };
  }

  /**
   * Starts a prompt: its calls keep the rules in force now (issue 8 §3). Each call is evaluated
   * against this snapshot and the live config, and the stricter decision wins, so a config the
   * model loosened mid-prompt does not loosen that prompt; hooks come from the snapshot. When
   * the config is looser than at the previous prompt, a warning names what changed before
   * anything runs.
   */
  beginPrompt(sessionId: string): void {
    this.checkpoints?.beginPrompt(sessionId);
    const previous = this.snapshot;
    this.snapshot = snapshotRules(this.env.config);
    const changes = previous ? looseningChanges(previous, this.snapshot) : [];
    if (changes.length === 0) return;
    this.events.emit(sessionId, {
      type: 'notice',
      level: 'warning',
      text: `The permission settings are looser than at the start of the last prompt, and apply from this prompt on: ${changes.join('; ')}. If you did not make these changes, stop and check .zuno/config.json and the zuno.* settings.`,
    });
  }

  /** The current prompt's snapshot, taken at the first call when no prompt was begun. */
  private rules(): RulesSnapshot {
    this.snapshot ??= snapshotRules(this.env.config);
    return this.snapshot;
  }

  /** Runs one turn's calls and returns one result per call, in call order. Never rejects. */
  async runTurn(sessionId: string, calls: readonly ToolCallRequest[], options: TurnOptions): Promise<ToolCallResult[]> {
    const turn: Turn = { sessionId, options, signal: options.signal, running: new Set() };
    const abortRunning = (): void => {
      for (const controller of turn.running) controller.abort(options.signal.reason);
    };
    options.signal.addEventListener('abort', abortRunning, { once: true });
    try {
      return await this.runCalls(turn, calls);
    } finally {
      options.signal.removeEventListener('abort', abortRunning);
    }
  }

  private async runCalls(turn: Turn, calls: readonly ToolCallRequest[]): Promise<ToolCallResult[]> {
    const settled: Promise<SettledCall>[] = [];
    const ready: ReadyCall[] = [];
    const seen = new Set<string>();
    const awaiting: AwaitingApproval[] = [];

    // Preflight, strictly in model order, before anything runs. Approvals are asked one at a time,
    // or all asked first and then awaited when the gateway shows them together (issue 14).
    for (const [position, request] of calls.entries()) {
      let outcome: ReadyCall | SettledCall | AwaitingApproval;
      if (turn.signal.aborted) outcome = this.notStarted(turn, position, request, undefined, 'cancelled');
      else if (seen.has(request.id)) {
        outcome = this.block(
          turn,
          position,
          request,
          undefined,
          'invalid_arguments',
          `Another call in this turn already has the id "${request.id}"; every call needs its own id.`,
        );
      } else {
        outcome = await this.preflight(turn, position, request).catch((error: unknown) =>
          this.notStarted(
            turn,
            position,
            request,
            undefined,
            'error',
            `The call to "${request.name}" was not executed: preparing it failed unexpectedly (${describeError(error)}).`,
          ),
        );
      }
      seen.add(request.id);
      if ('decided' in outcome) awaiting.push(outcome);
      else if ('result' in outcome) settled[position] = Promise.resolve(outcome);
      else ready.push(outcome);
    }
    for (const { call, decided } of awaiting) {
      const outcome = await decided.catch((error: unknown) =>
        this.notStarted(
          turn,
          call.position,
          call.request,
          call.declarations,
          'error',
          `The call to "${call.request.name}" was not executed: its approval failed unexpectedly (${describeError(error)}).`,
        ),
      );
      if ('result' in outcome) settled[call.position] = Promise.resolve(outcome);
      else ready.push(outcome);
    }
    ready.sort((left, right) => left.position - right.position);

    // Execution: queue every approved call on the lock now, in model order.
    const lock = new FairSharedLock(this.env.config.concurrency.tool_calls);
    for (const call of ready) {
      settled[call.position] = this.execute(turn, call, lock).catch((error: unknown) =>
        this.notStarted(
          turn,
          call.position,
          call.request,
          call.declarations,
          'error',
          `The call to "${call.request.name}" failed inside the scheduler (${describeError(error)}); it may not have run.`,
        ),
      );
    }

    // Persist and return in call order (I1), whatever order the calls finished in.
    const results: ToolCallResult[] = [];
    for (const pending of settled) {
      const call = await pending;
      await this.persist(turn, call);
      results.push(call.result);
    }
    return results;
  }

  /**
   * A signal for one executing call, aborted with the turn. Each call gets its own, so that a
   * turn of many calls does not hang dozens of listeners (the lock's, each tool's) on one signal.
   */
  private callSignal(turn: Turn): { readonly signal: AbortSignal; readonly dispose: () => void } {
    const controller = new AbortController();
    if (turn.signal.aborted) controller.abort(turn.signal.reason);
    turn.running.add(controller);
    return { signal: controller.signal, dispose: () => turn.running.delete(controller) };
  }

  /** The workspace root with symlinks resolved, as path subjects are, so relative globs line up. */
  private workspaceRoot(): Promise<string> {
    const root = this.env.workspaceRoot;
    this.realWorkspaceRoot ??= Promise.resolve()
      .then(() => this.env.host.fs.realpath(root))
      .catch(() => root);
    return this.realWorkspaceRoot;
  }

  /** The state dir with symlinks resolved, as path subjects are; undefined when the environment has none. */
  private stateDir(): Promise<string | undefined> {
    const dir = this.env.stateDir;
    if (dir === undefined) return Promise.resolve(undefined);
    this.realStateDir ??= Promise.resolve()
      .then(() => this.env.host.fs.realpath(dir))
      .catch(() => dir);
    return this.realStateDir;
  }

  private emit(turn: Turn, body: ZunoEventBody): void {
    this.events.emit(turn.sessionId, body);
  }

  private startRecord(turn: Turn, position: number, request: ToolCallRequest, declarations: Declarations, attempt: number): CallStart {
    return {
      sessionId: turn.sessionId,
      callId: request.id,
      ...(turn.options.turn !== undefined ? { turn: turn.options.turn } : {}),
      position,
      tool: request.name,
      argumentsJson: request.arguments,
      declarations,
      attempt,
      ...(turn.options.origin ? { parentCallId: turn.options.origin.parentCallId } : {}),
      startedAt: Date.now(),
    };
  }

  /** A call that ends before it starts, other than by being blocked: cancelled, or refused by a failure. */
  private notStarted(
    turn: Turn,
    position: number,
    request: ToolCallRequest,
    declarations: Declarations | undefined,
    kind: 'cancelled' | 'error',
    output = `CANCELLED: the call to "${request.name}" was not started, because the turn was cancelled. Nothing happened.`,
  ): SettledCall {
    const start = this.startRecord(turn, position, request, declarations ?? STRICTEST_DECLARATIONS, 1);
    return {
      result: { callId: request.id, tool: request.name, outcome: { kind }, output, truncated: false, attempt: 1 },
      start,
      started: false,
      finishedAt: start.startedAt,
      durationMs: 0,
    };
  }

  /** Blocks a call (B1): the `dispatch-blocked` event goes out now, before any model-visible result. */
  private block(
    turn: Turn,
    position: number,
    request: ToolCallRequest,
    declarations: Declarations | undefined,
    category: BlockedCategory,
    reason: string,
  ): SettledCall {
    this.emit(turn, { type: 'dispatch-blocked', call_id: request.id, tool: request.name, category, reason });
    const start = this.startRecord(turn, position, request, declarations ?? STRICTEST_DECLARATIONS, 1);
    return {
      result: {
        callId: request.id,
        tool: request.name,
        outcome: { kind: 'blocked', category },
        output: blockedMessage(request.name, category, reason),
        truncated: false,
        attempt: 1,
      },
      start,
      started: false,
      finishedAt: start.startedAt,
      durationMs: 0,
    };
  }

  private async preflight(turn: Turn, position: number, request: ToolCallRequest): Promise<ReadyCall | SettledCall | AwaitingApproval> {
    const availability = this.registry.availability(request.name, this.env, turn.options.allowlist);
    if (!availability.available) return this.block(turn, position, request, undefined, 'unavailable', availability.reason);
    const tool = availability.tool;

    const schemaHint = (): string => {
      const schema = JSON.stringify(tool.inputSchema);
      return schema.length > MAX_SCHEMA_HINT ? `${schema.slice(0, MAX_SCHEMA_HINT)}…` : schema;
    };
    let raw: unknown;
    try {
      // Models send "" for a tool without parameters.
      raw = JSON.parse(request.arguments.trim() === '' ? '{}' : request.arguments);
    } catch (error) {
      return this.block(
        turn,
        position,
        request,
        undefined,
        'invalid_arguments',
        `The arguments are not valid JSON (${messageOf(error)}). Send one JSON object matching this schema: ${schemaHint()}`,
      );
    }
    const parsed = tool.parse(raw);
    if (!parsed.success) {
      return this.block(
        turn,
        position,
        request,
        undefined,
        'invalid_arguments',
        `${parsed.error.replace(/\.$/, '')}. The arguments must match this JSON Schema: ${schemaHint()}`,
      );
    }
    const args = parsed.args;
    const unready = await tool.readiness?.(args, this.env);
    if (unready !== undefined) return this.block(turn, position, request, undefined, 'unavailable', unready);

    let declarations: Declarations;
    try {
      declarations = tool.declarationsFor(args);
    } catch (error) {
      // A classifier that fails must not make a call look safer than the strictest default (T2).
      declarations = STRICTEST_DECLARATIONS;
      this.emit(turn, {
        type: 'notice',
        level: 'warning',
        text: `Tool "${tool.name}" could not classify call ${request.id} (${describeError(error)}); treating it with the strictest declarations.`,
      });
    }

    let subjects: readonly CallSubject[];
    try {
      subjects = await tool.subjectsFor(args, this.env);
    } catch (error) {
      if (error instanceof ToolError) return this.block(turn, position, request, declarations, 'invalid_arguments', error.message);
      return this.block(
        turn,
        position,
        request,
        declarations,
        'denied',
        `Permission could not be evaluated, because what the call touches could not be determined (${describeError(error)}).`,
      );
    }

    if (turn.signal.aborted) return this.notStarted(turn, position, request, declarations, 'cancelled');
    const hookCall: HookCall = { sessionId: turn.sessionId, callId: request.id, tool: tool.name, arguments: args, declarations };
    const verdict = await this.hooks.beforeCall(hookCall, turn.signal);
    if (verdict.kind === 'cancelled') return this.notStarted(turn, position, request, declarations, 'cancelled');
    if (verdict.kind === 'blocked') return this.block(turn, position, request, declarations, 'denied', verdict.reason);

    let shell: ShellAnalyzer | undefined;
    if (subjects.some((subject) => subject.kind === 'command')) {
      try {
        shell = analysedOnce(await this.env.host.shellAnalyzer());
      } catch (error) {
        return this.block(turn, position, request, declarations, 'denied', `Permission could not be evaluated: ${messageOf(error)}`);
      }
    }
    const stateDir = await this.stateDir();
    const workspaceRoot = await this.workspaceRoot();
    const outsideSandbox = tool.outsideSandbox?.(args, this.env) ?? false;
    const query = {
      tool: tool.name,
      declarations,
      subjects,
      workspaceRoot,
      outsideSandbox,
      ...(stateDir !== undefined ? { stateDir } : {}),
      ...(shell ? { shell } : {}),
    };
    // The prompt's rules and the live ones: tightening applies at once, loosening waits (issue 8 §3).
    const decision = stricterDecision(
      evaluatePermission({ ...query, permission: this.rules().permission }),
      evaluatePermission({ ...query, permission: this.env.config.permission }),
    );
    if (decision.action === 'deny') return this.block(turn, position, request, declarations, 'denied', `Refused: ${decision.reason}.`);
    // A path hidden from read is refused to every tool: searching or listing it would reveal it too (issue 8 §5).
    // Deny rules of the prompt's snapshot and of the live config both hide.
    const visibility = pathVisibility({
      tool: tool.name,
      rules: [...this.rules().permission.rules, ...this.env.config.permission.rules],
      workspaceRoot,
    });
    for (const subject of subjects) {
      const hidden = subject.kind === 'path' ? visibility.hiddenReason(subject.value) : undefined;
      if (hidden !== undefined)
        return this.block(turn, position, request, declarations, 'denied', `Refused: ${subject.value} is hidden: ${hidden}.`);
    }
    const ready: ReadyCall = { position, request, tool, args, declarations, visibility, paths: checkedPathsOf(subjects) };
    if (decision.action === 'allow') return ready;
    return this.askApproval(turn, ready, subjects, decision.reason);
  }

  private async askApproval(
    turn: Turn,
    call: ReadyCall,
    subjects: readonly CallSubject[],
    reason: string,
  ): Promise<ReadyCall | SettledCall | AwaitingApproval> {
    const { request, tool, position, declarations } = call;
    let changes: readonly FileChange[] | undefined;
    if (tool.hasPreview) {
      try {
        changes = await tool.preview(call.args, this.env);
      } catch (error) {
        // The change cannot even be shown; asking the user to approve it would be pointless.
        const why = error instanceof ToolError ? error.message : describeError(error);
        return this.notStarted(
          turn,
          position,
          request,
          declarations,
          'error',
          `The call to "${tool.name}" was not executed: its proposed change could not be prepared. ${why}`,
        );
      }
    }
    const subject = subjects[0]?.value;
    const origin = turn.options.origin;
    this.emit(turn, {
      type: 'approval-requested',
      call_id: request.id,
      tool: tool.name,
      ...(subject !== undefined ? { subject } : {}),
      ...(origin ? { parent_call_id: origin.parentCallId } : {}),
    });
    const approvalRequest: ApprovalRequest = {
      callId: request.id,
      sessionId: turn.sessionId,
      tool: tool.name,
      arguments: call.args,
      declarations,
      reason: tool.approvalNote !== undefined ? `${reason}. ${tool.approvalNote}` : reason,
      ...(subject !== undefined ? { subject } : {}),
      ...(changes !== undefined ? { changes } : {}),
      ...(origin ? { origin } : {}),
    };
    // The request is made now, in model order; only the wait for the answer may be deferred.
    const decided = this.awaitDecision(turn, call, approvalRequest);
    return this.env.host.approvals.showsTogether === true ? { call, decided } : decided;
  }

  private async awaitDecision(turn: Turn, call: ReadyCall, approvalRequest: ApprovalRequest): Promise<ReadyCall | SettledCall> {
    const { request, tool, position, declarations } = call;
    let decision: ApprovalDecision;
    try {
      decision = await this.env.host.approvals.request(approvalRequest, turn.signal);
    } catch (error) {
      if (turn.signal.aborted) return this.notStarted(turn, position, request, declarations, 'cancelled');
      const failure = `the approval could not be obtained (${describeError(error)})`;
      this.emit(turn, { type: 'notice', level: 'error', text: `Call ${request.id} (${tool.name}): ${failure}; the call is refused.` });
      this.emit(turn, { type: 'approval-resolved', call_id: request.id, tool: tool.name, approved: false, reason: failure });
      return this.block(turn, position, request, declarations, 'denied', `Refused: ${failure}.`);
    }
    if (turn.signal.aborted) return this.notStarted(turn, position, request, declarations, 'cancelled');
    const userReason = decision.approved ? undefined : decision.reason?.trim() || undefined;
    this.emit(turn, {
      type: 'approval-resolved',
      call_id: request.id,
      tool: tool.name,
      approved: decision.approved,
      ...(userReason !== undefined ? { reason: userReason } : {}),
      ...(decision.approved && decision.addedRule !== undefined ? { added_rule: decision.addedRule } : {}),
    });
    if (!decision.approved) {
      return this.block(
        turn,
        position,
        request,
        declarations,
        'denied',
        userReason !== undefined ? `The user declined: ${userReason}` : 'The user declined this call.',
      );
    }
    // A rule the user added while approving is the user's act, not a loosening to hold back.
    if (decision.addedRule) this.snapshot = withUserRule(this.rules(), decision.addedRule);
    return decision.editedContents ? { ...call, approvedEdits: decision.editedContents } : call;
  }

  private async execute(turn: Turn, call: ReadyCall, lock: FairSharedLock): Promise<SettledCall> {
    const mode = call.declarations.concurrency === 'Exclusive' ? 'exclusive' : 'shared';
    const { signal, dispose } = this.callSignal(turn);
    const releases: (() => void)[] = [];
    try {
      try {
        releases.push(await lock.acquire(mode, signal));
        // The turn's lock first, then other agents': see AgentExclusivity for why this cannot deadlock.
        if (AgentExclusivity.holdsMutex(call.declarations)) releases.push(await this.exclusivity.acquire(signal));
      } catch {
        return this.notStarted(turn, call.position, call.request, call.declarations, 'cancelled');
      }
      if (signal.aborted) return this.notStarted(turn, call.position, call.request, call.declarations, 'cancelled');
      // Holding the locks, so no call of this turn (nor another agent's Exclusive call) changes the
      // tree while the turn's first side effect waits for its checkpoint (issue 13).
      if (call.declarations.effect === 'SideEffecting') await this.checkpoints?.beforeSideEffect(turn.sessionId);
      return await this.runAttempts(turn, call, signal);
    } finally {
      for (const release of releases.reverse()) release();
      dispose();
    }
  }

  private async runAttempts(turn: Turn, call: ReadyCall, signal: AbortSignal): Promise<SettledCall> {
    const { tool, request, declarations } = call;
    const maxAttempts = declarations.replay === 'Safe' ? this.env.config.retry.max_attempts : 1;
    const began = Date.now();

    for (let attempt = 1; ; attempt++) {
      const start = this.startRecord(turn, call.position, request, declarations, attempt);
      this.emit(turn, {
        type: 'tool-call-started',
        call_id: request.id,
        tool: tool.name,
        effect: declarations.effect,
        replay: declarations.replay,
        concurrency: declarations.concurrency,
        attempt,
        ...(turn.options.origin ? { parent_call_id: turn.options.origin.parentCallId } : {}),
      });
      try {
        // R3: the start must be durable before the effect can begin.
        await this.ledger.recordStart(start);
      } catch (error) {
        const text = `The call to "${tool.name}" was not executed: its start could not be recorded durably (${describeError(error)}), and nothing runs unrecorded.`;
        this.emit(turn, { type: 'notice', level: 'error', text });
        if (attempt === 1) return this.notStarted(turn, call.position, request, declarations, 'error', text);
        return this.finishRun(turn, call, signal, start, began, { kind: 'error' }, { output: text });
      }

      // A cancel that landed while the start was being recorded: the row exists, the effect never began.
      if (signal.aborted) {
        return this.finishRun(
          turn,
          call,
          signal,
          start,
          began,
          { kind: 'cancelled' },
          {
            output: `CANCELLED: the call to "${tool.name}" was cancelled before it began. Nothing happened.`,
          },
        );
      }

      let result: ToolResult | undefined;
      let failure: unknown;
      try {
        const value: unknown = await tool.run(call.args, this.context(turn, call, attempt, signal));
        if (isToolResult(value)) result = value;
        else failure = new Error(`the tool returned ${String(JSON.stringify(value)).slice(0, 200)} instead of a result`);
      } catch (error) {
        failure = error;
      }

      if (result) {
        this.noticeOnce(turn, result.metadata?.sandboxNotice);
        const status = result.status ?? 'ok';
        // A run that reports an error after the turn was cancelled most likely stopped because of it.
        const kind = status === 'error' && signal.aborted ? 'cancelled' : status;
        return this.finishRun(turn, call, signal, start, began, { kind }, result);
      }
      if (signal.aborted) {
        return this.finishRun(
          turn,
          call,
          signal,
          start,
          began,
          { kind: 'cancelled' },
          {
            output: `CANCELLED: the call to "${tool.name}" was interrupted while running. Part of its effect may have happened; check the current state before repeating it.`,
          },
        );
      }
      if (failure instanceof TransientError && attempt < maxAttempts) {
        const delay = this.env.config.retry.base_delay_ms * 2 ** (attempt - 1);
        this.emit(turn, {
          type: 'notice',
          level: 'warning',
          text: `"${tool.name}" call ${request.id} failed with a transient error (${failure.message}); attempt ${attempt + 1} of ${maxAttempts} in ${delay} ms.`,
        });
        try {
          await this.sleep(delay, signal);
        } catch {
          return this.finishRun(
            turn,
            call,
            signal,
            start,
            began,
            { kind: 'cancelled' },
            {
              output: `CANCELLED: the call to "${tool.name}" was cancelled while waiting to retry after a transient error (${failure.message}).`,
            },
          );
        }
        continue;
      }
      if (failure instanceof BlockedError) {
        this.emit(turn, {
          type: 'dispatch-blocked',
          call_id: request.id,
          tool: tool.name,
          category: failure.category,
          reason: failure.message,
        });
      }
      return this.finishRun(turn, call, signal, start, began, ...this.describeFailure(call, failure, attempt));
    }
  }

  /** A warning the user gets once per scheduler, however many calls report it (an unusable sandbox, issue 12). */
  private noticeOnce(turn: Turn, text: unknown): void {
    if (typeof text !== 'string' || this.noticesGiven.has(text)) return;
    this.noticesGiven.add(text);
    this.emit(turn, { type: 'notice', level: 'warning', text });
  }

  /** How a thrown failure reads to the model, and which outcome it is. */
  private describeFailure(call: ReadyCall, failure: unknown, attempts: number): [Outcome, Pick<ToolResult, 'output'>] {
    const name = call.tool.name;
    if (failure instanceof TransientError) {
      if (call.declarations.replay === 'Safe') {
        return [
          { kind: 'error' },
          { output: `"${name}" failed after ${attempts} attempt${attempts === 1 ? '' : 's'} with a transient error: ${failure.message}` },
        ];
      }
      if (call.declarations.effect !== 'ReadOnly') {
        // R3: a lost response near a side effect says nothing about whether the effect happened.
        return [
          { kind: 'indeterminate' },
          {
            output:
              `INDETERMINATE: "${name}" lost contact before it could report (${failure.message}). Its effect may or may not have happened, ` +
              `and it will not be retried automatically. Check the authoritative state before making any new change.`,
          },
        ];
      }
      return [{ kind: 'error' }, { output: `"${name}" failed with a transient error: ${failure.message}` }];
    }
    if (failure instanceof BlockedError) {
      // The call started, so this is not B1's "nothing happened": only the refused step never ran.
      return [
        { kind: 'blocked', category: failure.category },
        {
          output: `BLOCKED (${failure.category}): the call to "${name}" was stopped by permission before the refused step, which did NOT run.\nReason: ${failure.message}`,
        },
      ];
    }
    if (failure instanceof ToolError) return [{ kind: 'error' }, { output: failure.message }];
    return [{ kind: 'error' }, { output: `Tool ${name} failed unexpectedly: ${describeError(failure)}` }];
  }

  private context(turn: Turn, call: ReadyCall, attempt: number, signal: AbortSignal): ToolContext {
    const callId = call.request.id;
    return {
      // Everything the environment offers (host, config, work state, delegation...) reaches the tool.
      ...this.env,
      callId,
      sessionId: turn.sessionId,
      attempt,
      signal,
      progress: this.liveOutput(turn, callId),
      captureOutput: () =>
        new OutputCapture(this.limits, () => this.env.host.createSpill(`${callId}.txt`, this.env.config.tool_output.max_spill_bytes)),
      visibility: call.visibility,
      ...(call.approvedEdits ? { approvedEdits: call.approvedEdits } : {}),
      authorize: (subject) => this.authorize(call, subject),
      paths: call.paths,
    };
  }

  /** The policy for a subject a running call discovered, with the call's own tool and declarations. */
  private async authorize(call: ReadyCall, subject: CallSubject): Promise<Authorization> {
    const stateDir = await this.stateDir();
    const query = {
      tool: call.tool.name,
      declarations: call.declarations,
      subjects: [subject],
      workspaceRoot: await this.workspaceRoot(),
      ...(stateDir !== undefined ? { stateDir } : {}),
    };
    // As in preflight: the prompt's snapshot and the live config, the stricter wins.
    const decision = stricterDecision(
      evaluatePermission({ ...query, permission: this.rules().permission }),
      evaluatePermission({ ...query, permission: this.env.config.permission }),
    );
    return { action: decision.action, reason: decision.reason, byNamingRule: decision.rule?.match !== undefined };
  }

  /**
   * Live output for watchers, bounded per call: a command printing gigabytes must not flood the
   * event stream. Past the bound one marker is sent; the result and the spill file keep it all.
   */
  private liveOutput(turn: Turn, callId: string): (chunk: string) => void {
    let budget = LIVE_OUTPUT_LIMIT;
    return (chunk) => {
      if (budget <= 0) return;
      budget -= chunk.length;
      this.emit(turn, {
        type: 'tool-call-output',
        call_id: callId,
        chunk: budget > 0 ? chunk : `${chunk}\n[live output stops here; the result keeps the head and tail, and the full output]\n`,
      });
    };
  }

  /** Caps the output, runs post-tool hooks, and settles a call that started. */
  private async finishRun(
    turn: Turn,
    call: ReadyCall,
    signal: AbortSignal,
    start: CallStart,
    began: number,
    outcome: Outcome,
    result: Pick<ToolResult, 'output' | 'metadata' | 'truncated'>,
  ): Promise<SettledCall> {
    let output = result.output;
    let truncated = result.truncated === true;
    let metadata = result.metadata;
    if (!truncated) {
      const capped = await capOutput(output, this.limits, () =>
        this.env.host.createSpill(`${call.request.id}.txt`, this.env.config.tool_output.max_spill_bytes),
      );
      output = capped.text;
      truncated = capped.truncated;
      if (capped.spillPath !== undefined) metadata = { ...metadata, fullOutputPath: capped.spillPath };
    }
    const hookCall: HookCall = {
      sessionId: turn.sessionId,
      callId: call.request.id,
      tool: call.tool.name,
      arguments: call.args,
      declarations: call.declarations,
    };
    await this.hooks.afterCall(hookCall, { outcome: outcome.kind, output }, signal).catch((error: unknown) => {
      this.emit(turn, {
        type: 'notice',
        level: 'warning',
        text: `post-tool hooks for call ${call.request.id} failed: ${describeError(error)}`,
      });
    });
    const finishedAt = Date.now();
    return {
      result: {
        callId: call.request.id,
        tool: call.tool.name,
        outcome,
        output,
        truncated,
        attempt: start.attempt,
        ...(metadata !== undefined ? { metadata } : {}),
      },
      start,
      started: true,
      finishedAt,
      durationMs: finishedAt - began,
    };
  }

  /** Records a call's one outcome and announces it. A ledger failure is reported, never thrown. */
  private async persist(turn: Turn, call: SettledCall): Promise<void> {
    const { result } = call;
    const category = result.outcome.kind === 'blocked' ? result.outcome.category : undefined;
    const finish: CallFinish = {
      sessionId: turn.sessionId,
      callId: result.callId,
      outcome: result.outcome.kind,
      ...(category !== undefined ? { category } : {}),
      output: result.output,
      truncated: result.truncated,
      attempt: result.attempt,
      finishedAt: call.finishedAt,
      durationMs: call.durationMs,
      ...(result.metadata !== undefined ? { metadata: result.metadata } : {}),
    };
    try {
      if (call.started) await this.ledger.recordFinish(finish);
      else await this.ledger.recordBlocked(call.start, finish);
    } catch (error) {
      this.emit(turn, {
        type: 'notice',
        level: 'error',
        text: `The outcome of call ${result.callId} (${result.tool}: ${result.outcome.kind}) could not be persisted: ${describeError(error)}`,
      });
    }
    this.emit(turn, {
      type: 'tool-call-finished',
      call_id: result.callId,
      tool: result.tool,
      outcome: result.outcome.kind,
      ...(category !== undefined ? { category } : {}),
      duration_ms: call.durationMs,
      truncated: result.truncated,
      ...(typeof result.metadata?.exitCode === 'number' ? { exit_code: result.metadata.exitCode } : {}),
    });
  }
}
