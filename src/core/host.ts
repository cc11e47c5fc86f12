/**
 * The world as the runtime sees it. Tools never touch the file system, processes, the network or
 * the user directly: they go through a Host. `src/hosts/node` implements it for the CLI and the
 * tests; `src/hosts/vscode` implements it inside the editor (diff previews, terminal, webview).
 */
import type { Declarations } from './declarations';
import type { PermissionRule } from './config';

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
  /** Temp file beside the target, then rename: a reader sees the old or the new file, never half. */
  writeFileAtomic(path: string, data: Uint8Array): Promise<void>;
  /** Creates the directory and its parents; no error if it exists. */
  mkdir(path: string): Promise<void>;
  /** Removes a file (or an empty directory); no error if it is already gone. */
  remove(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
}

export type OutputStream = 'stdout' | 'stderr';

export interface ProcessSpec {
  /** The executable, or a whole command line when `shell` is true. */
  readonly command: string;
  readonly args?: readonly string[];
  readonly shell?: boolean;
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Written to stdin, which is then closed. Without it stdin is closed from the start. */
  readonly stdin?: string;
  readonly timeoutMs?: number;
  /** Aborting kills the whole process group. */
  readonly signal?: AbortSignal;
  /** Decoded output in arrival order; UTF-8 split across chunks is reassembled. */
  readonly onOutput?: (chunk: string, stream: OutputStream) => void;
  /** What a terminal mirror shows as the command; defaults to the command line. */
  readonly display?: string;
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
  | { readonly answered: true; readonly selected: readonly string[]; readonly text?: string }
  | { readonly answered: false };

export interface QuestionGateway {
  ask(request: QuestionRequest, signal: AbortSignal): Promise<QuestionAnswer>;
}

/** Receives the full text of an output that was too large to return; the model may read it. */
export interface SpillFile {
  readonly path: string;
  write(chunk: string): void;
  close(): Promise<void>;
}

export interface RipgrepBinary {
  readonly path: string;
  readonly version: string;
}

export interface Host {
  /** `node` for the CLI and tests, `vscode` inside the editor. */
  readonly kind: 'node' | 'vscode';
  readonly fs: HostFileSystem;
  readonly processes: ProcessRunner;
  readonly approvals: ApprovalGateway;
  /** Absent where no person can answer (a CLI without a TTY): the question tool is then not offered. */
  readonly questions?: QuestionGateway;
  /** HTTP for webfetch and web_search; the global fetch in both hosts, replaceable in tests. */
  readonly fetch: typeof fetch;
  /** Opens a file under the state dir to hold a large output in full. */
  createSpill(name: string): Promise<SpillFile>;
  /** Resolves and checks ripgrep (SPEC S4). Rejects with a StartupError when missing or older than 14. */
  ripgrep(): Promise<RipgrepBinary>;
}
