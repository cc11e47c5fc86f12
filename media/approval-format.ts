/**
 * The words of a readable approval card (issue 14 item 3), DOM-free so they are unit-tested: the
 * +/- counts of a file, what happens to it, and how a todo's status reads.
 */
import type { PermissionRule } from '../src/core/config';
import type { FileDiffPreview } from '../src/webview/protocol';

/** "+3 −1": the minus is U+2212 so it lines up with the plus. */
export function diffCounts(file: FileDiffPreview): string {
  return `+${file.added} \u2212${file.removed}`;
}

/** What happens to the file, for the file header. */
export function changeLabel(file: FileDiffPreview): string {
  switch (file.change) {
    case 'create':
      return 'new file';
    case 'delete':
      return 'deleted';
    case 'move':
      return file.movedTo === undefined ? 'moved' : `moved to ${file.movedTo}`;
    case 'update':
      return 'changed';
  }
}

/** The marker drawn in front of a diff line; the text itself carries no marker. */
export const DIFF_MARKERS = { add: '+', remove: '-', context: ' ' } as const;

const TODO_MARKS: Readonly<Record<string, string>> = { pending: '○', in_progress: '◐', completed: '●', cancelled: '⊘' };

/** A todo item as one line: mark, id, content and status, e.g. `◐ 1. Fix the total (in progress)`. */
export function todoLine(item: { readonly id: string; readonly content?: string; readonly status?: string }): string {
  const mark = item.status === undefined ? '•' : (TODO_MARKS[item.status] ?? '•');
  const status = item.status === undefined ? '' : ` (${item.status.replace(/_/g, ' ')})`;
  return `${mark} ${item.id}.${item.content === undefined ? '' : ` ${item.content}`}${status}`;
}

/** Summary for a card listing several files: "2 files, +5 −3". */
export function filesSummary(files: readonly FileDiffPreview[]): string {
  const added = files.reduce((sum, file) => sum + file.added, 0);
  const removed = files.reduce((sum, file) => sum + file.removed, 0);
  return `${files.length} file${files.length === 1 ? '' : 's'}, +${added} \u2212${removed}`;
}

/** A rule as a card names it: `shell: npm test *`, or `todo_update (every call)`. */
export function ruleText(rule: PermissionRule): string {
  return rule.match === undefined ? `${rule.tool} (every call)` : `${rule.tool}: ${rule.match}`;
}

/** The decision line of a card once the user approved, naming the rule "Allow like this" added. */
export function approvedText(addedRule: PermissionRule | undefined): string {
  return addedRule === undefined ? 'Approved.' : `Approved, and added the rule "${ruleText(addedRule)}" to zuno.permission.rules.`;
}
