/**
 * The tool contract (SPEC T1–T3). A tool is one object: its model-facing name, description and
 * zod schema, its three declarations, the subjects permission rules match against, and its run
 * function. `defineTool` owns validation and the JSON Schema the model sees, so no tool
 * repeats them.
 */
import { z } from 'zod';
import { completeDeclarations, type Declarations } from './declarations';
import type { ZunoConfig } from './config';
import type { FileChange, Host } from './host';
import type { OutputCapture } from './output';
import type { MemoryBook, WorkStateStore } from './work-state';
import type { SessionHistory } from './history';
import type { BackgroundJobs } from './background';
import type { PathVisibility } from './policy';
import type { Council, Delegator } from './delegation';

/** A path argument as the scheduler resolved it before the call ran (SPEC §9, issue 8 item 4). */
export interface CheckedPath {
  /** The path exactly as the tool's argument gave it: the key in `ToolContext.paths`. */
  readonly argument: string;
  /** Made absolute against the workspace root; symlinks not resolved. */
  readonly absolute: string;
  /** Every symlink resolved: where the file is, or where a new file would land. The host re-verifies it when it opens it. */
  readonly real: string;
  readonly outsideWorkspace: boolean;
  /** For messages: relative to the workspace when inside it, else the real path. */
  readonly display: string;
}

/**
 * The path arguments of an approved call, by argument as given. The policy was evaluated once,
 * on exactly these real paths: one outside the workspace is here only because a permission rule
 * named it (and, when the rule asked, the user approved). Tools use these and never resolve a
 * path argument again nor consult the policy.
 */
export type CheckedPaths = ReadonlyMap<string, CheckedPath>;

/** What a permission rule's `match` glob is tested against (SPEC §9). */
export interface CallSubject {
  readonly kind: 'path' | 'command' | 'url' | 'name';
  /** For paths: absolute, with symlinks resolved. */
  readonly value: string;
  /** Paths only: true when the real path lies outside the workspace (symlinks count). */
  readonly outsideWorkspace?: boolean;
  /** Paths from a tool argument: how it was resolved; handed to the tool in `ToolContext.paths` once the call is allowed. */
  readonly resolved?: CheckedPath;
}

/** The checked paths of a call, from its subjects. */
export function checkedPathsOf(subjects: readonly CallSubject[]): CheckedPaths {
  return new Map(subjects.flatMap((subject) => (subject.resolved ? [[subject.resolved.argument, subject.resolved] as const] : [])));
}

/** Where a call is resolved, before it runs. */
export interface CallEnvironment {
  readonly host: Host;
  readonly config: ZunoConfig;
  readonly workspaceRoot: string;
  /** The store's state dir; the policy denies any side-effecting call that touches it (issue 8 §3). */
  readonly stateDir?: string;
  /** Per-session plan, todos and goal; absent where nothing persists them (the tools are then unavailable). */
  readonly workState?: WorkStateStore;
  /** Present only when `memory.enabled` is set (memory_propose). */
  readonly memories?: MemoryBook;
  /** The workspace's past sessions (session_search, session_read); absent where nothing is stored. */
  readonly history?: SessionHistory;
  /** Background commands and delegated jobs of the runtime (shell `background`, bg, job, task `background`). */
  readonly background?: BackgroundJobs;
  /** Runs child agents (task). Absent inside a child: delegated agents do not delegate further. */
  readonly delegation?: Delegator;
  /** Asks the configured council (council_run); absent where no model can be reached. */
  readonly council?: Council;
}

/** The scheduler's answer for a subject a tool discovered while running (a redirect's target). */
export interface Authorization {
  readonly action: 'allow' | 'ask' | 'deny';
  /** Why, in the words of the policy: the rule, or the effect class and mode. */
  readonly reason: string;
  /** True when a rule whose `match` glob names this subject decided, not a bare rule or the mode. */
  readonly byNamingRule: boolean;
}

/** What a running tool may use. Everything is passed in; there is no ambient context. */
export interface ToolContext extends CallEnvironment {
  readonly callId: string;
  readonly sessionId: string;
  /** 1 for the first attempt; Safe tools may be attempted again after a transient failure. */
  readonly attempt: number;
  readonly signal: AbortSignal;
  /** Live output for people watching (terminal, webview). It is not the result. */
  readonly progress: (chunk: string) => void;
  /** A bounded capture for streamed output, spilled in full to a file when it overflows. */
  readonly captureOutput: () => OutputCapture;
  /**
   * What deny rules hide from this call (issue 8 §5), derived by the scheduler from the policy:
   * search and listing tools leave hidden paths out of what they return and say how many.
   */
  readonly visibility: PathVisibility;
  /** Text the user edited in the diff preview before approving, by absolute path. */
  readonly approvedEdits?: Readonly<Record<string, string>>;
  /**
   * Evaluates the permission rules for a subject met while running, with this call's tool and
   * declarations, so a tool never calls the policy itself. It cannot ask the user mid-call: on
   * `deny` or `ask` the tool throws a BlockedError naming the subject.
   */
  readonly authorize: (subject: CallSubject) => Promise<Authorization>;
  /** The call's path arguments, resolved and checked by the scheduler (see CheckedPaths). */
  readonly paths: CheckedPaths;
}

export interface ToolResult {
  /** What the model reads. */
  readonly output: string;
  /**
   * `ok` unless said otherwise. `error`: the tool ran and failed. `indeterminate`: an effect may
   * have happened (for example a command that timed out) and must not be retried (SPEC R3).
   */
  readonly status?: 'ok' | 'error' | 'indeterminate';
  /** Structured details for clients: exit code, files touched, counts. */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** True when the tool applied the output caps itself (via `captureOutput`). */
  readonly truncated?: boolean;
}

export interface ToolSpec<TSchema extends z.ZodType> {
  readonly name: string;
  /** Model-facing: what the tool does, when to use it, and what it returns. */
  readonly description: string;
  readonly parameters: TSchema;
  /** Static, or classified per call from the validated arguments (T3). Omitted values are strictest (T2). */
  readonly declarations?: Partial<Declarations> | ((args: z.output<TSchema>) => Partial<Declarations>);
  /** The subjects permission rules match against. */
  readonly subjects?: (args: z.output<TSchema>, env: CallEnvironment) => Promise<readonly CallSubject[]>;
  /** Returns why the tool cannot be offered here, or undefined when it can. */
  readonly unavailableReason?: (env: CallEnvironment) => string | undefined;
  /** Proposed file contents, for the diff-preview approval of writes and patches. */
  readonly preview?: (args: z.output<TSchema>, env: CallEnvironment) => Promise<readonly FileChange[]>;
  readonly run: (args: z.output<TSchema>, context: ToolContext) => Promise<ToolResult>;
}

export type JsonSchema = Readonly<Record<string, unknown>>;

export type ParseResult = { readonly success: true; readonly args: unknown } | { readonly success: false; readonly error: string };

/** A tool with its argument type erased, as the registry and the scheduler hold it. */
export interface Tool {
  readonly name: string;
  readonly description: string;
  /** The JSON Schema the model sees, generated from the zod schema. */
  readonly inputSchema: JsonSchema;
  parse(raw: unknown): ParseResult;
  declarationsFor(args: unknown): Declarations;
  subjectsFor(args: unknown, env: CallEnvironment): Promise<readonly CallSubject[]>;
  unavailableReason(env: CallEnvironment): string | undefined;
  readonly hasPreview: boolean;
  preview(args: unknown, env: CallEnvironment): Promise<readonly FileChange[]>;
  run(args: unknown, context: ToolContext): Promise<ToolResult>;
  /** Added to the approval's reason: what the tool's author claims about it (an MCP server's annotations, issue 11). */
  readonly approvalNote?: string | undefined;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? issue.path.join('.') : 'arguments';
      return `${where}: ${issue.message}`;
    })
    .join('; ');
}

/**
 * The JSON Schema the model reads, from the zod schema. `z.int()` bounds every integer by the
 * safe-integer range, which says nothing to a model and costs tokens in every request: those
 * bounds are dropped, and only limits a tool chose itself remain.
 */
function toolInputSchema(parameters: z.ZodType): JsonSchema {
  return z.toJSONSchema(parameters, {
    io: 'input',
    unrepresentable: 'any',
    override: ({ jsonSchema }) => {
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
    },
  });
}

export function defineTool<TSchema extends z.ZodType>(spec: ToolSpec<TSchema>): Tool {
  // Arguments come from a model: the schema must be parsed again at each call, and `args` below
  // is only ever the output of that parse, which is why the casts are sound.
  type Args = z.output<TSchema>;
  const inputSchema = toolInputSchema(spec.parameters);
  return {
    name: spec.name,
    description: spec.description,
    inputSchema,
    parse(raw) {
      const result = spec.parameters.safeParse(raw);
      return result.success ? { success: true, args: result.data } : { success: false, error: describeIssues(result.error) };
    },
    declarationsFor(args) {
      const declared = typeof spec.declarations === 'function' ? spec.declarations(args as Args) : spec.declarations;
      return completeDeclarations(declared);
    },
    async subjectsFor(args, env) {
      return spec.subjects ? spec.subjects(args as Args, env) : [];
    },
    unavailableReason(env) {
      return spec.unavailableReason?.(env);
    },
    hasPreview: spec.preview !== undefined,
    async preview(args, env) {
      return spec.preview ? spec.preview(args as Args, env) : [];
    },
    run(args, context) {
      return spec.run(args as Args, context);
    },
  };
}
