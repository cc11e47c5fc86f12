/**
 * The runtime's checkpoints (issue 13): the shadow repository of `src/hosts/node/checkpoints.ts`
 * behind the core's `TurnCheckpoints`, with what the session is told. A checkpoint that cannot be
 * made is a warning notice and the turn goes on; without git, checkpoints are off and the first
 * side effect of each session says why.
 */
import { TurnCheckpoints, type PromptMark, type SnapshotKind } from '../core/checkpoints';
import type { EventBus } from '../core/events';
import { MAX_FILE_BYTES, ShadowCheckpoints } from '../hosts/node/checkpoints';

const LISTED = 10;
const listed = (paths: readonly string[]): string =>
  `${paths.slice(0, LISTED).join(', ')}${paths.length > LISTED ? ` and ${paths.length - LISTED} more` : ''}`;
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export interface RuntimeCheckpoints {
  readonly recorder: TurnCheckpoints;
  /** The shadow repository, for rewinds; absent without git. */
  readonly shadow: ShadowCheckpoints | undefined;
  /** Why no checkpoint is taken now (no git, or `checkpoints.enabled` off); undefined when they are. */
  off(): string | undefined;
  /** Stops a warm-up still running, so the process can exit. */
  close(): void;
}

export const DISABLED_TEXT =
  'Checkpoints are off (checkpoints.enabled is false): file changes made from now on cannot be restored from Zuno.';

/**
 * Opens the workspace's checkpoints and starts staging the work tree in the background, where
 * the checkpoints of sessions no longer `kept` by the store are dropped and gc runs, never on a
 * turn's path. `enabled` is read at every turn, so the editor's setting applies without a reload.
 */
export async function openCheckpoints(options: {
  readonly stateDir: string;
  readonly workspaceRoot: string;
  readonly events: EventBus;
  readonly enabled: () => boolean;
  readonly kept?: (sessionId: string) => boolean;
  readonly git?: string;
}): Promise<RuntimeCheckpoints> {
  const { events, enabled } = options;
  const engine = await ShadowCheckpoints.open(options);
  // Off the turn's path: the model's first answer takes a while, and the first checkpoint is then incremental.
  if (!('unavailable' in engine) && enabled()) void engine.warm(options.kept);
  const toldOff = new Set<string>();
  /** Sessions whose running turn took no checkpoint because they were turned off. */
  const offTurns = new Set<string>();
  /** Nested repositories and large files are told once per session, not at every turn. */
  const toldSkips = new Map<string, Set<string>>();
  const recorder = new TurnCheckpoints({
    async snapshot(sessionId: string, kind: SnapshotKind, prompt: PromptMark | undefined): Promise<void> {
      // Off for this turn, and so for the end of it: git is not run at all.
      if (kind === 'turn' && !enabled()) {
        offTurns.add(sessionId);
        return;
      }
      if (kind === 'after-turn' && offTurns.delete(sessionId)) return;
      if ('unavailable' in engine) {
        if (!toldOff.has(sessionId)) events.emit(sessionId, { type: 'notice', level: 'warning', text: engine.unavailable });
        toldOff.add(sessionId);
        return;
      }
      try {
        const record = await engine.snapshot({
          sessionId,
          kind,
          ...(prompt ? { messageIndex: prompt.messageIndex, prompt: prompt.text } : {}),
        });
        if (kind !== 'turn') return;
        events.emit(sessionId, {
          type: 'checkpoint-created',
          checkpoint_id: record.id,
          ...(record.messageIndex !== undefined ? { message_index: record.messageIndex } : {}),
          ...(record.skipped.length > 0 ? { skipped: [...record.skipped] } : {}),
          ...(record.nested.length > 0 ? { nested: [...record.nested] } : {}),
        });
        const told = toldSkips.get(sessionId) ?? new Set<string>();
        toldSkips.set(sessionId, told);
        const nested = record.nested.filter((path) => !told.has(`nested:${path}`));
        const skipped = record.skipped.filter((path) => !told.has(`large:${path}`));
        for (const path of nested) told.add(`nested:${path}`);
        for (const path of skipped) told.add(`large:${path}`);
        if (nested.length > 0) {
          events.emit(sessionId, {
            type: 'notice',
            level: 'info',
            text: `Checkpoints leave nested repositories alone (their .git and files are never touched, and a rewind does not restore them): ${listed(nested)}.`,
          });
        }
        if (skipped.length > 0) {
          events.emit(sessionId, {
            type: 'notice',
            level: 'info',
            text: `Checkpoints skip files larger than ${MAX_FILE_BYTES / (1024 * 1024)} MB, and a rewind leaves them as they are: ${listed(skipped)}.`,
          });
        }
      } catch (error) {
        const text =
          kind === 'turn'
            ? `No checkpoint was taken before this turn's changes (${messageOf(error)}). The turn goes on, but its changes cannot be rewound.`
            : `The state this turn left could not be recorded (${messageOf(error)}); a later rewind may count this turn's changes as made outside Zuno and ask for --force.`;
        events.emit(sessionId, { type: 'notice', level: 'warning', text });
      }
    },
  });
  return {
    recorder,
    shadow: 'unavailable' in engine ? undefined : engine,
    off: () => ('unavailable' in engine ? engine.unavailable : enabled() ? undefined : DISABLED_TEXT),
    close: () => ('unavailable' in engine ? undefined : engine.close()),
  };
}
