/**
 * `zuno sessions [list]` and `zuno sessions delete SESSION_ID…` (issue 9, "history that people
 * use"): the workspace's sessions with title, date and size, newest first, each delegated task
 * indented under the session that delegated it (issue 14 item 10, as the editor's history); deleting
 * removes a session's folder, and is refused for a session another Zuno process is writing.
 */
import { parseDelegatedSessionTitle, type DelegatedOrigin } from '../core/delegation';
import type { SessionSummary } from '../store/store';
import { nonEmpty, parse, UsageError } from './args';
import { EXIT_OK, EXIT_USAGE, type CliProcess } from './process';
import { openCommandStore } from './workspace';

export interface SessionsCommand {
  readonly command: 'sessions';
  readonly action: 'list' | 'delete';
  readonly sessionIds: readonly string[];
  readonly workspace?: string;
  readonly stateDir?: string;
  readonly json: boolean;
}

const options = {
  workspace: { type: 'string' },
  'state-dir': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Parses the words after `sessions`; `undefined` asks for the usage text. */
export function parseSessionsCommand(args: readonly string[]): SessionsCommand | undefined {
  const { values, positionals } = parse(args, options);
  if (values.help) return undefined;
  const [action = 'list', ...ids] = positionals;
  if (action !== 'list' && action !== 'delete') throw new UsageError(`zuno sessions takes list or delete (got "${action}").`);
  if (action === 'list' && ids.length > 0) throw new UsageError(`zuno sessions list takes no SESSION_ID (got: ${ids.join(' ')}).`);
  if (action === 'delete' && ids.length === 0)
    throw new UsageError('zuno sessions delete needs at least one SESSION_ID (see zuno sessions list).');
  const workspace = nonEmpty('workspace', values.workspace);
  const stateDir = nonEmpty('state-dir', values['state-dir']);
  return {
    command: 'sessions',
    action,
    sessionIds: ids,
    json: values.json ?? false,
    ...(workspace !== undefined ? { workspace } : {}),
    ...(stateDir !== undefined ? { stateDir } : {}),
  };
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

interface ListedSession {
  readonly session: SessionSummary;
  /** Set for a delegated task: the session and call that delegated it, and its goal. */
  readonly origin?: DelegatedOrigin;
  /** How many delegations deep: 0 for a session the user started. */
  readonly depth: number;
}

/**
 * Sessions most recent first, each followed by the tasks it delegated in the order they ran (and
 * theirs under them); a task whose parent is gone stands on its own, where its date puts it.
 */
export function nestTasks(sessions: readonly SessionSummary[]): ListedSession[] {
  const known = new Set(sessions.map((session) => session.id));
  const tasksOf = new Map<string, { session: SessionSummary; origin: DelegatedOrigin }[]>();
  const roots: { session: SessionSummary; origin?: DelegatedOrigin }[] = [];
  for (const session of sessions) {
    const origin = parseDelegatedSessionTitle(session.title);
    if (origin === undefined || !known.has(origin.parentSessionId) || origin.parentSessionId === session.id) {
      roots.push({ session, ...(origin !== undefined ? { origin } : {}) });
      continue;
    }
    tasksOf.set(origin.parentSessionId, [...(tasksOf.get(origin.parentSessionId) ?? []), { session, origin }]);
  }
  const listed: ListedSession[] = [];
  const seen = new Set<string>();
  const add = (entry: { session: SessionSummary; origin?: DelegatedOrigin }, depth: number): void => {
    // A title can be written by hand: a loop of parents must not hang the listing.
    if (seen.has(entry.session.id)) return;
    seen.add(entry.session.id);
    listed.push({ ...entry, depth });
    const tasks = [...(tasksOf.get(entry.session.id) ?? [])].sort((left, right) => left.session.updatedAt - right.session.updatedAt);
    for (const task of tasks) add(task, depth + 1);
  };
  for (const root of roots) add(root, 0);
  // Sessions only reachable through a loop of parents are still listed.
  for (const session of sessions) if (!seen.has(session.id)) add({ session }, 0);
  return listed;
}

/** A delegated task is titled by its brief (its goal), as in the editor's history. */
const titleOf = ({ session, origin }: ListedSession): string =>
  origin === undefined ? (session.title ?? '(untitled)') : `task (${origin.agent}): ${origin.goal === '' ? '(no goal)' : origin.goal}`;

const line = (entry: ListedSession): string => {
  const { session } = entry;
  return `${'  '.repeat(entry.depth)}${session.id}  ${new Date(session.updatedAt).toISOString().slice(0, 16).replace('T', ' ')}  ${session.status.padEnd(10)}  ${formatBytes(session.bytes).padStart(9)}  ${titleOf(entry)}`;
};

/** The JSON row: the stored session, and for a task its parent's id, the call, the agent and the brief. */
const jsonRow = ({ session: { dir: _dir, ...session }, origin }: ListedSession) =>
  origin === undefined
    ? session
    : { ...session, parentId: origin.parentSessionId, parentCallId: origin.parentCallId, agent: origin.agent, brief: origin.goal };

export async function runSessionsCommand(command: SessionsCommand, io: CliProcess): Promise<number> {
  const { stateDir, store } = await openCommandStore(command, io, command.action === 'list');
  try {
    if (command.action === 'list') {
      const sessions = nestTasks(store.listSummaries());
      if (command.json) io.stdout.write(`${JSON.stringify(sessions.map(jsonRow), null, 2)}\n`);
      else if (sessions.length === 0) io.stdout.write(`No sessions in ${stateDir} yet.\n`);
      else for (const session of sessions) io.stdout.write(`${line(session)}\n`);
      return EXIT_OK;
    }
    let failed = false;
    for (const id of command.sessionIds) {
      try {
        store.deleteSession(id);
        io.stdout.write(command.json ? `${JSON.stringify({ id, deleted: true })}\n` : `deleted ${id}\n`);
      } catch (error) {
        failed = true;
        io.stderr.write(`zuno: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
    return failed ? EXIT_USAGE : EXIT_OK;
  } finally {
    await store.close();
  }
}
