/**
 * The chat view's history (issue 14 item 10): list, search, rename and delete past chats, with
 * delegated tasks nested under the chat that delegated them. No `vscode` import: the store is
 * reached through `HistoryBackend`, and the controller hands in what it knows (the chat shown,
 * whether a turn runs).
 */
import { parseDelegatedSessionTitle } from '../../core/delegation';
import type { FromWebview, SessionSearchHit, SessionSummary, ToWebview } from '../../webview/protocol';

/** One stored session as the store lists it. */
export interface StoredSession {
  readonly id: string;
  readonly title?: string;
  readonly updatedAt: number;
}

/** What the history changes in the store; the list itself is `ChatBackend.sessions`. */
export interface HistoryBackend {
  /** Sessions whose prompts, answers or outputs hold every word of `query`, best first. */
  search(query: string): readonly SessionSearchHit[];
  rename(sessionId: string, title: string): void;
  /** Deletes the session's files, through the store's delete (as `zuno sessions delete`). */
  delete(sessionId: string): void;
}

/** How many full-text hits one search returns; titles are matched by the view over the whole list. */
export const SEARCH_LIMIT = 50;

/** A stored session as the history shows it: a delegated task by its goal, linked to its parent. */
export function sessionSummary(session: StoredSession): SessionSummary {
  const origin = parseDelegatedSessionTitle(session.title);
  if (origin === undefined) return { id: session.id, title: session.title ?? '(untitled chat)', updatedAt: session.updatedAt };
  return {
    id: session.id,
    title: origin.goal === '' ? `${origin.agent} task` : origin.goal,
    updatedAt: session.updatedAt,
    parent: { sessionId: origin.parentSessionId, callId: origin.parentCallId, agent: origin.agent },
  };
}

type HistoryMessage = Extract<FromWebview, { type: 'list-sessions' | 'search-sessions' | 'rename-session' | 'delete-session' }>;

export interface ChatHistoryOptions {
  readonly list: () => readonly StoredSession[];
  /** Absent where the store cannot be changed from the view (search, rename and delete then say so). */
  readonly backend: HistoryBackend | undefined;
  readonly post: (message: ToWebview) => void;
  /** The chat the view shows, and the one a turn runs in (undefined when none runs). */
  readonly shownSession: () => string | undefined;
  readonly runningSession: () => string | undefined;
  /** The shown chat was deleted: the view starts a new one. */
  readonly closeShown: () => void;
}

export class ChatHistory {
  constructor(private readonly options: ChatHistoryOptions) {}

  summaries(): SessionSummary[] {
    return this.options.list().map(sessionSummary);
  }

  /** Where a delegated task came from; undefined for a chat the user started. */
  origin(sessionId: string): SessionSummary['parent'] {
    return this.summaries().find((session) => session.id === sessionId)?.parent;
  }

  handle(message: HistoryMessage): void {
    switch (message.type) {
      case 'list-sessions':
        this.postList();
        return;
      case 'search-sessions': {
        const query = message.query.trim();
        this.options.post({ type: 'session-search', query: message.query, hits: query === '' ? [] : this.store().search(query) });
        return;
      }
      case 'rename-session':
        this.rename(message.sessionId, message.title);
        return;
      case 'delete-session':
        this.delete(message.sessionId);
        return;
    }
  }

  private rename(sessionId: string, title: string): void {
    const sessions = this.summaries();
    const session = sessions.find((candidate) => candidate.id === sessionId);
    if (session === undefined)
      throw new Error(`There is no chat ${sessionId} in this workspace's history any more; close History and open it again.`);
    // A task's stored title is its link to its parent chat: renaming it would lift it out of that chat.
    if (session.parent !== undefined)
      throw new Error('A delegated task is named after its goal and cannot be renamed; rename the chat that delegated it.');
    this.store().rename(sessionId, title);
    this.postList();
  }

  /** Deletes a chat and the tasks it delegated; refused while Zuno works in any of them. */
  private delete(sessionId: string): void {
    const sessions = this.summaries();
    if (!sessions.some((session) => session.id === sessionId)) {
      this.postList();
      return;
    }
    const doomed = [sessionId, ...sessions.filter((session) => session.parent?.sessionId === sessionId).map((session) => session.id)];
    const running = this.options.runningSession();
    if (running !== undefined && doomed.includes(running))
      throw new Error('Zuno is working in this chat. Press Stop first, then delete it.');
    // The tasks first: a failure half-way never leaves tasks whose chat is gone.
    for (const id of doomed.slice(1)) this.store().delete(id);
    this.store().delete(sessionId);
    if (doomed.includes(this.options.shownSession() ?? '')) this.options.closeShown();
    this.postList();
  }

  private store(): HistoryBackend {
    if (this.options.backend === undefined) throw new Error('Searching, renaming and deleting chats is not available here.');
    return this.options.backend;
  }

  private postList(): void {
    this.options.post({ type: 'sessions', sessions: this.summaries() });
  }
}
