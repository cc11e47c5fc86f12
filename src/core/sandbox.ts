/**
 * The shell sandbox as data (issue 12): what a sandboxed command may write, read and reach,
 * decided from the config without touching the world. The host turns a plan into a mechanism
 * (bubblewrap on Linux, Seatbelt on macOS) and says when it cannot; this module also words what
 * the model and the user are told, so every surface says the same thing.
 */
import type { ZunoConfig } from './config';

export const SANDBOX_MODES = ['workspace-write', 'read-only', 'off'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** Folders inside the workspace that run code or govern Zuno: never writable from a sandboxed command. */
export const READ_ONLY_WORKSPACE_ENTRIES: readonly string[] = ['.git', '.zuno', '.vscode'];

/**
 * Paths below the user's home that hold credentials: not mounted at all, so a command can
 * neither read nor change them. Relative to the home folder.
 */
export const HOME_SECRETS: readonly string[] = [
  '.ssh',
  '.aws',
  '.azure',
  '.gnupg',
  '.kube',
  '.docker',
  '.config/gh',
  '.config/gcloud',
  '.netrc',
  '.git-credentials',
  '.npmrc',
  '.pypirc',
];

/** What one sandboxed command may do. Paths are absolute. */
export interface SandboxPlan {
  readonly mode: Exclude<SandboxMode, 'off'>;
  /** Writable in `workspace-write` (the workspace and `sandbox.writable`); empty in `read-only`. */
  readonly writable: readonly string[];
  /**
   * The globs of `sandbox.writable`, absolute: writable too, as what matches when a command
   * starts (the host expands them, and keeps out what `globMatchAllowed` refuses).
   */
  readonly writableGlobs: readonly string[];
  /** Kept read-only even below a writable path (the workspace's `.git`, `.zuno`, `.vscode`). */
  readonly readOnly: readonly string[];
  /** Not mounted at all: the store's state dir and the home secrets. */
  readonly hidden: readonly string[];
  readonly network: boolean;
  /** The most processes the command may have at once; 0 for no limit. */
  readonly maxProcesses: number;
  /** `sandbox.bwrap_path`, when configured: the bubblewrap to use instead of the one on PATH. */
  readonly bwrapPath?: string;
}

/** Whether the host can sandbox commands, and why not when it cannot. */
export type SandboxAvailability =
  | { readonly available: true; readonly mechanism: 'bubblewrap' | 'seatbelt'; readonly detail: string }
  | {
      readonly available: false;
      /** What is missing or refused, e.g. `bwrap was not found on PATH`. */
      readonly reason: string;
      /** What the user can do about it, in the words of the settings. */
      readonly fix: string;
    };

/** The host's side of the sandbox: detection, probed once and cached per bubblewrap path. */
export interface SandboxSupport {
  availability(bwrapPath?: string): Promise<SandboxAvailability>;
  /** The user's home folder, for `~/` in `sandbox.writable` and the home secrets. */
  readonly home?: string;
}

export interface PlanInput {
  readonly config: ZunoConfig;
  readonly workspaceRoot: string;
  readonly stateDir?: string;
  /** The user's home folder, for `~/` in `sandbox.writable` and the home secrets; absent when unknown. */
  readonly home?: string;
}

const trimSlashes = (path: string): string => path.replace(/\\/g, '/').replace(/(.)\/+$/, '$1');

function joinPath(base: string, relative: string): string {
  return `${trimSlashes(base)}/${relative.replace(/^\.\//, '')}`.replace(/\/+/g, '/');
}

/** `~/x` against the home, a relative path against the workspace, an absolute one as is. */
export function resolveWritable(entry: string, workspaceRoot: string, home: string | undefined): string | undefined {
  if (entry === '~' || entry.startsWith('~/'))
    return home === undefined ? undefined : entry === '~' ? trimSlashes(home) : joinPath(home, entry.slice(2));
  if (entry.startsWith('/') || /^[A-Za-z]:[\\/]/.test(entry)) return trimSlashes(entry);
  return joinPath(workspaceRoot, entry);
}

/** Whether a `sandbox.writable` entry is a glob (the path glob dialect of src/core/glob.ts). */
export const isGlobEntry = (entry: string): boolean => /[*?[\]{}]/.test(entry);

/**
 * The folder a glob's matches all lie in: its segments before the first one with a wildcard.
 * `/home/dev/.cache/*` → `/home/dev/.cache`; the rest is matched against paths relative to it.
 */
export function splitGlob(pattern: string): { readonly base: string; readonly rest: string } {
  const segments = pattern.split('/');
  const first = segments.findIndex((segment) => isGlobEntry(segment) || segment.includes('\\'));
  const cut = first === -1 ? segments.length : first;
  return { base: segments.slice(0, cut).join('/') || '/', rest: segments.slice(cut).join('/') };
}

const within = (path: string, folder: string): boolean => path === folder || path.startsWith(folder === '/' ? '/' : `${folder}/`);

/**
 * Whether a path a `sandbox.writable` glob matched may be made writable: never one that is, or
 * holds, a path the plan keeps read-only or hidden (so no glob makes a parent of the workspace's
 * .git, of the state dir or of ~/.ssh writable), nothing inside a hidden path, and nothing already
 * writable (a match inside the workspace adds nothing, and a concurrent command there could swap
 * it for a symlink before bwrap binds it). Paths are real (symlinks resolved).
 */
export function globMatchAllowed(match: string, plan: Pick<SandboxPlan, 'writable' | 'readOnly' | 'hidden'>): boolean {
  if ([...plan.readOnly, ...plan.hidden].some((kept) => within(kept, match))) return false;
  return ![...plan.hidden, ...plan.writable].some((folder) => within(match, folder));
}

/** The plan for one command, or undefined when `sandbox.mode` is `off`. */
export function planSandbox(input: PlanInput): SandboxPlan | undefined {
  const settings = input.config.sandbox;
  if (settings.mode === 'off') return undefined;
  const root = trimSlashes(input.workspaceRoot);
  const extra = settings.mode === 'workspace-write' ? settings.writable : [];
  const resolved = (entries: readonly string[]): string[] => entries.flatMap((entry) => resolveWritable(entry, root, input.home) ?? []);
  const writable = settings.mode === 'workspace-write' ? [root, ...resolved(extra.filter((entry) => !isGlobEntry(entry)))] : [];
  // Globs keep their backslashes (escapes), so they are joined as written.
  const home = input.home === undefined ? undefined : trimSlashes(input.home);
  // The config refuses `/*`, `~/*` and `*` by their look; this catches the same tops written out
  // (`/home/dev/*`), whose matches would include dotfiles such as ~/.bashrc.
  const tops = new Set(['/', root, ...(home !== undefined ? [home] : [])]);
  const writableGlobs = extra
    .filter(isGlobEntry)
    .flatMap((entry) => {
      if (entry.startsWith('~/')) return home === undefined ? [] : [`${home}/${entry.slice(2)}`];
      return entry.startsWith('/') ? [entry] : [`${root}/${entry.replace(/^\.\//, '')}`];
    })
    .filter((glob) => !tops.has(trimSlashes(splitGlob(glob).base.replace(/\/+/g, '/'))));
  const hidden = [
    ...(input.stateDir !== undefined ? [trimSlashes(input.stateDir)] : []),
    ...(input.home !== undefined ? HOME_SECRETS.map((secret) => joinPath(input.home ?? '', secret)) : []),
  ];
  return {
    mode: settings.mode,
    writable: [...new Set(writable)],
    writableGlobs: [...new Set(writableGlobs)],
    // In read-only mode the workspace is mounted read-only by name, so it is there even below the private /tmp.
    readOnly: [...(settings.mode === 'read-only' ? [root] : []), ...READ_ONLY_WORKSPACE_ENTRIES.map((entry) => joinPath(root, entry))],
    hidden,
    network: settings.network,
    maxProcesses: settings.max_processes,
    ...(settings.bwrap_path !== undefined ? { bwrapPath: settings.bwrap_path } : {}),
  };
}

/** `workspace-write, network off`: the plan in a few words, for results and the status bar. */
export function describePlan(plan: SandboxPlan): string {
  return `${plan.mode}, network ${plan.network ? 'on' : 'off'}`;
}

/** The line an unsandboxed result starts with; the model and the user both read it. */
export function unsandboxedLine(reason: string): string {
  return `[unsandboxed (${reason}): this command ran with your full permissions]`;
}

/**
 * The one-time notice when the user turned the sandbox off. Their own choice is said once (and
 * in the status bar), not on every result; a sandbox that cannot run is still said on each.
 */
export const SANDBOX_OFF_NOTICE =
  'Commands run unsandboxed because sandbox.mode is "off": each command runs with your full permissions. Set sandbox.mode to "workspace-write" to sandbox them again.';

/** The one-time notice when commands cannot be sandboxed. */
export function unavailableNotice(availability: Extract<SandboxAvailability, { available: false }>): string {
  return `Commands run unsandboxed: ${availability.reason}. ${availability.fix}`;
}

/** Why a `sandbox.required` call is blocked. */
export function requiredButUnavailable(availability: Extract<SandboxAvailability, { available: false }>): string {
  return (
    `sandbox.required is on, and the sandbox cannot be used here: ${availability.reason}. Nothing ran. ${availability.fix} ` +
    'Or turn sandbox.required off to run commands unsandboxed (each result then says so).'
  );
}

/** Messages a sandbox refusal leaves in a command's output, with what each means. */
const REFUSALS: readonly { readonly pattern: RegExp; readonly what: (plan: SandboxPlan) => string | undefined }[] = [
  {
    pattern: /read-only file system|EROFS/i,
    what: (plan) =>
      plan.mode === 'read-only'
        ? 'a write was refused: in read-only mode only the private temp dir is writable'
        : 'a write was refused: outside the workspace (and in its .git, .zuno and .vscode) nothing is writable',
  },
  {
    // A .git, .zuno or .vscode that did not exist is held by an empty read-only placeholder.
    pattern: /(\.git|\.zuno|\.vscode)\b[^\n]*(file exists|EEXIST)|(file exists|EEXIST)[^\n]*(\.git|\.zuno|\.vscode)\b/i,
    what: (plan) =>
      plan.mode === 'read-only'
        ? undefined
        : "the workspace's .git, .zuno and .vscode cannot be created or changed from the sandbox (where one does not exist, an empty read-only folder holds its place)",
  },
  {
    pattern: /permission denied|EACCES|EPERM|operation not permitted/i,
    what: () =>
      "an access was refused: the sandbox hides credentials (~/.ssh, ~/.aws, …) and Zuno's state, and allows writes only where configured",
  },
  {
    pattern:
      /connection refused|ECONNREFUSED|network is unreachable|ENETUNREACH|could not resolve|temporary failure in name resolution|EAI_AGAIN|ENOTFOUND|getaddrinfo/i,
    what: (plan) => (plan.network ? undefined : 'a connection failed: the network is off in the sandbox, loopback included'),
  },
];

/**
 * Says when a failed sandboxed command looks refused by the sandbox (issue 12, "escalation is
 * explicit"), with the way out; undefined when nothing in the output points at it.
 */
export function sandboxRefusalNote(output: string, plan: SandboxPlan): string | undefined {
  const found = REFUSALS.flatMap((refusal) => (refusal.pattern.test(output) ? [refusal.what(plan)] : [])).filter(
    (what): what is string => what !== undefined,
  );
  if (found.length === 0) return undefined;
  return (
    `[sandbox (${describePlan(plan)}): the failure looks like the sandbox refused it: ${found.join('; ')}. ` +
    'If the command really needs that, run it again with "sandbox": "off" (the user is asked to approve running it outside the sandbox), ' +
    'or the user can widen sandbox.writable or turn sandbox.network on.]'
  );
}

/** What the editor's status bar says about the sandbox: `sandbox: off (reason)` whenever commands run unsandboxed. */
export function sandboxStatus(
  config: ZunoConfig,
  availability: SandboxAvailability,
): { readonly text: string; readonly tooltip: string; readonly warning: boolean } {
  const settings = config.sandbox;
  if (settings.mode === 'off')
    return {
      text: 'sandbox: off (sandbox.mode)',
      tooltip: 'sandbox.mode is "off": commands run with your full permissions.',
      warning: true,
    };
  if (!availability.available) {
    const outcome = settings.required ? 'shell calls are blocked (sandbox.required)' : 'commands run unsandboxed';
    return {
      text: `sandbox: off (${availability.reason})`,
      tooltip: `The sandbox cannot be used: ${availability.reason}; ${outcome}. ${availability.fix}`,
      warning: true,
    };
  }
  return {
    text: `sandbox: ${settings.mode}`,
    tooltip: `Commands run in ${availability.mechanism}: ${settings.mode}, network ${settings.network ? 'on' : 'off'}.`,
    warning: false,
  };
}
