/**
 * Strict approvals in the editor, as a state machine with no `vscode` import (issue 4,
 * "Diff-preview approval"). The editor-specific parts (posting to the webview, opening diffs,
 * reading the proposed side, writing a rule into settings) come in through `ApprovalEnvironment`,
 * so every transition is unit-tested in plain node.
 *
 * A request is `pending` until exactly one of: the user approves, the user denies, the turn is
 * cancelled (the scheduler's signal, or Cancel in the UI). Approving is refused, and the request
 * stays pending, while a target file has unsaved edits in an editor (never silently overwritten),
 * or when the file changed on disk under a proposal the user edited (their text would clobber the
 * newer change). A file that changed under an unedited proposal is approved only on a second,
 * explicit Approve; the tool then verifies its change against the file as it is at apply time.
 */
import { isAbsolute, relative } from 'node:path';
import type { PermissionRule } from '../../core/config';
import type { ApprovalDecision, ApprovalGateway, ApprovalRequest, FileChange } from '../../core/host';
import type { PendingApproval, ToWebview } from '../../webview/protocol';
import { buildApprovalPreview, plainReason } from './approval-preview';
import { allowRuleFor, ruleChoices } from './rule-choices';

// Where the tests and other callers have always found them.
export { allowRuleFor, escapeGlob } from './rule-choices';

/** What the approval flow needs from the editor. */
export interface ApprovalEnvironment {
  /** Sends a message to the chat view (dropped while no view listens; the snapshot covers it). */
  post(message: ToWebview): void;
  /** Opens one diff per file: the file as it is now against the editable proposed text. */
  showDiff(callId: string, changes: readonly FileChange[]): Promise<void>;
  /**
   * The proposed side as the user left it (unsaved edits included), or `undefined` when no
   * preview of it was opened.
   */
  proposedText(callId: string, change: FileChange): Promise<string | undefined>;
  /** Those of `paths` that have unsaved changes in an editor. */
  unsavedPaths(paths: readonly string[]): readonly string[];
  /** The file's text on disk as a preview shows it (no BOM), or `undefined` when it does not exist. */
  currentText(path: string): Promise<string | undefined>;
  /** Appends a rule to the visible `zuno.permission.rules` setting. */
  addAllowRule(rule: PermissionRule): Promise<void>;
  /** Closes the proposal's diff editors and forgets its documents. */
  discardProposals(callId: string): Promise<void>;
}

export interface DecisionInput {
  readonly approved: boolean;
  readonly reason?: string;
  readonly allowLikeThis?: boolean;
  /** Index into the approval's `ruleChoices`; the exact rule when absent or out of range. */
  readonly ruleChoice?: number;
}

/** Whether the decision was taken; when not, why (also posted to the view as an error). */
export type DecisionResult = { readonly accepted: true } | { readonly accepted: false; readonly error: string };

interface PendingEntry {
  readonly request: ApprovalRequest;
  readonly view: PendingApproval;
  readonly settle: (decision: ApprovalDecision) => void;
  /** An approval is being checked (async); a second decision meanwhile is refused. */
  deciding: boolean;
  /** The user was told the file changed on disk and may approve again to go ahead. */
  staleAcknowledged: boolean;
}

export const CANCELLED_REASON = 'cancelled';

/** Longest argument summary shown on a card; the full arguments are in the tool log. */
const ARGUMENTS_PREVIEW_LIMIT = 4000;

function argumentsPreview(args: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(args, null, 2) ?? String(args);
  } catch {
    text = String(args);
  }
  return text.length > ARGUMENTS_PREVIEW_LIMIT
    ? `${text.slice(0, ARGUMENTS_PREVIEW_LIMIT)}\n… (${text.length - ARGUMENTS_PREVIEW_LIMIT} more characters)`
    : text;
}

/** Every path a change touches: a move writes its destination too. */
function touchedPaths(change: FileChange): string[] {
  return change.movedTo ? [change.path, change.movedTo] : [change.path];
}

export class ApprovalBroker implements ApprovalGateway {
  private readonly entries = new Map<string, PendingEntry>();
  /** The chat shows every pending approval as its own card, with "Approve all N" (issue 14). */
  readonly showsTogether = true;

  constructor(
    private readonly environment: ApprovalEnvironment,
    private readonly workspaceRoot: string,
  ) {}

  request(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    if (signal.aborted) return Promise.resolve({ approved: false, reason: CANCELLED_REASON });
    return new Promise<ApprovalDecision>((resolve) => {
      const onAbort = (): void => this.close(request.callId, { approved: false, reason: CANCELLED_REASON });
      const changes = request.changes ?? [];
      const preview = buildApprovalPreview(request, (path) => this.display(path), this.workspaceRoot);
      const view: PendingApproval = {
        callId: request.callId,
        tool: request.tool,
        declarations: request.declarations,
        reason: request.reason,
        plainReason: plainReason(request),
        ruleChoices: ruleChoices(request, this.workspaceRoot),
        argumentsPreview: argumentsPreview(request.arguments),
        canShowDiff: changes.length > 0,
        ...(request.subject !== undefined ? { subject: request.subject } : {}),
        ...(preview !== undefined ? { preview } : {}),
        ...(changes.length > 0 ? { paths: changes.flatMap(touchedPaths).map((path) => this.display(path)) } : {}),
        ...(request.origin ? { origin: request.origin } : {}),
      };
      this.entries.set(request.callId, {
        request,
        view,
        deciding: false,
        staleAcknowledged: false,
        settle: (decision) => {
          signal.removeEventListener('abort', onAbort);
          resolve(decision);
        },
      });
      signal.addEventListener('abort', onAbort, { once: true });
      this.environment.post({ type: 'approval', approval: view });
    });
  }

  /** The cards a (re)loaded view must show. */
  pending(): PendingApproval[] {
    return [...this.entries.values()].map((entry) => entry.view);
  }

  get size(): number {
    return this.entries.size;
  }

  async showDiff(callId: string): Promise<DecisionResult> {
    const entry = this.entries.get(callId);
    if (!entry) return this.refuse(callId, 'This approval is no longer pending.');
    const changes = entry.request.changes ?? [];
    if (changes.length === 0) return this.refuse(callId, `The ${entry.request.tool} call has no file changes to show.`);
    await this.environment.showDiff(callId, changes);
    return { accepted: true };
  }

  async decide(callId: string, input: DecisionInput): Promise<DecisionResult> {
    const entry = this.entries.get(callId);
    if (!entry) return this.refuse(callId, 'This approval is no longer pending.');
    if (entry.deciding) return this.refuse(callId, 'This approval is already being applied.');
    if (!input.approved) {
      const reason = input.reason?.trim();
      this.close(callId, { approved: false, ...(reason ? { reason } : {}) });
      return { accepted: true };
    }
    entry.deciding = true;
    try {
      const problem = await this.approvalProblem(entry);
      // A cancel may have closed the request while the files were being checked.
      if (this.entries.get(callId) !== entry) return { accepted: false, error: 'The request was cancelled meanwhile.' };
      if (problem) return this.refuse(callId, problem);
      const editedContents = await this.editedContents(entry);
      let addedRule: PermissionRule | undefined;
      if (input.allowLikeThis) {
        const rule = entry.view.ruleChoices?.[input.ruleChoice ?? 0]?.rule ?? allowRuleFor(entry.request, this.workspaceRoot);
        try {
          await this.environment.addAllowRule(rule);
          addedRule = rule;
        } catch (error) {
          this.environment.post({
            type: 'error',
            text: `The call was approved, but the rule could not be written to settings: ${error instanceof Error ? error.message : String(error)}`,
          });
        }
      }
      if (this.entries.get(callId) !== entry) return { accepted: false, error: 'The request was cancelled meanwhile.' };
      this.close(callId, {
        approved: true,
        ...(Object.keys(editedContents).length > 0 ? { editedContents } : {}),
        ...(addedRule ? { addedRule } : {}),
      });
      return { accepted: true };
    } finally {
      entry.deciding = false;
    }
  }

  /**
   * "Approve all N": each of `callIds` that is still pending is approved as if its own Approve had
   * been pressed (the same checks, its own approval record, no rule added), one after the other.
   * Calls that came up after the click are not in the list, so they still wait for the user.
   */
  async approveAll(callIds: readonly string[]): Promise<DecisionResult[]> {
    const results: DecisionResult[] = [];
    for (const callId of new Set(callIds)) {
      // Settled since the click (a cancel, the turn's end): nothing left to approve, nothing to say.
      if (!this.entries.has(callId)) continue;
      results.push(await this.decide(callId, { approved: true }));
    }
    return results;
  }

  /** Closes every pending request as denied; Cancel in the UI and New Chat use this. */
  cancelAll(reason = CANCELLED_REASON): void {
    for (const callId of [...this.entries.keys()]) this.close(callId, { approved: false, reason });
  }

  /** Why approving now would clobber something, or undefined when it is safe to go ahead. */
  private async approvalProblem(entry: PendingEntry): Promise<string | undefined> {
    const changes = entry.request.changes ?? [];
    const unsaved = this.environment.unsavedPaths(changes.flatMap(touchedPaths));
    if (unsaved.length > 0) {
      return (
        `Not approved yet: ${unsaved.map((path) => this.display(path)).join(', ')} ${unsaved.length === 1 ? 'has' : 'have'} unsaved changes in an editor. ` +
        'Zuno never overwrites an unsaved buffer: save or revert it, then approve again (or deny).'
      );
    }
    const stale: string[] = [];
    for (const change of changes) {
      const now = await this.environment.currentText(change.path);
      if (now !== change.before) stale.push(this.display(change.path));
    }
    if (stale.length === 0) return undefined;
    const edited = Object.keys(await this.editedContents(entry));
    if (edited.length > 0) {
      return (
        `Not approved: ${stale.join(', ')} changed on disk after this proposal was made, and your edits to the proposal are based on the old text, ` +
        'so applying them would overwrite the newer change. Deny this call so the model re-reads the file, then redo your edits on its next proposal.'
      );
    }
    if (entry.staleAcknowledged) return undefined;
    entry.staleAcknowledged = true;
    return (
      `${stale.join(', ')} changed on disk after this proposal was made. If you approve again, the tool first verifies its change against ` +
      'the file as it is then, and fails without writing anything if it no longer fits. Or deny it.'
    );
  }

  /** The proposed texts the user changed in the diff preview, by `FileChange.path`. */
  private async editedContents(entry: PendingEntry): Promise<Record<string, string>> {
    const edited: Record<string, string> = {};
    for (const change of entry.request.changes ?? []) {
      if (change.kind === 'delete' || change.after === undefined) continue;
      const text = await this.environment.proposedText(entry.request.callId, change);
      if (text !== undefined && text !== change.after) edited[change.path] = text;
    }
    return edited;
  }

  private close(callId: string, decision: ApprovalDecision): void {
    const entry = this.entries.get(callId);
    if (!entry) return;
    this.entries.delete(callId);
    entry.settle(decision);
    this.environment.post({ type: 'approval-closed', callId });
    this.environment.discardProposals(callId).catch(() => undefined);
  }

  private refuse(callId: string, error: string): DecisionResult {
    this.environment.post({ type: 'error', text: error });
    if (!this.entries.has(callId)) this.environment.post({ type: 'approval-closed', callId });
    return { accepted: false, error };
  }

  private display(path: string): string {
    const inside = relative(this.workspaceRoot, path);
    return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) ? inside.split('\\').join('/') : path;
  }
}
