/**
 * The words and tones a tool card uses, decided apart from the DOM so the rules that matter most
 * (a blocked call reads as NOT RUN, an indeterminate one warns that it may have happened) are
 * unit-tested rather than eyeballed.
 */
import { editorWording } from '../src/webview/editor-words';
import {
  GROUPED_TOOLS,
  type CompactionItem,
  type RewindItem,
  type SessionEndItem,
  type ToolItem,
  type ToolState,
  type TranscriptItem,
} from './transcript';

/** Drives the card's colour and border; each outcome has its own so none can pass for another. */
export type CardTone = 'pending' | 'running' | 'ok' | 'error' | 'blocked' | 'indeterminate' | 'cancelled';

export interface CardStatus {
  readonly tone: CardTone;
  readonly label: string;
  /** A sentence under the header for outcomes that need explaining. */
  readonly explanation?: string;
}

/** SPEC R3, in the user's words. Shared with the tests so the promise is checked verbatim. */
export const INDETERMINATE_EXPLANATION = 'The effect may have happened; it will not be retried automatically.';
/** An error result of a call that never started (B3: still an error, not a refusal). */
export const NOT_STARTED_ERROR_EXPLANATION = 'It did not run: it failed before it could start.';
/** SPEC B2/B3: blocked means nothing happened. */
export const BLOCKED_EXPLANATION = 'Nothing ran and no state was changed.';

const STATE_LABELS: Record<ToolState, string> = {
  requested: 'Queued',
  'awaiting-approval': 'Waiting for approval',
  'awaiting-answer': 'Waiting for your answer',
  approved: 'Approved, starting',
  running: 'Running',
  finished: 'Finished',
};

export function cardStatus(card: ToolItem): CardStatus {
  // The reducer sets an outcome whenever it sets `finished`; until then the state is the label.
  if (card.outcome === undefined) return { tone: card.state === 'running' ? 'running' : 'pending', label: STATE_LABELS[card.state] };
  switch (card.outcome) {
    case 'ok':
      return { tone: 'ok', label: 'Done' };
    case 'error':
      return {
        tone: 'error',
        label: 'Failed',
        explanation: card.started ? 'It ran and reported an error.' : NOT_STARTED_ERROR_EXPLANATION,
      };
    case 'cancelled':
      return { tone: 'cancelled', label: 'Cancelled', explanation: 'It was stopped before it finished.' };
    case 'indeterminate':
      return { tone: 'indeterminate', label: 'Indeterminate', explanation: INDETERMINATE_EXPLANATION };
    case 'blocked': {
      const reason = card.blockedReason ?? card.decision?.reason;
      return {
        tone: 'blocked',
        label: card.category === undefined ? 'Not run — blocked' : `Not run — blocked: ${card.category}`,
        explanation: reason === undefined || reason === '' ? BLOCKED_EXPLANATION : `${reason} ${BLOCKED_EXPLANATION}`,
      };
    }
  }
}

export interface Badge {
  readonly kind: 'effect' | 'replay' | 'concurrency' | 'attempt';
  /** The declaration in words, e.g. `replay: Safe`. */
  readonly text: string;
  /** The codicon drawn instead of the words (issue 14 item 5), so the badges never wrap in a narrow sidebar. */
  readonly icon: string;
  /** What the declaration means, shown on hover. */
  readonly tooltip: string;
}

/** Codicon names (the editor's own icon font, @vscode/codicons) and what each declaration means. */
const EFFECT_ICONS: Readonly<Record<string, readonly [string, string]>> = {
  ReadOnly: ['eye', 'Read-only: changes nothing'],
  SideEffecting: ['edit', 'Side effects: changes files, runs commands or reaches the network'],
  Delegating: ['organization', 'Delegates to another agent, whose calls are checked again'],
  UserMediated: ['question', 'Asks you directly'],
};
const REPLAY_ICONS: Readonly<Record<string, readonly [string, string]>> = {
  Safe: ['refresh', 'Replay: safe to run again after a failure'],
  Never: ['circle-slash', 'Replay: never run again automatically (at most once)'],
};
const CONCURRENCY_ICONS: Readonly<Record<string, readonly [string, string]>> = {
  ParallelSafe: ['split-horizontal', 'Runs in parallel with other calls'],
  Exclusive: ['lock', 'Runs alone: no other call of the turn overlaps it'],
};

/** A compact row's status icon, by the tone of its status. */
export const ROW_ICONS: Readonly<Record<string, string>> = {
  ok: 'check',
  error: 'error',
  running: 'loading',
  pending: 'clock',
  blocked: 'circle-slash',
  indeterminate: 'question',
  cancelled: 'dash',
};

/** Every codicon the view draws, so a test can check that the font has each of them. */
export const ICONS_USED: readonly string[] = [
  ...[EFFECT_ICONS, REPLAY_ICONS, CONCURRENCY_ICONS].flatMap((table) => Object.values(table).map(([icon]) => icon)),
  ...Object.values(ROW_ICONS),
  'history',
  'circle-small',
  // The history panel's Rename and Delete.
  'edit',
  'trash',
];

/** The declarations as the call ran with them (T1); absent until the call starts or asks approval. */
export function badges(card: ToolItem): Badge[] {
  const list: Badge[] = [];
  const add = (
    kind: Badge['kind'],
    table: Readonly<Record<string, readonly [string, string]>>,
    value: string | undefined,
    text: string,
  ): void => {
    if (value === undefined) return;
    const [icon, tooltip] = table[value] ?? ['circle-small', value];
    list.push({ kind, text, icon, tooltip: `${tooltip} (${value})` });
  };
  add('effect', EFFECT_ICONS, card.effect, card.effect ?? '');
  add('replay', REPLAY_ICONS, card.replay, `replay: ${card.replay ?? ''}`);
  add('concurrency', CONCURRENCY_ICONS, card.concurrency, card.concurrency ?? '');
  if (card.attempt > 1)
    list.push({ kind: 'attempt', text: `attempt ${card.attempt}`, icon: 'history', tooltip: `Attempt ${card.attempt}` });
  return list;
}

/** Argument names that say what a call is about, in the order they are preferred. */
const SUBJECT_KEYS = ['command', 'path', 'file_path', 'pattern', 'url', 'query', 'goal', 'question', 'action'];

/**
 * A one-line summary of the model's arguments for the card header, e.g. `path: src/a.ts`.
 * The result is plain text; the view puts it in `textContent`, so nothing in it is markup.
 */
export function summarizeArguments(raw: string, maxLength = 160): string {
  if (raw.trim() === '') return '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return clip(oneLine(raw), maxLength);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return clip(oneLine(JSON.stringify(parsed)), maxLength);
  const entries = Object.entries(parsed as Record<string, unknown>); // checked above: a plain object
  const rank = (name: string): number => {
    const position = SUBJECT_KEYS.indexOf(name);
    return position === -1 ? SUBJECT_KEYS.length : position;
  };
  entries.sort((left, right) => rank(left[0]) - rank(right[0]));
  const parts = entries.map(([name, value]) => `${name}: ${clip(oneLine(typeof value === 'string' ? value : JSON.stringify(value)), 80)}`);
  return clip(parts.join(', '), maxLength);
}

/** The arguments pretty-printed for the expanded card, capped because a `write` can carry a file. */
export function formatArguments(raw: string, maxLength = 4_000): string {
  let text = raw;
  try {
    text = JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    // Not JSON (a model can send anything): show it as it came.
  }
  return clip(text, maxLength);
}

export function formatDuration(milliseconds: number): string {
  if (milliseconds < 1_000) return `${Math.round(milliseconds)} ms`;
  if (milliseconds < 60_000) return `${(milliseconds / 1_000).toFixed(1)} s`;
  const minutes = Math.floor(milliseconds / 60_000);
  const seconds = Math.round((milliseconds % 60_000) / 1_000);
  return `${minutes} min ${seconds} s`;
}

/** Where a delegated child call came from, or undefined for a call the main agent made. */
export function describeOrigin(card: ToolItem, parentTool: string | undefined): string | undefined {
  if (card.parentCallId === undefined) return undefined;
  const agent = card.agent === undefined ? 'a delegated agent' : `agent "${card.agent}"`;
  const parent = parentTool === undefined || parentTool === '' ? card.parentCallId : `${parentTool} ${card.parentCallId}`;
  return `Delegated: requested by ${agent} under call ${parent}`;
}

export function sessionEndLabel(item: SessionEndItem): string {
  const base: Record<SessionEndItem['reason'], string> = {
    done: 'Finished',
    'step-limit': 'Stopped: the step limit was reached',
    cancelled: 'Cancelled',
    error: 'Stopped by an error',
  };
  // Stored messages were written for the CLI ("--session ID"); the sidebar shows them in its own words.
  return item.message === undefined || item.message === '' ? base[item.reason] : `${base[item.reason]}: ${editorWording(item.message)}`;
}

const COMPACTION_REASONS: Record<CompactionItem['reason'], string> = {
  threshold: 'the context was filling up',
  overflow: 'the model server refused the request as too long',
  manual: 'asked for',
};

/** The divider where the context was compacted: why, how much, and what the handoff kept. Earlier messages stay shown. */
export function compactionLabel(item: CompactionItem): string {
  const kept = item.kept.length > 0 ? ` The model now gets a handoff with: ${item.kept.join(', ')}.` : '';
  return `Context compacted (${COMPACTION_REASONS[item.reason]}): about ${item.tokensBefore.toLocaleString('en-US')} → ${item.tokensAfter.toLocaleString('en-US')} tokens. Messages above are no longer sent to the model.${kept}`;
}

/**
 * A first guess at an item's height in pixels, used until it has been drawn and measured. Good
 * guesses keep the scrollbar steady in a long session; they never need to be exact.
 */
export function estimateHeight(item: TranscriptItem): number {
  switch (item.kind) {
    case 'user':
    case 'assistant':
      return 28 + 20 * Math.ceil(Math.max(item.text.length, 1) / 70);
    case 'tool':
      if (item.state === 'awaiting-approval') return 180;
      // Read-only calls are one-line rows, and most members of a group are not drawn at all.
      return GROUPED_TOOLS.has(item.tool) ? 24 : 76;
    case 'notice':
      return item.title === undefined ? 36 : 56;
    case 'compaction':
      return 44;
    case 'session-end':
      return 32;
    case 'rewind':
      return 76;
    case 'recovery':
      return 64;
  }
}

/** What a restore did, in plain words: it put files back, nothing outside the workspace (issue 13). */
export function rewindSummary(item: RewindItem): string {
  const count = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;
  const before = item.messageText === undefined ? `checkpoint ${item.checkpointId}` : `before “${clip(oneLine(item.messageText), 60)}”`;
  const changed = [
    `${count(item.restored.length, 'file')} put back`,
    ...(item.removed.length > 0 ? [`${count(item.removed.length, 'added file')} removed`] : []),
  ].join(', ');
  return `Files restored to ${before}: ${changed}. Only files in the workspace were restored; effects outside it (a pushed commit, a sent request, a database row) are not undone.`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function clip(text: string, maxLength: number): string {
  return text.length <= maxLength ? text : `${text.slice(0, maxLength - 1)}…`;
}
