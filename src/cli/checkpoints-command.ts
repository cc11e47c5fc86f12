/**
 * `zuno checkpoints SESSION` and `zuno rewind SESSION --to CHECKPOINT` (issue 13): the headless
 * restore peers lack (lessons-from-peers). What a rewind does and refuses is `src/agent/rewind.ts`,
 * shared with the editor; here it is worded for the terminal: --force overwrites changes made
 * outside Zuno, --dry-run lists and changes nothing, --fork starts a new session whose transcript
 * ends before the checkpoint's message. The store records it as a `rewind` event in the session.
 */
import { MAX_FILE_BYTES, ShadowCheckpoints } from '../hosts/node/checkpoints';
import type { Store } from '../store/store';
import { applyRewind, describeCheckpoint, planRewind, removedPaths, restoredPaths, RewindError, type RewindPlan } from '../agent/rewind';
import { parse, UsageError } from './args';
import { SessionNotFoundError } from '../agent/loop';
import { EXIT_OK, EXIT_USAGE, type CliProcess } from './process';
import { openCommandStore } from './workspace';

/** A rewind refused because it would overwrite changes made outside Zuno (rerun with --force). */
export const EXIT_REFUSED = 3;

export interface CheckpointsCommand {
  readonly command: 'checkpoints';
  readonly sessionId: string;
  readonly workspace?: string;
  readonly stateDir?: string;
  readonly json: boolean;
}

export interface RewindCommand {
  readonly command: 'rewind';
  readonly sessionId: string;
  readonly to: string;
  readonly dryRun: boolean;
  readonly force: boolean;
  readonly fork: boolean;
  readonly workspace?: string;
  readonly stateDir?: string;
  readonly json: boolean;
}

const options = {
  workspace: { type: 'string' },
  'state-dir': { type: 'string' },
  json: { type: 'boolean' },
  to: { type: 'string' },
  'dry-run': { type: 'boolean' },
  force: { type: 'boolean' },
  fork: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Parses the words after `checkpoints` or `rewind`; `undefined` asks for the usage text. */
export function parseCheckpointsCommand(
  name: 'checkpoints' | 'rewind',
  args: readonly string[],
): CheckpointsCommand | RewindCommand | undefined {
  const { values, positionals } = parse(args, options);
  if (values.help) return undefined;
  const [sessionId, ...extra] = positionals;
  if (sessionId === undefined) throw new UsageError(`zuno ${name} needs a SESSION_ID (printed by zuno exec in session-started).`);
  if (extra.length > 0) throw new UsageError(`zuno ${name} takes one SESSION_ID (got also: ${extra.join(' ')}).`);
  const location = {
    ...(values.workspace !== undefined ? { workspace: values.workspace } : {}),
    ...(values['state-dir'] !== undefined ? { stateDir: values['state-dir'] } : {}),
  };
  if (name === 'checkpoints') {
    const rewindOnly = (['to', 'dry-run', 'force', 'fork'] as const).filter((option) => values[option] !== undefined);
    if (rewindOnly.length > 0)
      throw new UsageError(`--${rewindOnly.join(', --')} belong${rewindOnly.length === 1 ? 's' : ''} to zuno rewind.`);
    return { command: 'checkpoints', sessionId, json: values.json ?? false, ...location };
  }
  if (values.to === undefined || values.to.trim() === '')
    throw new UsageError('zuno rewind needs --to CHECKPOINT (see zuno checkpoints SESSION_ID).');
  return {
    command: 'rewind',
    sessionId,
    to: values.to,
    dryRun: values['dry-run'] ?? false,
    force: values.force ?? false,
    fork: values.fork ?? false,
    json: values.json ?? false,
    ...location,
  };
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

async function shadowFor(stateDir: string, workspace: string): Promise<ShadowCheckpoints> {
  const checkpoints = await ShadowCheckpoints.open({ stateDir, workspaceRoot: workspace });
  if (!(checkpoints instanceof ShadowCheckpoints)) throw new UsageError(checkpoints.unavailable);
  return checkpoints;
}

function requireSession(store: Store, sessionId: string, stateDir: string): void {
  if (!store.getSession(sessionId)) {
    throw new SessionNotFoundError(
      `There is no session "${sessionId}" in ${stateDir}. Pass the --state-dir (or --workspace) that holds it.`,
    );
  }
}

/** `zuno checkpoints SESSION`: the session's restorable checkpoints, with the files changed since each. */
export async function listCheckpoints(command: CheckpointsCommand, io: CliProcess): Promise<number> {
  const { workspace, stateDir, store } = await openCommandStore(command, io, true);
  try {
    requireSession(store, command.sessionId, stateDir);
  } finally {
    await store.close();
  }
  const shadow = await shadowFor(stateDir, workspace);
  const records = await shadow.list(command.sessionId);
  const now = records.length > 0 ? await shadow.current() : undefined;
  const rows = [];
  for (const record of records) {
    const changes = now ? await shadow.changes(record.tree, now.tree) : [];
    rows.push({ record, changes });
  }
  if (command.json) {
    const document = rows.map(({ record, changes }) => ({
      id: record.id,
      kind: record.kind,
      created_at: record.createdAt,
      message_index: record.messageIndex ?? null,
      prompt: record.prompt ?? null,
      changed_since: changes.map((change) => ({ path: change.path, change: change.change })),
      skipped: record.skipped,
      nested: record.nested,
    }));
    io.stdout.write(`${JSON.stringify({ session_id: command.sessionId, checkpoints: document }, null, 2)}\n`);
  } else if (rows.length === 0) {
    io.stdout.write(`Session ${command.sessionId} has no checkpoints: one is taken before the first change of each turn.\n`);
  } else {
    for (const { record, changes } of rows) {
      io.stdout.write(
        `${record.id}  ${new Date(record.createdAt).toISOString()}  ${describeCheckpoint(record)}  ${changes.length} file${changes.length === 1 ? '' : 's'} changed since\n`,
      );
    }
  }
  return EXIT_OK;
}

function writePlan(io: CliProcess, heading: string, result: RewindPlan): void {
  io.stdout.write(`${heading}\n`);
  const verb = { added: 'remove ', removed: 'restore', modified: 'restore' } as const;
  for (const change of result.changes)
    io.stdout.write(`  ${verb[change.change]}  ${change.path}  (${change.change} since the checkpoint)\n`);
  if (result.changes.length === 0) io.stdout.write('  nothing: no file changed since the checkpoint\n');
  const untouched = untouchedPaths(result);
  if (untouched.length > 0)
    io.stdout.write(`Left as they are (over ${MAX_FILE_BYTES / (1024 * 1024)} MB, or nested repositories): ${untouched.join(', ')}\n`);
}

const untouchedPaths = (plan: RewindPlan): string[] => [...plan.overLimit, ...plan.nested.map((folder) => `${folder}/`)];

/** `zuno rewind SESSION --to CHECKPOINT`: the shared rewind of `src/agent/rewind.ts`, worded for the terminal. */
export async function rewind(command: RewindCommand, io: CliProcess): Promise<number> {
  // A real rewind writes the store, so it takes the one-writer lock: never during a running turn.
  const { workspace, stateDir, store } = await openCommandStore(command, io, command.dryRun);
  try {
    requireSession(store, command.sessionId, stateDir);
    const shadow = await shadowFor(stateDir, workspace);
    const summary = (plan: RewindPlan): Record<string, unknown> => ({
      session_id: command.sessionId,
      checkpoint_id: plan.checkpoint.id,
      restore: restoredPaths(plan),
      remove: removedPaths(plan),
      conflicts: plan.conflicts,
      untouched: untouchedPaths(plan),
    });
    if (command.dryRun) {
      const preview = await planRewind(shadow, command.sessionId, command.to);
      if (command.json) io.stdout.write(`${JSON.stringify({ ...summary(preview), dry_run: true }, null, 2)}\n`);
      else {
        writePlan(
          io,
          `Rewinding ${command.sessionId} to ${preview.checkpoint.id} (${describeCheckpoint(preview.checkpoint)}) would:`,
          preview,
        );
        if (preview.conflicts.length > 0)
          io.stdout.write(`It would refuse without --force: changed outside Zuno since the checkpoint: ${preview.conflicts.join(', ')}\n`);
        io.stdout.write('Nothing was changed (--dry-run).\n');
      }
      return EXIT_OK;
    }
    const result = await applyRewind({
      shadow,
      store,
      sessionId: command.sessionId,
      checkpointId: command.to,
      workspace,
      force: command.force,
      fork: command.fork,
    });
    if (result.kind === 'refused') return refuse(io, command, summary(result.plan), result.plan.conflicts);
    store.recordEvent({ ...result.event, ts: Date.now(), session_id: command.sessionId });
    const forked = result.forkedSessionId;
    if (command.json) {
      io.stdout.write(
        `${JSON.stringify({ ...summary(result.plan), undo_checkpoint_id: result.undo.id, forked_session_id: forked ?? null }, null, 2)}\n`,
      );
    } else {
      writePlan(
        io,
        `Rewound ${command.sessionId} to ${result.plan.checkpoint.id} (${describeCheckpoint(result.plan.checkpoint)}):`,
        result.plan,
      );
      io.stdout.write(`To undo: zuno rewind ${command.sessionId} --to ${result.undo.id}\n`);
      if (forked !== undefined) io.stdout.write(`Forked session: ${forked} (continue it with zuno exec --session ${forked})\n`);
      io.stdout.write(
        'Only files in the workspace were restored; effects outside it (a pushed commit, a sent request, a database row) are not undone.\n',
      );
    }
    return EXIT_OK;
  } catch (error) {
    if (error instanceof RewindError) throw new UsageError(`${error.message} See zuno checkpoints ${command.sessionId}.`);
    if (error instanceof UsageError || error instanceof SessionNotFoundError) throw error;
    io.stderr.write(`zuno: the rewind failed: ${errorText(error)}\n`);
    return EXIT_USAGE;
  } finally {
    await store.close();
  }
}

function refuse(io: CliProcess, command: RewindCommand, summary: Record<string, unknown>, conflicts: readonly string[]): number {
  if (command.json) io.stdout.write(`${JSON.stringify({ ...summary, refused: true }, null, 2)}\n`);
  io.stderr.write(
    `zuno: refusing to rewind: ${conflicts.length === 1 ? 'this file was' : 'these files were'} changed outside Zuno since ${command.to} and would be overwritten: ${conflicts.join(', ')}. ` +
      'Save what you need, then run the rewind again with --force; --dry-run shows the whole plan.\n',
  );
  return EXIT_REFUSED;
}
