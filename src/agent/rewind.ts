/**
 * Planning and applying a rewind to a checkpoint (issue 13), one code path for `zuno rewind` and
 * the editor's "Restore files to before this message". A rewind:
 * - restores only the files changed since the checkpoint (added ones removed, removed and modified
 *   ones written back byte for byte, modes included), never a nested repository or a file over
 *   the size limit;
 * - refuses, listing them, when it would overwrite a file changed outside Zuno since the
 *   checkpoint (changed while no turn of Zuno was running: see `changedOutside`), unless forced;
 * - takes a checkpoint first, so it can itself be rewound;
 * - with `fork`, starts a new session whose transcript ends before the checkpoint's message.
 * The caller records the returned `rewind` event in the session (the CLI in the store, the editor
 * through its event bus, so the open chat hears it too).
 */
import type { ZunoEventBody } from '../core/events';
import {
  RESTORABLE_KINDS,
  type CheckpointRecord,
  type FileChangeSince,
  type ShadowCheckpoints,
  type TreeState,
} from '../hosts/node/checkpoints';
import type { Store } from '../store/store';

/** A preview shows a diff for this many files at most; the list names every file. */
export const PREVIEW_DIFF_FILES = 50;
/** A longer diff is cut here, with a line saying so. */
export const PREVIEW_DIFF_CHARS = 20_000;

/** The checkpoint cannot be rewound to as asked; the message says why, in no surface's words. */
export class RewindError extends Error {
  override readonly name = 'RewindError';
  constructor(
    message: string,
    /** The session's restorable checkpoints, for the surface to list. */
    readonly known: readonly string[] = [],
  ) {
    super(message);
  }
}

export interface RewindPlan {
  readonly sessionId: string;
  readonly checkpoint: CheckpointRecord;
  /** What changed since the checkpoint, as the rewind sees it; nothing else is touched. */
  readonly changes: readonly FileChangeSince[];
  /** Files the rewind would overwrite that changed outside Zuno since the checkpoint. */
  readonly conflicts: readonly string[];
  /** Files over the size limit, which the rewind leaves as they are. */
  readonly overLimit: readonly string[];
  /** Nested repositories, which the rewind leaves as they are. */
  readonly nested: readonly string[];
}

export interface RewindFile extends FileChangeSince {
  /** Changed outside Zuno since the checkpoint: the rewind would lose that change. */
  readonly conflict: boolean;
  /** From the file now to the file after the rewind; absent past PREVIEW_DIFF_FILES. */
  readonly diff?: string;
}

export interface RewindPreview extends RewindPlan {
  readonly files: readonly RewindFile[];
}

export type RewindResult =
  | { readonly kind: 'refused'; readonly plan: RewindPlan }
  | {
      readonly kind: 'done';
      /** The plan made again just before restoring, from the undo checkpoint. */
      readonly plan: RewindPlan;
      /** Rewinding to it undoes this rewind. */
      readonly undo: CheckpointRecord;
      readonly forkedSessionId?: string;
      /** For the caller to record in the session. */
      readonly event: Extract<ZunoEventBody, { type: 'rewind' }>;
    };

export const restoredPaths = (plan: RewindPlan): string[] =>
  plan.changes.filter((change) => change.change !== 'added').map((change) => change.path);
export const removedPaths = (plan: RewindPlan): string[] =>
  plan.changes.filter((change) => change.change === 'added').map((change) => change.path);

/** How a checkpoint is named to the user: before which message, or before a rewind. */
export const describeCheckpoint = (record: CheckpointRecord): string =>
  record.kind === 'before-rewind' ? 'before a rewind' : `before "${(record.prompt ?? '').split('\n')[0] ?? ''}"`;

/** The session's restorable checkpoint `checkpointId`. */
export async function findCheckpoint(shadow: ShadowCheckpoints, sessionId: string, checkpointId: string): Promise<CheckpointRecord> {
  const records = await shadow.list(sessionId);
  const record = records.find((candidate) => candidate.id === checkpointId);
  if (!record || !RESTORABLE_KINDS.has(record.kind)) {
    const known = records.map((candidate) => candidate.id);
    throw new RewindError(
      `Session ${sessionId} has no checkpoint "${checkpointId}". ${known.length > 0 ? `Its checkpoints are: ${known.join(', ')}.` : 'It has none.'}`,
      known,
    );
  }
  return record;
}

const inside = (path: string, folders: readonly string[]): boolean =>
  folders.some((folder) => path === folder || path.startsWith(`${folder}/`));

async function planFrom(shadow: ShadowCheckpoints, sessionId: string, record: CheckpointRecord, now: TreeState): Promise<RewindPlan> {
  const all = await shadow.changes(record.tree, now.tree);
  // Large files and nested repositories are not in the current tree; they must not look "removed since".
  const leftAlone = (path: string): boolean => now.skipped.includes(path) || inside(path, now.nested);
  const changes = all.filter((change) => !leftAlone(change.path));
  const outside = await shadow.changedOutside(record, now.tree);
  return {
    sessionId,
    checkpoint: record,
    changes,
    conflicts: changes.filter((change) => outside.has(change.path)).map((change) => change.path),
    overLimit: now.skipped,
    nested: now.nested,
  };
}

/** What rewinding to `checkpointId` would do, with a diff per file (the first PREVIEW_DIFF_FILES). Changes nothing. */
export async function previewRewind(shadow: ShadowCheckpoints, sessionId: string, checkpointId: string): Promise<RewindPreview> {
  const record = await findCheckpoint(shadow, sessionId, checkpointId);
  const now = await shadow.current();
  const plan = await planFrom(shadow, sessionId, record, now);
  const conflicts = new Set(plan.conflicts);
  const files: RewindFile[] = [];
  for (const [index, change] of plan.changes.entries()) {
    const file: RewindFile = { ...change, conflict: conflicts.has(change.path) };
    if (index >= PREVIEW_DIFF_FILES) {
      files.push(file);
      continue;
    }
    const diff = withoutGitHeader(await shadow.diff(now.tree, record.tree, change.path));
    files.push({
      ...file,
      diff:
        diff.length > PREVIEW_DIFF_CHARS
          ? `${diff.slice(0, PREVIEW_DIFF_CHARS)}\n… (the diff goes on; ${diff.length - PREVIEW_DIFF_CHARS} more characters)\n`
          : diff,
    });
  }
  return { ...plan, files };
}

/**
 * A unified diff from its `---` line (or git's "Binary files … differ"): the `diff --git` and
 * `index` lines say nothing to a reader. A change of mode alone has only the header, kept whole.
 */
function withoutGitHeader(diff: string): string {
  const lines = diff.split('\n');
  const start = lines.findIndex((line) => line.startsWith('--- ') || line.startsWith('Binary files '));
  return start <= 0 ? diff : lines.slice(start).join('\n');
}

/** What rewinding to `checkpointId` would do, without diffs (a dry run). Changes nothing. */
export async function planRewind(shadow: ShadowCheckpoints, sessionId: string, checkpointId: string): Promise<RewindPlan> {
  const record = await findCheckpoint(shadow, sessionId, checkpointId);
  return planFrom(shadow, sessionId, record, await shadow.current());
}

export interface ApplyRewindOptions {
  readonly shadow: ShadowCheckpoints;
  /** Written only by a fork; the `rewind` event is the caller's to record. */
  readonly store: Store;
  readonly sessionId: string;
  readonly checkpointId: string;
  readonly workspace: string;
  /** Overwrite files changed outside Zuno since the checkpoint. */
  readonly force: boolean;
  readonly fork: boolean;
}

/** Restores the files, unless it would overwrite changes made outside Zuno and `force` is off. */
export async function applyRewind(options: ApplyRewindOptions): Promise<RewindResult> {
  const { shadow, sessionId } = options;
  const record = await findCheckpoint(shadow, sessionId, options.checkpointId);
  if (options.fork && record.messageIndex === undefined) {
    throw new RewindError(`A fork needs a checkpoint taken before a message; ${record.id} was taken ${describeCheckpoint(record)}.`);
  }
  const preview = await planFrom(shadow, sessionId, record, await shadow.current());
  if (preview.conflicts.length > 0 && !options.force) return { kind: 'refused', plan: preview };

  // Undoable: what the rewind replaces is a checkpoint of its own. The plan is made again from
  // it, in case a file changed since the preview.
  const undo = await shadow.snapshot({ sessionId, kind: 'before-rewind' });
  const plan = await planFrom(shadow, sessionId, record, undo);
  if (plan.conflicts.length > 0 && !options.force) return { kind: 'refused', plan };
  await shadow.restore(record, plan.changes);
  await shadow.snapshot({ sessionId, kind: 'after-rewind' });

  const forkedSessionId = options.fork ? forkSession(options.store, sessionId, record, options.workspace) : undefined;
  const event: Extract<ZunoEventBody, { type: 'rewind' }> = {
    type: 'rewind',
    checkpoint_id: record.id,
    restored: restoredPaths(plan),
    removed: removedPaths(plan),
    undo_checkpoint_id: undo.id,
    ...(forkedSessionId !== undefined ? { forked_session_id: forkedSessionId } : {}),
  };
  return { kind: 'done', plan, undo, event, ...(forkedSessionId !== undefined ? { forkedSessionId } : {}) };
}

/**
 * A new session holding the transcript up to (not including) the checkpoint's message, and the
 * events up to that message, so a chat view shows the fork's history as it was.
 */
function forkSession(store: Store, sessionId: string, record: CheckpointRecord, workspace: string): string {
  const source = store.getSession(sessionId);
  const fork = store.createSession({ workspace, title: `Fork of ${source?.title ?? sessionId} before ${record.id}` });
  for (const message of store.messages(sessionId).slice(0, record.messageIndex)) store.appendMessage(fork.id, message);
  const events = store.events(sessionId);
  const created = events.findIndex((event) => event.type === 'checkpoint-created' && event.checkpoint_id === record.id);
  // The checkpoint is taken during its turn: the turn's user message is the last one before it.
  let message = created;
  while (message >= 0 && events[message]?.type !== 'user-message') message -= 1;
  // Checkpoints and rewinds stay with the session that took them: a fork has none of its own yet.
  const copied = events.slice(0, Math.max(message, 0)).filter((event) => event.type !== 'checkpoint-created' && event.type !== 'rewind');
  for (const event of copied) store.recordEvent({ ...event, session_id: fork.id });
  store.recordEvent({
    type: 'notice',
    level: 'info',
    text: `Forked from session ${sessionId} before checkpoint ${record.id}.`,
    ts: Date.now(),
    session_id: fork.id,
  });
  // Not a run that stopped halfway: the chat would otherwise open the fork with an "Interrupted" notice.
  store.setSessionStatus(fork.id, 'done');
  return fork.id;
}
