/**
 * The world as the runtime sees it. Tools never touch the file system, processes, the network or
 * the user directly: they go through a Host. `src/hosts/node` implements it for the CLI and the
 * tests; `src/hosts/vscode` implements it inside the editor (diff previews, terminal, webview).
 */
import type { Declarations } from './declarations';
import type { PermissionRule } from './config';
import type { SandboxPlan, SandboxSupport } from './sandbox';
import type { ShellAnalyzer } from './shell/analysis';

export type FileType = 'file' | 'directory' | 'symlink' | 'other';

export interface FileStat {
  readonly type: FileType;
  readonly size: number;
  readonly mtimeMs: number;
}

export interface DirectoryEntry {
  readonly name: string;
  readonly type: FileType;
}

/**
 * Two kinds of paths reach the file system. Plain reads (`readFile`, `readStream`,
 * `readDirectory`, `stat`) take any absolute path and follow symlinks. Everything that changes
 * the disk, and the `…Checked` reads, take a checked real path: what the scheduler resolved (every
 * symlink resolved) and the policy allowed, handed to tools as `ToolContext.paths`. The host
 * re-verifies such a path when it opens it (final component not followed, the descriptor proven
 * to be that path) so a swap cannot redirect it; when the path now holds a symlink anywhere, the
 * operation fails with a ToolError saying the path changed and nothing was read or written.
 */
export interface HostFileSystem {
  /** Follows symlinks. `undefined` when nothing exists at the path. */
  stat(path: string): Promise<FileStat | undefined>;
  /** Does not follow a final symlink. `undefined` when nothing exists at the path. */
  lstat(path: string): Promise<FileStat | undefined>;
  /**
   * Resolves every symlink. For a path that does not exist yet, resolves its nearest existing
   * ancestor and appends the rest, so containment checks see where a new file would really land.
   */
  realpath(path: string): Promise<string>;
  readFile(path: string): Promise<Uint8Array>;
  /** Streams a file in chunks, so a huge file is never held whole. */
  readStream(path: string, signal?: AbortSignal): AsyncIterable<Uint8Array>;
  readDirectory(path: string): Promise<DirectoryEntry[]>;
  /** `readFile` of a checked real path, verified at open. */
  readFileChecked(path: string): Promise<Uint8Array>;
  /** `readStream` of a checked real path, verified at open. */
  readStreamChecked(path: string, signal?: AbortSignal): AsyncIterable<Uint8Array>;
  /** `readDirectory` of a checked real path, verified at open. */
  readDirectoryChecked(path: string): Promise<DirectoryEntry[]>;
  /**
   * Checked real path. Temp file in the verified directory, then rename there: a reader sees the
   * old or the new file, never half. Missing parents are created without following symlinks; an
   * existing file's mode is kept; the data is fsynced before the rename.
   */
  writeFileAtomic(path: string, data: Uint8Array): Promise<void>;
  /** Checked real path. Creates the directory and its parents, never through a symlink; no error if it exists. */
  mkdir(path: string): Promise<void>;
  /** Checked real path. Removes a file (or an empty directory); no error if it is already gone. */
  remove(path: string): Promise<void>;
  /** Checked real paths, both parents verified. */
  rename(from: string, to: string): Promise<void>;
}

export interface HostFetchInit extends RequestInit {
  /**
   * The address connected to may be link-local or cloud-metadata (core/addresses.ts): set only
   * when a rule naming the URL allows it. Checked on the resolution the connection uses, so a
   * name answering differently the second time (DNS rebinding) cannot reach one.
   */
  readonly allowMetadataAddresses?: boolean;
}

export type HostFetch = (input: string | URL, init?: HostFetchInit) => Promise<Response>;

export type OutputStream = 'stdout' | 'stderr';

export interface ProcessSpec {
  /** The executable, or a whole command line when `shell` is true. */
  readonly command: string;
  readonly args?: readonly string[];
  readonly shell?: boolean;
  readonly cwd: string;
  /**
   * `cwd` is a checked real path (issue 8 item 4): the host opens it without following a symlink
   * anywhere, proves the descriptor is that folder, and starts the child in the opened folder
   * itself (on Linux through `/proc/<pid>/fd/N`, never by name again), so a folder swapped for a
   * symlink cannot move the child elsewhere. Where no such path exists the folder is verified by
   * identity before and after the start, failing closed. A changed path rejects with a ToolError
   * saying so. Children that walk below `cwd` must not follow symlinks themselves (rg does not).
   */
  readonly verifiedCwd?: boolean;
  /**
   * Laid over the environment the host gives every child: the user's, with secrets dropped
   * (core/environment.ts). It cannot bring a dropped variable back from the user's environment.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Written to stdin, which is then closed. Without it stdin is closed from the start. */
  readonly stdin?: string;
  readonly timeoutMs?: number;
  /** Aborting kills the whole process group. */
  readonly signal?: AbortSignal;
  /**
   * Joins stderr to stdout inside the child (one pipe for both), so the output keeps the exact
   * order of the writes; everything then arrives as `stdout`. Separate pipes can only be
   * interleaved in the order the parent happens to read them.
   */
  readonly mergeStderr?: boolean;
  /** Decoded output in arrival order; UTF-8 split across chunks is reassembled. */
  readonly onOutput?: (chunk: string, stream: OutputStream) => void;
  /** What a terminal mirror shows as the command; defaults to the command line. */
  readonly display?: string;
  /**
   * Run inside this sandbox (issue 12). The runner fails closed: when it cannot apply the plan it
   * rejects and runs nothing. Callers check `Host.sandbox` first and leave this out, saying so,
   * when the sandbox is unavailable.
   */
  readonly sandbox?: SandboxPlan;
}

export interface ProcessResult {
  /** `null` when the process was killed by a signal. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  readonly durationMs: number;
}

export interface ProcessRunner {
  /**
   * Runs to completion. Completion means the process exited, not that its pipes closed: a daemon
   * child that keeps stdout open does not hang the call.
   */
  run(spec: ProcessSpec): Promise<ProcessResult>;
}

/** A proposed change to one file, shown to the user before approval (diff preview). */
export interface FileChange {
  readonly path: string;
  readonly kind: 'create' | 'update' | 'delete' | 'move';
  /** Current text; `undefined` for a new file. */
  readonly before: string | undefined;
  /** Proposed text; `undefined` for a deletion. */
  readonly after: string | undefined;
  readonly movedTo?: string;
}

export interface ApprovalRequest {
  readonly callId: string;
  readonly sessionId: string;
  readonly tool: string;
  readonly arguments: unknown;
  readonly declarations: Declarations;
  /** The call's main subject (path, command line, URL) when it has one. */
  readonly subject?: string;
  /** Why the user is asked: the mode, or the rule that said `ask`. */
  readonly reason: string;
  /** Proposed file contents for write, apply_patch and edit. */
  readonly changes?: readonly FileChange[];
  /** Set when the call comes from a delegated child agent. */
  readonly origin?: { readonly parentCallId: string; readonly agent: string };
}

export type ApprovalDecision =
  | {
      readonly approved: true;
      /** Text the user edited in the diff preview, by path; that text is what lands. */
      readonly editedContents?: Readonly<Record<string, string>>;
      /** "Allow like this": a visible rule the host has written into the user's settings. */
      readonly addedRule?: PermissionRule;
    }
  | { readonly approved: false; readonly reason?: string };

export interface ApprovalGateway {
  request(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
  /**
   * The gateway shows several pending approvals at once (the editor's cards, with "Approve all N"),
   * so the scheduler asks every approval of a turn before awaiting the answers. Without it (a
   * terminal prompt) they are asked one at a time.
   */
  readonly showsTogether?: boolean;
}

export interface QuestionRequest {
  readonly callId: string;
  readonly sessionId: string;
  readonly question: string;
  readonly options?: readonly string[];
  readonly multiple?: boolean;
  readonly allowFreeText?: boolean;
}

export type QuestionAnswer =
  { readonly answered: true; readonly selected: readonly string[]; readonly text?: string } | { readonly answered: false };

export interface QuestionGateway {
  ask(request: QuestionRequest, signal: AbortSignal): Promise<QuestionAnswer>;
}

/** Receives the full text of an output that was too large to return; the model may read it. */
export interface SpillFile {
  readonly path: string;
  write(chunk: string): void;
  close(): Promise<void>;
}

/** A task the workspace defines (an npm script, a tasks.json task), as `execute` offers it. */
export interface WorkspaceTask {
  /** What `execute` is called with: `npm: test` for a package.json script, the label for a tasks.json task. */
  readonly name: string;
  /** Where it is defined, for people: `package.json`, `.vscode/tasks.json`. */
  readonly source: string;
  /** What it runs, for people and approval prompts. */
  readonly command: string;
  /** Set when the task exists but this host cannot run it, saying why. */
  readonly unsupported?: string;
}

export interface WorkspaceTaskRun {
  readonly timeoutMs: number;
  /** The sandbox the task runs in, as shell commands do (issue 12). */
  readonly sandbox?: SandboxPlan;
  /** Aborting kills the task's whole process group. */
  readonly signal: AbortSignal;
  /** Output in arrival order, stderr merged into stdout. */
  readonly onOutput: (chunk: string) => void;
}

/**
 * The workspace's named tasks (the `execute` slot, SPEC S3). The CLI host reads package.json
 * scripts and .vscode/tasks.json; the editor host may use vscode.tasks instead.
 */
export interface WorkspaceTaskList {
  readonly tasks: readonly WorkspaceTask[];
  /** Definitions that could not be read (a malformed tasks.json), one line each: reported, not fatal. */
  readonly problems: readonly string[];
}

export interface WorkspaceTasks {
  list(workspaceRoot: string): Promise<WorkspaceTaskList>;
  /** Runs a task that `list` returned, to completion. */
  run(task: WorkspaceTask, workspaceRoot: string, options: WorkspaceTaskRun): Promise<ProcessResult>;
}

export interface RipgrepBinary {
  readonly path: string;
  readonly version: string;
}

/** A place in a source file. Lines and characters count from 1, as the read tool numbers lines. */
export interface SourceRange {
  readonly path: string;
  readonly line: number;
  readonly character: number;
  readonly endLine: number;
  readonly endCharacter: number;
}

export interface SourceSymbol {
  readonly name: string;
  /** e.g. `Function`, `Class`, `Method`. */
  readonly kind: string;
  readonly detail?: string;
  readonly line: number;
  readonly endLine: number;
  /** Nesting depth in the outline, 0 for top-level symbols. */
  readonly depth: number;
}

export interface SourceDiagnostic {
  readonly path: string;
  readonly line: number;
  readonly character: number;
  readonly severity: 'error' | 'warning' | 'information' | 'hint';
  readonly message: string;
  readonly source?: string;
  readonly code?: string;
}

/**
 * The editor's language intelligence, for the `lsp` tool (SPEC S3): whatever language servers
 * the editor runs. Only the VS Code host has it; the tool is unavailable elsewhere.
 */
export interface LanguageFeatures {
  definition(path: string, line: number, character: number, signal: AbortSignal): Promise<readonly SourceRange[]>;
  references(path: string, line: number, character: number, signal: AbortSignal): Promise<readonly SourceRange[]>;
  /** The hover text (markdown) at a position; empty when there is none. */
  hover(path: string, line: number, character: number, signal: AbortSignal): Promise<readonly string[]>;
  symbols(path: string, signal: AbortSignal): Promise<readonly SourceSymbol[]>;
  /** The diagnostics the editor holds now, for files at or below `path`. */
  diagnostics(path: string, signal: AbortSignal): Promise<readonly SourceDiagnostic[]>;
}

export interface Host {
  /** `node` for the CLI and tests, `vscode` inside the editor. */
  readonly kind: 'node' | 'vscode';
  readonly fs: HostFileSystem;
  readonly processes: ProcessRunner;
  readonly approvals: ApprovalGateway;
  /** Absent where no person can answer (a CLI without a TTY): the question tool is then not offered. */
  readonly questions?: QuestionGateway;
  /**
   * HTTP for webfetch and web_search; never follows a redirect by itself when asked for `manual`.
   * The node host (also under the editor) refuses to connect to a link-local or cloud-metadata
   * address unless `allowMetadataAddresses` (issue 8 item 6); tests may replace it.
   */
  readonly fetch: HostFetch;
  /**
   * The addresses a host name resolves to (every A and AAAA record the system resolver gives),
   * so webfetch can refuse a name that points at a metadata address. Rejects when it does not resolve.
   */
  resolveAddresses(hostname: string): Promise<readonly string[]>;
  /**
   * Opens a file under the state dir to hold a large output in full. With `maxBytes` it stops
   * growing there, keeping the head and the tail with a marker between (issue 12).
   */
  createSpill(name: string, maxBytes?: number): Promise<SpillFile>;
  /** Whether commands can be sandboxed here (issue 12); absent on a host that never can. */
  readonly sandbox?: SandboxSupport;
  /** The workspace's named tasks for `execute`; absent where the host has none. */
  readonly tasks?: WorkspaceTasks;
  /** The user-level Zuno folder (`~/.zuno`): user skills live in its `skills/`. */
  readonly userDirectory?: string;
  /**
   * The user's Zuno config folder (`$XDG_CONFIG_HOME/zuno`, else `~/.config/zuno`): the user's own
   * `AGENTS.md` there is added to every session's instructions (issue 10 item 3).
   */
  readonly userConfigDirectory?: string;
  /** Resolves and checks ripgrep (SPEC S4). Rejects with a StartupError when missing or older than 14. */
  ripgrep(): Promise<RipgrepBinary>;
  /**
   * The bash-grammar analyzer that permission rules read command lines with (issue 8, E1 §9).
   * Loaded on first use, once per process; rejects with a message saying what to do when the
   * grammar cannot be loaded.
   */
  shellAnalyzer(): Promise<ShellAnalyzer>;
  /** Language servers' answers (the editor only); without it the `lsp` tool is not offered. */
  readonly languageFeatures?: LanguageFeatures;
}
