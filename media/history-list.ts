// Which rows the history panel shows, in which order (issue 14 item 10); DOM-free for the tests.
import type { SessionSummary } from '../src/webview/protocol';

export interface HistoryRow {
  readonly session: SessionSummary;
  /** 1 for a delegated task drawn under the chat that delegated it. */
  readonly depth: 0 | 1;
  /** Where the searched words occur in the session's prompts, answers or outputs. */
  readonly excerpt?: string;
}

/** Every word of the query occurs in the title, ignoring case. */
function titleMatches(title: string, words: readonly string[]): boolean {
  const lower = title.toLowerCase();
  return words.every((word) => lower.includes(word));
}

/**
 * Chats most recent first, each followed by its delegated tasks (oldest first, the order they ran
 * in); a task whose chat is gone stands on its own. With a query, a chat is shown when its title
 * or its text matches (`hits`, from the store's full-text search) or when one of its tasks does;
 * a task is shown when it matches or its chat does.
 */
export function historyRows(
  sessions: readonly SessionSummary[],
  query: string,
  hits: ReadonlyMap<string, string | undefined>,
  limit: number,
): HistoryRow[] {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '');
  const matches = (session: SessionSummary): boolean => words.length === 0 || hits.has(session.id) || titleMatches(session.title, words);
  const known = new Set(sessions.map((session) => session.id));
  const tasksOf = new Map<string, SessionSummary[]>();
  const chats: SessionSummary[] = [];
  for (const session of sessions) {
    const parent = session.parent?.sessionId;
    if (parent === undefined || !known.has(parent)) {
      chats.push(session);
      continue;
    }
    tasksOf.set(parent, [...(tasksOf.get(parent) ?? []), session]);
  }
  const row = (session: SessionSummary, depth: 0 | 1): HistoryRow => {
    const excerpt = hits.get(session.id);
    return { session, depth, ...(excerpt !== undefined ? { excerpt } : {}) };
  };
  const rows: HistoryRow[] = [];
  for (const chat of [...chats].sort((left, right) => right.updatedAt - left.updatedAt)) {
    const tasks = [...(tasksOf.get(chat.id) ?? [])].sort((left, right) => left.updatedAt - right.updatedAt);
    const chatMatches = matches(chat);
    const shownTasks = chatMatches ? tasks : tasks.filter(matches);
    if (!chatMatches && shownTasks.length === 0) continue;
    rows.push(row(chat, 0), ...shownTasks.map((task) => row(task, 1)));
    if (rows.length >= limit) break;
  }
  return rows.slice(0, limit);
}
