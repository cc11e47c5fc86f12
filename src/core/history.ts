/**
 * Past sessions of the workspace as tools see them (issue 9; SPEC R1 lists session search in
 * the Safe set, E3 exempts session inspection from strict prompts). The store implements it;
 * the core only knows the shape.
 */
import type { TranscriptMessage } from './transcript';

export interface SessionSearchHit {
  readonly sessionId: string;
  readonly title?: string;
  readonly updatedAt: number;
  readonly score: number;
  /** The best matches: a prompt, an answer, or a tool call's output (ref is the call id). */
  readonly excerpts: readonly { readonly kind: 'prompt' | 'answer' | 'output'; readonly ref: string; readonly text: string }[];
}

export interface PastSession {
  readonly id: string;
  readonly title?: string;
  readonly status: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly messages: readonly TranscriptMessage[];
}

export interface SessionHistory {
  /**
   * Sessions containing every word of `query`, best first. `onProgress` hears of each session
   * the search had to index first (sessions written before the index existed).
   */
  searchSessions(
    query: string,
    options: {
      readonly limit: number;
      readonly excludeSessionId?: string;
      readonly onProgress?: (progress: { readonly scanned: number; readonly total: number; readonly indexed: number }) => void;
    },
  ): SessionSearchHit[];
  /** One session's transcript, or undefined when there is no such session. Throws naming the file when it cannot be read. */
  readSession(sessionId: string): PastSession | undefined;
}
