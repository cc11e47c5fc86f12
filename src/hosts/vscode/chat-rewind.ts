/**
 * "Restore files to before this message" and "Restore and fork the conversation from here" in
 * the chat (issue 13), the controller's side, with no `vscode` import. The view asks for a
 * preview (every file with its diff), the user confirms, and the restore is the shared rewind of
 * `src/agent/rewind.ts`: it refuses to overwrite files changed outside Zuno unless the user says
 * so, and takes a checkpoint first so it can be undone. A restore never runs during a turn.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { applyRewind, previewRewind, type RewindPreview } from '../../agent/rewind';
import type { RuntimeCheckpoints } from '../../agent/checkpoints';
import type { EventBus } from '../../core/events';
import { MAX_FILE_BYTES, type ShadowCheckpoints } from '../../hosts/node/checkpoints';
import type { Store } from '../../store/store';
import type { FromWebview, RewindPreviewView, ToWebview } from '../../webview/protocol';

export type RewindMessage = Extract<FromWebview, { type: 'rewind-preview' | 'rewind-apply' | 'rewind-show-diff' }>;

export type RewindOutcome =
  { readonly kind: 'refused'; readonly preview: RewindPreviewView } | { readonly kind: 'done'; readonly forkedSessionId?: string };

/** The editor's rewinds (src/hosts/vscode/rewinds.ts); a fake in tests. */
export interface RewindBackend {
  preview(sessionId: string, checkpointId: string): Promise<RewindPreviewView>;
  /** Restores, and records the `rewind` event in the session (the view hears it as an event). */
  apply(sessionId: string, checkpointId: string, options: { readonly force: boolean; readonly fork: boolean }): Promise<RewindOutcome>;
  /** Opens the editor's diff of one file: as it is now, and as the restore would leave it. */
  showDiff(sessionId: string, checkpointId: string, path: string): Promise<void>;
}

export interface ChatRewindsOptions {
  readonly backend: RewindBackend;
  readonly post: (message: ToWebview) => void;
  readonly sessionId: () => string | undefined;
  readonly running: () => boolean;
  /** Shows the forked chat. */
  readonly openSession: (sessionId: string) => Promise<boolean>;
  /** Sends a message in the chat shown (an edited message resent in the fork). */
  readonly send: (text: string) => Promise<void>;
}

/**
 * The absolute path of a file the view names for a diff, or undefined when it would leave the
 * workspace: the name comes from the webview, which is untrusted input.
 */
export function workspaceFile(workspace: string, path: string): string | undefined {
  const absolute = resolve(workspace, path);
  const inside = relative(workspace, absolute);
  return inside === '' || inside.startsWith('..') || isAbsolute(inside) ? undefined : absolute;
}

/** The view's preview of a rewind: the shared plan, in the protocol's shape. */
export function previewView(preview: RewindPreview, refused = false): RewindPreviewView {
  return {
    checkpointId: preview.checkpoint.id,
    files: preview.files.map((file) => ({
      path: file.path,
      change: file.change,
      conflict: file.conflict,
      ...(file.diff !== undefined ? { diff: file.diff } : {}),
    })),
    overLimit: preview.overLimit,
    nested: preview.nested,
    limitMb: MAX_FILE_BYTES / (1024 * 1024),
    ...(refused ? { refused } : {}),
  };
}

/** The parts of the editor's runtime a rewind uses. */
export interface RewindRuntime {
  readonly checkpoints: Pick<RuntimeCheckpoints, 'shadow' | 'off'>;
  readonly store: Store;
  readonly events: EventBus;
}

/** Preview and restore over the runtime; `src/hosts/vscode/rewinds.ts` adds the diff editor. */
export class RuntimeRewinds {
  constructor(
    private readonly runtime: () => Promise<RewindRuntime>,
    private readonly workspaceRoot: string | undefined,
  ) {}

  protected async shadow(): Promise<{ runtime: RewindRuntime; shadow: ShadowCheckpoints; workspace: string }> {
    const runtime = await this.runtime();
    const shadow = runtime.checkpoints.shadow;
    if (shadow === undefined || this.workspaceRoot === undefined)
      throw new Error(runtime.checkpoints.off() ?? 'Checkpoints are not available in this window.');
    return { runtime, shadow, workspace: this.workspaceRoot };
  }

  async preview(sessionId: string, checkpointId: string): Promise<RewindPreviewView> {
    const { shadow } = await this.shadow();
    return previewView(await previewRewind(shadow, sessionId, checkpointId));
  }

  async apply(
    sessionId: string,
    checkpointId: string,
    options: { readonly force: boolean; readonly fork: boolean },
  ): Promise<RewindOutcome> {
    const { runtime, shadow, workspace } = await this.shadow();
    const result = await applyRewind({ shadow, store: runtime.store, sessionId, checkpointId, workspace, ...options });
    if (result.kind === 'refused')
      return { kind: 'refused', preview: previewView(await previewRewind(shadow, sessionId, checkpointId), true) };
    // Through the bus: the store records it and the open chat marks the rolled-back cards.
    runtime.events.emit(sessionId, result.event);
    return { kind: 'done', ...(result.forkedSessionId !== undefined ? { forkedSessionId: result.forkedSessionId } : {}) };
  }
}

export class ChatRewinds {
  constructor(private readonly options: ChatRewindsOptions) {}

  async handle(message: RewindMessage): Promise<void> {
    const sessionId = this.options.sessionId();
    if (sessionId === undefined) throw new Error('There is no chat to restore files for: open the chat first.');
    if (message.type === 'rewind-show-diff') return this.options.backend.showDiff(sessionId, message.checkpointId, message.path);
    if (this.options.running()) {
      this.options.post({ type: 'rewind-closed', checkpointId: message.checkpointId });
      throw new Error('Zuno is working in this chat. Cancel it or wait for it to finish, then restore files.');
    }
    if (message.type === 'rewind-preview') {
      try {
        this.options.post({ type: 'rewind-preview', preview: await this.options.backend.preview(sessionId, message.checkpointId) });
      } catch (error) {
        this.options.post({ type: 'rewind-closed', checkpointId: message.checkpointId });
        throw error;
      }
      return;
    }
    let outcome: RewindOutcome;
    try {
      outcome = await this.options.backend.apply(sessionId, message.checkpointId, { force: message.force, fork: message.fork });
    } catch (error) {
      this.options.post({ type: 'rewind-closed', checkpointId: message.checkpointId });
      throw error;
    }
    if (outcome.kind === 'refused') {
      // Files changed outside Zuno after the preview: shown again, with them, for a new decision.
      this.options.post({ type: 'rewind-preview', preview: outcome.preview });
      return;
    }
    this.options.post({ type: 'rewind-closed', checkpointId: message.checkpointId });
    if (outcome.forkedSessionId === undefined) return;
    const opened = await this.options.openSession(outcome.forkedSessionId);
    if (opened && message.type === 'rewind-apply' && message.resend !== undefined) await this.options.send(message.resend);
  }
}
