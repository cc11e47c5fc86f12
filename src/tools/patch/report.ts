/**
 * What the model reads after a successful edit: one line per file, like `git status --short`
 * with line counts, the user's changes to the proposal as a diff, and how to see the result.
 */
import { diffLines } from 'diff';
import type { ToolResult } from '../../core/tool';
import { afterOf, beforeOf, type PlannedChange, type UserEdit } from './changes';
import { normalizedText } from './format';

function countLines(before: string, after: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const part of diffLines(before, after)) {
    if (part.added) added += part.count;
    else if (part.removed) removed += part.count;
  }
  return { added, removed };
}

interface ChangeSummary {
  readonly kind: PlannedChange['kind'];
  readonly path: string;
  readonly movedTo?: string;
  readonly added: number;
  readonly removed: number;
}

const LETTERS = { create: 'A', update: 'M', delete: 'D', move: 'R' } as const;

function summarize(change: PlannedChange): ChangeSummary {
  const before = beforeOf(change);
  const after = afterOf(change);
  const counts = countLines(before ? normalizedText(before.text) : '', after ? normalizedText(after) : '');
  return {
    kind: change.kind,
    path: change.path.display,
    ...(change.kind === 'move' ? { movedTo: change.movedTo.display } : {}),
    ...counts,
  };
}

/** `M src/a.ts +3 -1`, `R old.ts -> new.ts +0 -0`: one line per file, like `git status`. */
function summaryLine(summary: ChangeSummary): string {
  const path = summary.movedTo ? `${summary.path} -> ${summary.movedTo}` : summary.path;
  return `${LETTERS[summary.kind]} ${path} +${summary.added} -${summary.removed}`;
}

/**
 * The result of a committed plan. `heading` says what was done; `leftovers` are set-aside files
 * that could not be removed after a successful commit.
 */
export function describeOutcome(
  heading: string,
  changes: readonly PlannedChange[],
  edits: readonly UserEdit[],
  leftovers: readonly string[],
): ToolResult {
  const summaries = changes.map(summarize);
  const lines = [heading, ...summaries.map(summaryLine)];
  for (const edit of edits) {
    lines.push('', `The user edited the proposed ${edit.path} before approving; what landed differs from your proposal by:`, edit.diff);
  }
  if (leftovers.length > 0) {
    lines.push('', `Could not remove the set-aside copies of deleted files (safe to delete): ${leftovers.join(', ')}`);
  }
  const touched = changes.filter((change) => change.kind !== 'delete').length;
  if (touched > 0) lines.push('', 'Use read to see a file as it is now before changing it again.');
  return {
    output: lines.join('\n'),
    metadata: { files: summaries, userEdited: edits.map((edit) => edit.path), ...(leftovers.length > 0 ? { leftovers } : {}) },
  };
}
