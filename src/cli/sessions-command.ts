/**
 * `zuno sessions [list]` and `zuno sessions delete SESSION_ID…` (issue 9, "history that people
 * use"): the workspace's sessions with title, date and size, newest first; deleting removes a
 * session's folder, and is refused for a session another Zuno process is writing.
 */
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

const line = (session: SessionSummary): string =>
  `${session.id}  ${new Date(session.updatedAt).toISOString().slice(0, 16).replace('T', ' ')}  ${session.status.padEnd(10)}  ${formatBytes(session.bytes).padStart(9)}  ${session.title ?? '(untitled)'}`;

export async function runSessionsCommand(command: SessionsCommand, io: CliProcess): Promise<number> {
  const { stateDir, store } = await openCommandStore(command, io, command.action === 'list');
  try {
    if (command.action === 'list') {
      const sessions = store.listSummaries();
      if (command.json) {
        const rows = sessions.map(({ dir: _dir, ...session }) => session);
        io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      } else if (sessions.length === 0) io.stdout.write(`No sessions in ${stateDir} yet.\n`);
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
