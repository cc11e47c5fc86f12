/**
 * The message protocol between the extension host and the chat webview. Messages FROM the
 * webview are untrusted input and are validated here with zod before anything acts on them.
 * Messages TO the webview are incremental: a snapshot once on (re)load, then one event at a
 * time, never the whole transcript per token.
 */
import { z } from 'zod';
import { PERMISSION_MODES, type PermissionRule } from '../core/config';
import type { Declarations } from '../core/declarations';
import type { ZunoEvent } from '../core/events';
import { IMAGE_MEDIA_TYPES, type ImagePart } from '../core/transcript';
import { ERROR_ACTIONS, type ErrorAction } from './editor-words';

export interface SessionSummary {
  readonly id: string;
  /** The stored title; for a delegated task, its goal. */
  readonly title: string;
  readonly updatedAt: number;
  /** Set for a delegated task: the history lists it under the chat that delegated it. */
  readonly parent?: { readonly sessionId: string; readonly callId: string; readonly agent: string };
}

/** A session whose prompts, answers or tool outputs hold every word searched for. */
export interface SessionSearchHit {
  readonly sessionId: string;
  readonly excerpt?: string;
}

/** One line of a rendered diff: the text without its +/-/space marker. */
export interface DiffLine {
  readonly kind: 'add' | 'remove' | 'context';
  readonly text: string;
}

export interface DiffHunk {
  /** `@@ -12,4 +12,6 @@` */
  readonly header: string;
  readonly lines: readonly DiffLine[];
}

/** One file of a proposed change, as the approval card draws it. */
export interface FileDiffPreview {
  /** Relative to the workspace when inside it. */
  readonly path: string;
  readonly movedTo?: string;
  readonly change: 'create' | 'update' | 'delete' | 'move';
  readonly added: number;
  readonly removed: number;
  readonly hunks: readonly DiffHunk[];
  /** Diff lines left out to keep the card light; Show diff has them all. */
  readonly omittedLines: number;
}

/**
 * What an approval will do, in the form that suits the tool (issue 14 item 3): the raw arguments
 * stay available under Details, but the card leads with this.
 */
export type ApprovalPreview =
  | { readonly kind: 'files'; readonly files: readonly FileDiffPreview[] }
  | { readonly kind: 'command'; readonly command: string; readonly cwd: string; readonly background: boolean }
  | { readonly kind: 'url'; readonly url: string }
  | {
      readonly kind: 'todos';
      readonly replacesList: boolean;
      readonly items: readonly { readonly id: string; readonly content?: string; readonly status?: string }[];
    }
  | { readonly kind: 'text'; readonly label: string; readonly text: string }
  | { readonly kind: 'table'; readonly title: string; readonly rows: readonly { readonly name: string; readonly value: string }[] };

/** A rule "Allow like this" can add, with what it lets through in words. */
export interface RuleChoice {
  readonly label: string;
  readonly rule: PermissionRule;
}

export interface PendingApproval {
  readonly callId: string;
  readonly tool: string;
  readonly declarations: Declarations;
  readonly subject?: string;
  readonly reason: string;
  /** Why the user is asked, in plain words for the card; `reason` keeps the policy's own wording for Details. */
  readonly plainReason?: string;
  /** The rules "Allow like this" offers, the exact one first; the view answers with an index. */
  readonly ruleChoices?: readonly RuleChoice[];
  /** What the call will do, drawn readably; absent when the tool has no special form. */
  readonly preview?: ApprovalPreview;
  /** Summary of the arguments for display (the webview escapes it). */
  readonly argumentsPreview: string;
  /** write, apply_patch and edit can open a diff preview. */
  readonly canShowDiff: boolean;
  /** Files a diff would show. */
  readonly paths?: readonly string[];
  readonly origin?: { readonly parentCallId: string; readonly agent: string };
}

export interface PendingQuestion {
  readonly callId: string;
  readonly question: string;
  readonly options?: readonly string[];
  readonly multiple?: boolean;
  readonly allowFreeText?: boolean;
}

/** A message typed while Zuno worked, waiting for the run's next step (issue 14 item 7). */
export interface QueuedMessage {
  readonly id: string;
  readonly text: string;
  /** Pasted with it; they go with the text when the run takes it, and back to the composer when removed. */
  readonly images?: readonly ImagePart[];
}

export interface ViewStatus {
  readonly permissionMode: string;
  readonly modelLabel: string;
  /** The model's name alone, for the header's model picker; absent when none is set. */
  readonly modelName?: string;
  /** Set when no model is configured: exactly how to set one up. */
  readonly setupHint?: string;
  readonly running: boolean;
  /** Why no checkpoint is taken before a turn's changes (no git on PATH, or turned off); absent when they are. */
  readonly checkpointsOff?: string;
}

/** One file a restore would change (issue 13). */
export interface RewindFileView {
  readonly path: string;
  /** What happened since the checkpoint: a restore removes an added file and puts the others back. */
  readonly change: 'added' | 'removed' | 'modified';
  /** Changed outside Zuno since the checkpoint: restoring overwrites that change. */
  readonly conflict: boolean;
  /** Unified diff from the file now to the file restored; absent past the preview's limit. */
  readonly diff?: string;
}

/** What "Restore files to before this message" would do, shown before the user confirms. */
export interface RewindPreviewView {
  readonly checkpointId: string;
  readonly files: readonly RewindFileView[];
  /** Files over the size limit, which a restore leaves as they are. */
  readonly overLimit: readonly string[];
  /** Nested repositories, which a restore leaves as they are. */
  readonly nested: readonly string[];
  /** The limit itself, for the words shown (MB). */
  readonly limitMb: number;
  /** Set when a confirmed restore was refused: files changed outside Zuno after the preview. */
  readonly refused?: boolean;
}

export type ToWebview =
  | {
      readonly type: 'snapshot';
      readonly sessionId: string | undefined;
      /** The stored events of the session, replayed by the view to rebuild cards. */
      readonly events: readonly ZunoEvent[];
      readonly approvals: readonly PendingApproval[];
      readonly questions: readonly PendingQuestion[];
      readonly status: ViewStatus;
      /** The session's last run never finished (the window closed or reloaded mid-run): the view offers Resume. */
      readonly interrupted?: boolean;
      /** Set when the session is a delegated task: its first message is the task's brief, not the user's. */
      readonly delegated?: { readonly agent: string; readonly parentSessionId: string };
    }
  | { readonly type: 'event'; readonly event: ZunoEvent }
  | { readonly type: 'approval'; readonly approval: PendingApproval }
  | { readonly type: 'approval-closed'; readonly callId: string }
  | { readonly type: 'question'; readonly question: PendingQuestion }
  | { readonly type: 'question-closed'; readonly callId: string }
  | { readonly type: 'sessions'; readonly sessions: readonly SessionSummary[] }
  /** The answer to a `search-sessions`; the view drops answers to queries it no longer shows. */
  | { readonly type: 'session-search'; readonly query: string; readonly hits: readonly SessionSearchHit[] }
  | { readonly type: 'status'; readonly status: ViewStatus }
  /** The queued messages, whole, whenever they change. */
  | { readonly type: 'queue'; readonly items: readonly QueuedMessage[] }
  /** Text the host could not send (no model, or the run was cancelled before taking it): back into the composer. */
  | { readonly type: 'restore-draft'; readonly text: string; readonly images?: readonly ImagePart[] }
  | { readonly type: 'rewind-preview'; readonly preview: RewindPreviewView }
  /** The preview of this checkpoint is over: restored, or it failed (an `error` says why). */
  | { readonly type: 'rewind-closed'; readonly checkpointId: string }
  /** Workspace files for an @-mention being typed (issue 14 item 14); `query` says which keystroke they answer. */
  | { readonly type: 'mention-results'; readonly query: string; readonly paths: readonly string[] }
  /** Text for the composer, added after what is typed there and not sent (Add Selection to Chat). */
  | { readonly type: 'compose'; readonly text: string }
  /** `actions`: the buttons of the error card (issue 14 item 7); none for a plain refusal. */
  | { readonly type: 'error'; readonly text: string; readonly actions?: readonly ErrorAction[] };

const id = z.string().min(1).max(200);

export const fromWebviewSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('ready') }),
  z.strictObject({
    type: z.literal('send'),
    text: z.string().min(1).max(200_000),
    /** Pasted images (issue 14), base64 without the `data:` prefix; at most 4 of about 5 MB each. */
    images: z
      .array(
        z.strictObject({
          mediaType: z.enum(IMAGE_MEDIA_TYPES),
          data: z
            .string()
            .min(1)
            .max(7_000_000)
            .regex(/^[A-Za-z0-9+/]+={0,2}$/),
        }),
      )
      .min(1)
      .max(4)
      .optional(),
  }),
  z.strictObject({ type: z.literal('cancel') }),
  /** Continues a chat whose run was cut off, from the recovery card (issue 14 item 11). */
  z.strictObject({ type: z.literal('resume') }),
  z.strictObject({ type: z.literal('new-chat') }),
  z.strictObject({ type: z.literal('list-sessions') }),
  z.strictObject({ type: z.literal('open-session'), sessionId: id }),
  z.strictObject({ type: z.literal('search-sessions'), query: z.string().max(1000) }),
  z.strictObject({ type: z.literal('rename-session'), sessionId: id, title: z.string().trim().min(1).max(200) }),
  /** Deletes the session's files (and its delegated tasks'); the view asked the user to confirm first. */
  z.strictObject({ type: z.literal('delete-session'), sessionId: id }),
  z.strictObject({
    type: z.literal('approval-decision'),
    callId: id,
    approved: z.boolean(),
    reason: z.string().max(10_000).optional(),
    /** Writes a visible permission rule into settings (never a hidden "always"). */
    allowLikeThis: z.boolean().optional(),
    /** Which of the approval's `ruleChoices` to add; the exact rule when absent. */
    ruleChoice: z.number().int().min(0).max(9).optional(),
  }),
  /**
   * "Approve all N" (issue 14): approves exactly these calls, the ones pending when the user
   * clicked, each as if Approve had been pressed on it; no rule is added.
   */
  z.strictObject({ type: z.literal('approve-all'), callIds: z.array(id).min(2).max(100) }),
  z.strictObject({ type: z.literal('show-diff'), callId: id }),
  z.strictObject({
    type: z.literal('question-answer'),
    callId: id,
    answered: z.boolean(),
    selected: z.array(z.string().max(10_000)).max(100).default([]),
    text: z.string().max(100_000).optional(),
  }),
  z.strictObject({ type: z.literal('configure-model') }),
  /** The header's mode dropdown: writes zuno.permission.mode as "Set Permission Mode" does. */
  z.strictObject({ type: z.literal('set-mode'), mode: z.enum(PERMISSION_MODES) }),
  z.strictObject({ type: z.literal('unqueue'), id }),
  z.strictObject({ type: z.literal('error-action'), action: z.enum(ERROR_ACTIONS) }),
  z.strictObject({ type: z.literal('rewind-preview'), checkpointId: id }),
  /** The text after an `@` in the composer: which workspace files to offer. */
  z.strictObject({ type: z.literal('mention-search'), query: z.string().max(500) }),
  z.strictObject({ type: z.literal('rewind-show-diff'), checkpointId: id, path: z.string().min(1).max(4096) }),
  /** `force` overwrites files changed outside Zuno since the checkpoint; `fork` continues in a new chat that ends before the message. */
  z.strictObject({
    type: z.literal('rewind-apply'),
    checkpointId: id,
    force: z.boolean(),
    fork: z.boolean(),
    /** Edit-and-resend with the files restored: sent in the fork once it is open. */
    resend: z.string().min(1).max(200_000).optional(),
  }),
  /**
   * Edit-and-resend or Retry (issue 14): continue from before the user's `ordinal`-th message (0-based)
   * in a new chat, sending `text` as a new turn.
   */
  z.strictObject({ type: z.literal('resend'), ordinal: z.number().int().min(0).max(1_000_000), text: z.string().min(1).max(200_000) }),
]);

export type FromWebview = z.infer<typeof fromWebviewSchema>;

/** Validates a message from the webview; `undefined` (and a logged reason) for anything else. */
export function parseFromWebview(raw: unknown): { ok: true; message: FromWebview } | { ok: false; error: string } {
  const result = fromWebviewSchema.safeParse(raw);
  if (result.success) return { ok: true, message: result.data };
  return { ok: false, error: result.error.issues.map((issue) => `${issue.path.join('.') || 'message'}: ${issue.message}`).join('; ') };
}
