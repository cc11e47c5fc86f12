/**
 * A verified change to one file, as apply_patch and edit both plan it, and the three things done
 * with a plan: show it (the diff preview), let the user's edits in the preview win, and commit it
 * all or nothing.
 */
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { ToolError } from '../../core/errors';
import type { FileChange, HostFileSystem } from '../../core/host';
import type { CallEnvironment, ToolContext } from '../../core/tool';
import { checkedPath, resolveWorkspacePath, type ResolvedPath } from '../paths';
import { commitWrites, type FileWrite } from './commit';
import { adoptText, decodeText, encodeText, normalizedText, renderText, type FileText } from './format';

export interface FileOnDisk {
  readonly bytes: Uint8Array;
  readonly text: FileText;
}

export type PlannedChange =
  | { readonly kind: 'create'; readonly path: ResolvedPath; readonly after: FileText }
  | { readonly kind: 'update'; readonly path: ResolvedPath; readonly before: FileOnDisk; readonly after: FileText }
  | { readonly kind: 'delete'; readonly path: ResolvedPath; readonly before: FileOnDisk }
  | {
      readonly kind: 'move';
      readonly path: ResolvedPath;
      readonly movedTo: ResolvedPath;
      readonly before: FileOnDisk;
      readonly after: FileText;
    };

/** What the user changed in the preview, relative to the proposal, as a unified diff. */
export interface UserEdit {
  readonly path: string;
  readonly diff: string;
}

/** How planning gets a path argument of the call. */
export type PathSource = (path: string) => Promise<ResolvedPath>;

/** For the diff preview, before the call runs: resolved here; the policy was already evaluated on the same subjects. */
export const previewPaths =
  (env: CallEnvironment): PathSource =>
  (path) =>
    resolveWorkspacePath(env, path);

/** When the call runs: the path the scheduler checked, never resolved again (the host re-verifies it when it opens it). */
export const runPaths =
  (context: ToolContext): PathSource =>
  async (path) =>
    checkedPath(context, path);

/** Reads (checked: the path is real) and decodes an existing regular file; `undefined` when nothing is there. */
export async function readExisting(fs: HostFileSystem, path: ResolvedPath): Promise<FileOnDisk | undefined> {
  const stat = await fs.stat(path.real);
  if (!stat) return undefined;
  if (stat.type !== 'file') {
    throw new ToolError(`${path.display} is a ${stat.type}, not a file; only files can be edited.`);
  }
  const bytes = await fs.readFileChecked(path.real);
  return { bytes, text: decodeText(bytes, path.display) };
}

export function afterOf(change: PlannedChange): FileText | undefined {
  return change.kind === 'delete' ? undefined : change.after;
}

export function beforeOf(change: PlannedChange): FileOnDisk | undefined {
  return change.kind === 'create' ? undefined : change.before;
}

/** The diff preview: each file's current and proposed text, as an editor shows it. */
export function previewOf(change: PlannedChange): FileChange {
  const before = beforeOf(change);
  const after = afterOf(change);
  return {
    path: change.path.real,
    kind: change.kind,
    before: before ? renderText(before.text) : undefined,
    after: after ? renderText(after) : undefined,
    ...(change.kind === 'move' ? { movedTo: change.movedTo.real } : {}),
  };
}

/**
 * The user's edits in the diff preview win: that text is what lands, in the file's format. Keyed
 * like the preview, by `FileChange.path` (a move's source; its destination is accepted too).
 */
export function applyUserEdits(
  changes: readonly PlannedChange[],
  approvedEdits: Readonly<Record<string, string>> | undefined,
): { changes: PlannedChange[]; edits: UserEdit[] } {
  const edits: UserEdit[] = [];
  const result = changes.map((change): PlannedChange => {
    if (!approvedEdits || change.kind === 'delete') return change;
    const edited = approvedEdits[change.path.real] ?? (change.kind === 'move' ? approvedEdits[change.movedTo.real] : undefined);
    if (edited === undefined) return change;
    const landed = adoptText(edited, change.after.format);
    const proposed = normalizedText(change.after);
    const actual = normalizedText(landed);
    if (proposed === actual) return change;
    const display = change.kind === 'move' ? change.movedTo.display : change.path.display;
    const diff = createTwoFilesPatch(display, display, proposed, actual, 'proposed', 'landed', { headerOptions: FILE_HEADERS_ONLY });
    edits.push({ path: display, diff: diff.trimEnd() });
    return { ...change, after: landed };
  });
  return { changes: result, edits };
}

function toWrite(change: PlannedChange): FileWrite {
  switch (change.kind) {
    case 'create':
      return { kind: 'create', path: change.path.real, data: encodeText(change.after) };
    case 'update':
      return { kind: 'update', path: change.path.real, data: encodeText(change.after), original: change.before.bytes };
    case 'delete':
      return { kind: 'delete', path: change.path.real };
    case 'move':
      return {
        kind: 'move',
        path: change.path.real,
        movedTo: change.movedTo.real,
        data: encodeText(change.after),
        original: change.before.bytes,
      };
  }
}

/**
 * Writes every change or none. On an I/O error the completed writes are undone and a ToolError
 * says what failed and what state the files are in; returns hidden leftovers it could not remove.
 */
export async function commitChanges(fs: HostFileSystem, changes: readonly PlannedChange[]): Promise<readonly string[]> {
  const outcome = await commitWrites(fs, changes.map(toWrite));
  if (outcome.committed) return outcome.leftovers;
  const { cause, refusal, restored, unrestored } = outcome.failure;
  const displays = new Map<string, string>();
  for (const change of changes) {
    displays.set(change.path.real, change.path.display);
    if (change.kind === 'move') displays.set(change.movedTo.real, change.movedTo.display);
  }
  const relative = (path: string): string => displays.get(path) ?? path;
  if (unrestored.length === 0) {
    const undone =
      restored.length === 0 ? '' : ` The ${restored.length} change(s) already made (${restored.map(relative).join(', ')}) were undone.`;
    if (refusal !== undefined) throw new ToolError(`${refusal}${undone} No file was changed.`);
    throw new ToolError(`Nothing was changed: ${cause}.${undone} Fix the cause (or the path) and send the whole patch again.`);
  }
  throw new ToolError(
    `Writing failed and could not be fully undone: ${cause}. Restored: ${restored.map(relative).join(', ') || 'none'}. ` +
      `NOT restored, check them before anything else: ${unrestored.map(relative).join(', ')}.`,
  );
}
