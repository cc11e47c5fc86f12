/**
 * When checkpoints are taken (issue 13): once per user turn, just before its first side effect,
 * so a turn that only reads costs nothing, and once when that turn ends, so that what changes
 * between turns can be told apart from what Zuno changed. How a checkpoint is made (a shadow git
 * repository, `src/hosts/node/checkpoints.ts`) is behind `CheckpointPort`; this file is the
 * timing only, and it never fails a turn: a checkpoint that cannot be made is the port's notice.
 */

/** Where a user turn starts in its session's transcript, for a fork that ends before it. */
export interface PromptMark {
  /** The index of the turn's user message in the session's transcript. */
  readonly messageIndex: number;
  readonly text: string;
}

export type SnapshotKind = 'turn' | 'after-turn';

export interface CheckpointPort {
  /**
   * Snapshots the work tree. `turn` is the restorable checkpoint before the turn's first side
   * effect; `after-turn` records what the turn left. Must not reject: failures are the port's
   * notice to the session.
   */
  snapshot(sessionId: string, kind: SnapshotKind, prompt: PromptMark | undefined): Promise<void>;
}

/** What a scheduler and the agent loop tell the checkpoints about a session's turns. */
export interface CheckpointRecorder {
  /** A user turn begins (the scheduler's `beginPrompt`). */
  beginPrompt(sessionId: string): void;
  /** The turn's user message is in the transcript at `mark.messageIndex`. */
  notePrompt(sessionId: string, mark: PromptMark): void;
  /** Before every SideEffecting call runs; the first of a turn waits for its checkpoint. Never rejects. */
  beforeSideEffect(sessionId: string): Promise<void>;
  /** The turn ended; when it took a checkpoint, the state it left is recorded. Never rejects. */
  endPrompt(sessionId: string): Promise<void>;
}

interface TurnState {
  prompt?: PromptMark;
  /** Set once the turn's checkpoint is under way: every later side effect of the turn waits on the same one. */
  checkpoint?: Promise<void>;
}

export class TurnCheckpoints implements CheckpointRecorder {
  private readonly turns = new Map<string, TurnState>();

  constructor(private readonly port: CheckpointPort) {}

  beginPrompt(sessionId: string): void {
    this.turns.set(sessionId, {});
  }

  notePrompt(sessionId: string, mark: PromptMark): void {
    const turn = this.turns.get(sessionId);
    if (turn) turn.prompt = mark;
    else this.turns.set(sessionId, { prompt: mark });
  }

  beforeSideEffect(sessionId: string): Promise<void> {
    let turn = this.turns.get(sessionId);
    if (!turn) {
      // A side effect outside a begun prompt (a scheduler driven directly) still gets its checkpoint.
      turn = {};
      this.turns.set(sessionId, turn);
    }
    turn.checkpoint ??= this.port.snapshot(sessionId, 'turn', turn.prompt).catch(() => undefined);
    return turn.checkpoint;
  }

  async endPrompt(sessionId: string): Promise<void> {
    const turn = this.turns.get(sessionId);
    this.turns.delete(sessionId);
    if (!turn?.checkpoint) return;
    // The checkpoint may still be running (a cancelled turn); the state after it is what the turn left.
    await turn.checkpoint;
    await this.port.snapshot(sessionId, 'after-turn', turn.prompt).catch(() => undefined);
  }

  /**
   * For a delegated child's scheduler: the child's side effects belong to the parent's user turn,
   * so the first of them takes the parent's checkpoint; the child's own prompts are not user turns.
   */
  forChildOf(parentSessionId: string): CheckpointRecorder {
    return {
      beginPrompt: () => undefined,
      notePrompt: () => undefined,
      beforeSideEffect: () => this.beforeSideEffect(parentSessionId),
      endPrompt: () => Promise.resolve(),
    };
  }
}
