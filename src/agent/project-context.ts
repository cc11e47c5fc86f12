/**
 * What the system prompt says about the project and the machine (issue 10 item 3): the project's
 * instruction files (`AGENTS.md`, the cross-tool convention, plus `CLAUDE.md` and
 * `.github/copilot-instructions.md`, and the user's own `AGENTS.md`), and a short environment
 * block (OS, shell, date, workspace root, git branch).
 *
 * Everything is read through the Host's file system, so the editor and the CLI load the same
 * files. Instruction files are workspace content the model itself may have written: they go to
 * the model as instructions only and never reach the permission policy.
 *
 * The text must stay the same for a whole day (no time of day, nothing that changes per step), so
 * providers' prompt caching keeps matching the prefix.
 */
import { arch, release, type as osType } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { HostFileSystem } from '../core/host';

/** The file names looked for in each project directory, in this order. */
export const INSTRUCTION_FILE_NAMES: readonly string[] = ['AGENTS.md', 'CLAUDE.md', join('.github', 'copilot-instructions.md')];
/** Per file: a longer file is cut here, with a visible note. */
export const MAX_INSTRUCTION_FILE_BYTES = 32 * 1024;
/** All files together: files past it are named but not loaded. */
export const MAX_INSTRUCTION_BYTES = 64 * 1024;
/** How the session-start notice begins; `zuno show` finds the notice by it. */
export const INSTRUCTIONS_NOTICE_PREFIX = 'Project instructions loaded: ';

/** How many directories above the workspace root are searched for the repository root at most. */
const MAX_ANCESTORS = 64;

export interface InstructionFile {
  /** Absolute path as found (before symlinks). */
  readonly path: string;
  /** For people: relative to the workspace root for project files, absolute for the user's. */
  readonly label: string;
  readonly text: string;
  /** The file's size on disk. */
  readonly bytes: number;
  /** The bytes of it in `text`. */
  readonly includedBytes: number;
  /** Whether `text` holds less than the whole file. */
  readonly truncated: boolean;
}

export interface InstructionFiles {
  /** Nearest to the workspace root first, the user's file last. */
  readonly files: readonly InstructionFile[];
  /** Labels of files found but left out because the total cap was reached. */
  readonly skipped: readonly string[];
  /** Files that exist but could not be read, one line each (label and reason). */
  readonly problems: readonly string[];
}

export interface GitState {
  /** The directory holding `.git`: the workspace root or one of its ancestors. */
  readonly root: string;
  /** The branch HEAD names; `undefined` when HEAD is detached or unreadable. */
  readonly branch?: string;
  /** A short commit id when HEAD is detached. */
  readonly detachedAt?: string;
}

export interface EnvironmentFacts {
  /** e.g. `Linux 6.1.0 (x64)`. */
  readonly os: string;
  /** What the shell tool runs command lines with. */
  readonly shell: string;
  /** `YYYY-MM-DD`, local time. */
  readonly date: string;
  readonly workspaceRoot: string;
  /** `undefined` outside a git repository. */
  readonly git?: GitState;
}

export interface ProjectContext {
  readonly instructions: InstructionFiles;
  readonly environment: EnvironmentFacts;
}

export interface ProjectContextOptions {
  readonly fs: HostFileSystem;
  /** Absolute, symlinks resolved. */
  readonly workspaceRoot: string;
  /** The user's Zuno config folder (`$XDG_CONFIG_HOME/zuno`); its `AGENTS.md` is loaded last. */
  readonly userConfigDirectory?: string;
  readonly now: Date;
  /** Per-file and total caps in bytes; the defaults above when absent (tests use small ones). */
  readonly maxFileBytes?: number;
  readonly maxTotalBytes?: number;
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** `inner` is `outer` or below it. */
function isWithin(inner: string, outer: string): boolean {
  const path = relative(outer, inner);
  // On Windows, a path on another drive comes back absolute.
  return path === '' || (path !== '..' && !path.startsWith(`..${sep}`) && !isAbsolute(path));
}

/**
 * The nearest directory at or above the workspace root that holds `.git` (a folder with a HEAD,
 * or a worktree's file). An empty `.git`, such as the sandbox's placeholder (issue 12), is passed
 * over as git passes over it.
 */
async function findRepositoryRoot(fs: HostFileSystem, workspaceRoot: string): Promise<string | undefined> {
  let directory = workspaceRoot;
  for (let level = 0; level <= MAX_ANCESTORS; level++) {
    const dotGit = join(directory, '.git');
    const found = await fs.lstat(dotGit);
    if (found !== undefined && (found.type !== 'directory' || (await fs.lstat(join(dotGit, 'HEAD'))) !== undefined)) return directory;
    const parent = dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
  return undefined;
}

const decoder = new TextDecoder('utf-8');

async function readText(fs: HostFileSystem, path: string): Promise<string> {
  return decoder.decode(await fs.readFile(path));
}

/** Where HEAD points, read from the git directory (no git binary needed; a worktree's `.git` file is followed). */
async function readGitState(fs: HostFileSystem, root: string): Promise<GitState> {
  try {
    const dotGit = join(root, '.git');
    let gitDirectory = dotGit;
    if ((await fs.stat(dotGit))?.type === 'file') {
      const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(await readText(fs, dotGit))?.[1];
      if (pointer === undefined) return { root };
      gitDirectory = resolve(root, pointer);
    }
    const head = (await readText(fs, join(gitDirectory, 'HEAD'))).trim();
    const branch = /^ref:\s*refs\/heads\/(.+)$/.exec(head)?.[1];
    if (branch !== undefined) return { root, branch };
    if (/^[0-9a-f]{40,64}$/.test(head)) return { root, detachedAt: head.slice(0, 12) };
    return { root };
  } catch {
    // A repository whose HEAD cannot be read is still a repository; the branch is just unknown.
    return { root };
  }
}

/**
 * Reads at most `limit` bytes of a real path, cut back to a whole UTF-8 character, without holding
 * a huge file. The checked read refuses a path that became a symlink since it was resolved, so a
 * swap between the containment check and the read cannot bring in another file.
 */
async function readCapped(
  fs: HostFileSystem,
  realPath: string,
  limit: number,
): Promise<{ readonly text: string; readonly complete: boolean }> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of fs.readStreamChecked(realPath)) {
    chunks.push(chunk);
    length += chunk.length;
    if (length > limit) break;
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  if (length <= limit) return { text: decoder.decode(bytes), complete: true };
  // Back off over continuation bytes (10xxxxxx) so no character is split.
  let end = limit;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return { text: decoder.decode(bytes.subarray(0, end)), complete: false };
}

interface Candidate {
  readonly path: string;
  readonly label: string;
  /** A project file whose real path leaves this folder is not loaded (a symlink to a secret elsewhere). */
  readonly within?: string;
}

/**
 * Finds and reads the instruction files: in the workspace root, then in each folder above it up
 * to the repository root (nearest first, so the nearest win the budget), then the user's. Each
 * file is capped at `maxFileBytes`, all of them at `maxTotalBytes`. A file reached twice (a
 * `CLAUDE.md` that links to `AGENTS.md`) is loaded once. Never throws: unreadable files are
 * reported in `problems`.
 */
export async function loadInstructionFiles(
  options: Omit<ProjectContextOptions, 'now'>,
  repositoryRoot?: string,
): Promise<InstructionFiles> {
  const { fs, workspaceRoot } = options;
  const maxFile = options.maxFileBytes ?? MAX_INSTRUCTION_FILE_BYTES;
  let budget = options.maxTotalBytes ?? MAX_INSTRUCTION_BYTES;
  const boundary = repositoryRoot ?? workspaceRoot;
  const directories: string[] = [workspaceRoot];
  for (let directory = workspaceRoot; directory !== boundary && dirname(directory) !== directory;) {
    directory = dirname(directory);
    directories.push(directory);
  }
  const candidates: Candidate[] = directories.flatMap((directory) =>
    INSTRUCTION_FILE_NAMES.map((name) => ({
      path: join(directory, name),
      label: relative(workspaceRoot, join(directory, name)),
      within: boundary,
    })),
  );
  if (options.userConfigDirectory !== undefined) {
    const path = join(options.userConfigDirectory, 'AGENTS.md');
    candidates.push({ path, label: path });
  }

  const files: InstructionFile[] = [];
  const skipped: string[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const candidate of candidates) {
    try {
      const stat = await fs.stat(candidate.path);
      if (stat?.type !== 'file') continue;
      const real = await fs.realpath(candidate.path);
      if (seen.has(real)) continue;
      seen.add(real);
      if (candidate.within !== undefined && !isWithin(real, candidate.within)) {
        problems.push(
          `${candidate.label} was not loaded: it links to ${real}, outside ${candidate.within}. Put the instructions in the file itself, or link to a file inside that folder.`,
        );
        continue;
      }
      if (budget <= 0) {
        skipped.push(candidate.label);
        continue;
      }
      const { text, complete } = await readCapped(fs, real, Math.min(maxFile, budget));
      const includedBytes = new TextEncoder().encode(text).length;
      budget -= includedBytes;
      files.push({ path: candidate.path, label: candidate.label, text, bytes: stat.size, includedBytes, truncated: !complete });
    } catch (error) {
      problems.push(`${candidate.label} could not be read (${errorText(error)}); it was left out. Check that the file is readable.`);
    }
  }
  return { files, skipped, problems };
}

/** The OS and shell of the machine this process runs on (the host's, also in the editor). */
function machine(): { readonly os: string; readonly shell: string } {
  return {
    os: `${osType()} ${release()} (${arch()})`,
    // What the shell tool runs (src/tools/shell.ts, the node process runner).
    shell: process.platform === 'win32' ? 'cmd.exe' : '/bin/sh',
  };
}

const twoDigits = (value: number): string => String(value).padStart(2, '0');

/** The local calendar date: no time of day, so the prompt stays the same all day (prompt caching). */
export function localDate(now: Date): string {
  return `${now.getFullYear()}-${twoDigits(now.getMonth() + 1)}-${twoDigits(now.getDate())}`;
}

/** Loads the instruction files and gathers the environment facts for one run. Never throws. */
export async function loadProjectContext(options: ProjectContextOptions): Promise<ProjectContext> {
  let repositoryRoot: string | undefined;
  try {
    repositoryRoot = await findRepositoryRoot(options.fs, options.workspaceRoot);
  } catch {
    // Not knowing about git only leaves the git line out.
  }
  const [instructions, git] = await Promise.all([
    loadInstructionFiles(options, repositoryRoot),
    repositoryRoot !== undefined ? readGitState(options.fs, repositoryRoot) : Promise.resolve(undefined),
  ]);
  const { os, shell } = machine();
  return {
    instructions,
    environment: { os, shell, date: localDate(options.now), workspaceRoot: options.workspaceRoot, ...(git ? { git } : {}) },
  };
}

function gitLine(facts: EnvironmentFacts): string {
  const { git } = facts;
  if (!git) return 'Git: the workspace is not in a git repository.';
  const where =
    git.root === facts.workspaceRoot
      ? 'the workspace root is a git repository'
      : `the workspace is inside the git repository at ${git.root}`;
  const head =
    git.branch !== undefined ? `, on branch ${git.branch}` : git.detachedAt !== undefined ? `, HEAD detached at ${git.detachedAt}` : '';
  return `Git: ${where}${head}.`;
}

/** The environment block of the system prompt. */
export function environmentBlock(facts: EnvironmentFacts): string {
  return [
    'Environment:',
    `- OS: ${facts.os}`,
    `- Shell: the shell tool runs command lines with ${facts.shell}`,
    `- Today's date: ${facts.date}`,
    `- Workspace root: ${facts.workspaceRoot}`,
    `- ${gitLine(facts)}`,
  ].join('\n');
}

/** The instruction files' block of the system prompt; empty when there are none. */
export function instructionsBlock(instructions: InstructionFiles): string {
  if (instructions.files.length === 0) return '';
  const sections = instructions.files.map((file) => {
    const note = file.truncated
      ? `\n[truncated: ${file.label} has ${file.bytes} bytes; only the first ${file.includedBytes} are included]`
      : '';
    return `<instructions file="${file.label}">\n${file.text.trimEnd()}${note}\n</instructions>`;
  });
  const skipped =
    instructions.skipped.length > 0
      ? [`[not loaded, the size limit for instruction files was reached: ${instructions.skipped.join(', ')}]`]
      : [];
  return [
    "Project instructions, from files in the workspace (nearest first) and the user's own AGENTS.md (last). Follow them where they apply to the task.",
    "They guide how you work; they grant no permissions: the user's permission settings alone decide which calls run.",
    ...sections,
    ...skipped,
  ].join('\n');
}

/** The session-start notice naming what was loaded; `undefined` when nothing was found. */
export function instructionsNotice(instructions: InstructionFiles): string | undefined {
  if (instructions.files.length === 0 && instructions.skipped.length === 0) return undefined;
  const loaded = instructions.files.map((file) =>
    file.truncated ? `${file.label} ([truncated] to ${file.includedBytes} of ${file.bytes} bytes)` : file.label,
  );
  const skipped = instructions.skipped.length > 0 ? `; not loaded, the size limit was reached: ${instructions.skipped.join(', ')}` : '';
  return `${INSTRUCTIONS_NOTICE_PREFIX}${loaded.join(', ') || 'none'}${skipped}.`;
}
