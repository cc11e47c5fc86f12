/**
 * Where a workspace's state lives (issue 9, "State outside the workspace"): a per-user directory
 * keyed by the workspace's real path, so that `grep` over the workspace, the Explorer and
 * `git status` never see the journal, and the CLI and the editor find the same store for the
 * same folder. Pure: the platform, the environment and the home directory are passed in, so all
 * three operating systems are tested on any of them.
 */
import { createHash } from 'node:crypto';
import { posix, win32 } from 'node:path';

export interface StateLocationInput {
  /** The workspace's real path (symlinks resolved): two spellings of one folder share one store. */
  readonly workspaceRoot: string;
  readonly platform: NodeJS.Platform;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home: string;
  /**
   * A folder to keep every workspace's state in instead of the platform's (the machine-scoped
   * setting `zuno.stateDir`); the workspace's own directory is made inside it.
   */
  readonly root?: string;
}

/** Longest `<name>` kept from the basename; the hash already makes the directory unique. */
const MAX_NAME_LENGTH = 40;

/**
 * The basename as a portable folder name: only letters, digits, `.`, `_` and `-` (no separators,
 * no characters Windows forbids), no leading dot (not hidden, never `.` or `..`).
 */
export function sanitizedName(basename: string): string {
  const name = basename
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, MAX_NAME_LENGTH)
    .replace(/[._]+$/, '');
  return name === '' ? 'workspace' : name;
}

/** The first 16 hex digits of the sha256 of the real path: short, and collisions are out of reach. */
export function workspaceHash(realPath: string): string {
  return createHash('sha256').update(realPath, 'utf8').digest('hex').slice(0, 16);
}

/** The folder that holds every workspace's state directory on this platform. */
export function stateRoot(input: Omit<StateLocationInput, 'workspaceRoot'>): string {
  const { platform, env, home } = input;
  if (input.root !== undefined) return input.root;
  if (platform === 'win32') {
    const local = env.LOCALAPPDATA;
    return win32.join(local !== undefined && win32.isAbsolute(local) ? local : win32.join(home, 'AppData', 'Local'), 'Zuno');
  }
  if (platform === 'darwin') return posix.join(home, 'Library', 'Application Support', 'Zuno');
  // The XDG spec: a relative XDG_STATE_HOME is invalid and must be ignored.
  const xdg = env.XDG_STATE_HOME;
  return posix.join(xdg !== undefined && posix.isAbsolute(xdg) ? xdg : posix.join(home, '.local', 'state'), 'zuno');
}

/**
 * `<root>/workspaces/<name>-<hash>`: `$XDG_STATE_HOME/zuno/…` (default `~/.local/state`) on
 * Linux, `~/Library/Application Support/Zuno/…` on macOS, `%LOCALAPPDATA%\Zuno\…` on Windows.
 */
export function defaultStateDir(input: StateLocationInput): string {
  const path = input.platform === 'win32' ? win32 : posix;
  const folder = `${sanitizedName(path.basename(input.workspaceRoot))}-${workspaceHash(input.workspaceRoot)}`;
  return path.join(stateRoot(input), 'workspaces', folder);
}

/** Where state lived before issue 9, inside the workspace; migrated on first open (see src/store/relocate.ts). */
export function legacyStateDir(workspaceRoot: string, platform: NodeJS.Platform): string {
  return (platform === 'win32' ? win32 : posix).join(workspaceRoot, '.zuno', 'state');
}
