/**
 * How compactly a call is drawn (issue 14 item 5), decided apart from the DOM so the rules are
 * unit-tested: read-only calls are one line and consecutive ones one group ("Read 4 files"); the
 * model's own mistakes (invalid arguments, a tool it does not have) are a muted line, since the
 * user can do nothing and the agent recovers; side effects and user-facing blocks stay full cards.
 */
import type { ToolItem } from './transcript';

export type RowKind = 'compact' | 'mistake' | 'card';

/** Unavailability that is the model's doing, not the user's configuration (registry wording). */
const MODEL_UNAVAILABLE = [
  /^There is no tool named /,
  /is not in this agent's tool allowlist/,
  /is a registered slot that is not on the default tool surface/,
];

/** A refusal caused by the model's own call, which the model is told about and recovers from. */
export function isModelMistake(card: ToolItem): boolean {
  if (card.outcome !== 'blocked') return false;
  if (card.category === 'invalid_arguments') return true;
  return card.category === 'unavailable' && MODEL_UNAVAILABLE.some((pattern) => pattern.test(card.blockedReason ?? ''));
}

const READ_ONLY_BY_NAME: ReadonlySet<string> = new Set([
  'read',
  'grep',
  'glob',
  'list',
  'plan_get',
  'todo_get',
  'goal_get',
  'mcp_resources',
  'mcp_read',
  'skill',
]);

/** Whether the call only reads: from its declarations once started, from its name before. */
function readsOnly(card: ToolItem): boolean {
  return card.effect === undefined ? READ_ONLY_BY_NAME.has(card.tool) : card.effect === 'ReadOnly';
}

/** `waiting` is true while the card holds an approval or a question, which always needs the full card. */
export function rowKind(card: ToolItem, waiting: boolean): RowKind {
  if (isModelMistake(card)) return 'mistake';
  if (waiting || card.state === 'awaiting-approval' || card.state === 'awaiting-answer') return 'card';
  const quiet = card.outcome === undefined || card.outcome === 'ok' || card.outcome === 'error';
  return readsOnly(card) && quiet ? 'compact' : 'card';
}

const GROUP_NOUNS: Readonly<Record<string, readonly [string, string]>> = {
  read: ['Read', 'file'],
  grep: ['Searched', 'pattern'],
  glob: ['Listed', 'pattern'],
  list: ['Listed', 'folder'],
};

/** "Read 4 files", "Searched 2 patterns". */
export function groupLabel(tool: string, count: number): string {
  const [verb, noun] = GROUP_NOUNS[tool] ?? [`${tool}:`, 'call'];
  return `${verb} ${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** The group's state in a few words: how many are still running or failed; empty when all went well. */
export function groupState(members: readonly ToolItem[]): string {
  const running = members.filter((card) => card.outcome === undefined).length;
  const failed = members.filter((card) => card.outcome !== undefined && card.outcome !== 'ok').length;
  const parts: string[] = [];
  if (running > 0) parts.push(`${running} running`);
  if (failed > 0) parts.push(`${failed} failed`);
  return parts.join(', ');
}

/** The last `count` non-empty lines of a command's output, for the shell row. */
export function lastLines(output: string, count = 3): string[] {
  return output
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line !== '')
    .slice(-count);
}

/** "exit 1" for a command that ran to its end; undefined otherwise. */
export function exitLabel(card: { readonly exitCode?: number }): string | undefined {
  return card.exitCode === undefined ? undefined : `exit ${card.exitCode}`;
}

/** The muted line for a model mistake: what went wrong, and that it is not the user's to fix. */
export function mistakeText(card: ToolItem): string {
  const what =
    card.category === 'invalid_arguments'
      ? `sent ${card.tool || 'a tool'} invalid arguments`
      : `asked for a tool it does not have (${card.tool || '?'})`;
  return `The model ${what}; it was told and can correct itself. Nothing ran.`;
}
