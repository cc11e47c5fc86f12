/**
 * Approve and Deny in the diff editor's title bar while a Zuno proposal is shown (issue 14 item
 * 13). The context key `zuno.proposalActive` follows the active tab: true while it is the diff of
 * a proposal that still waits for approval. The buttons decide that approval through the same
 * broker as the chat's buttons, so the same checks apply (unsaved files, a file changed on disk)
 * and the user's edits to the proposed side land as they would from the chat.
 */
import * as vscode from 'vscode';
import type { ApprovalBroker } from './approval-state';
import { PROPOSAL_CONTEXT_KEY } from './manifest';
import { proposalCallOf } from './proposals';

export class ProposalTitleActions implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private shown: boolean | undefined;

  constructor(private readonly approvals: ApprovalBroker) {
    this.disposables.push(
      vscode.window.tabGroups.onDidChangeTabs(() => this.update()),
      vscode.window.tabGroups.onDidChangeTabGroups(() => this.update()),
      vscode.window.onDidChangeActiveTextEditor(() => this.update()),
    );
    this.update();
  }

  /** The pending approval whose proposal is the active tab, if any. */
  activeCall(): string | undefined {
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    const callId = input instanceof vscode.TabInputTextDiff ? proposalCallOf(input.modified) : undefined;
    return callId !== undefined && this.approvals.pending().some((approval) => approval.callId === callId) ? callId : undefined;
  }

  /** Re-evaluates the context key (a tab changed, or an approval came or went). */
  update(): void {
    const shown = this.activeCall() !== undefined;
    if (shown === this.shown) return;
    this.shown = shown;
    void vscode.commands.executeCommand('setContext', PROPOSAL_CONTEXT_KEY, shown);
  }

  /** The title bar's Approve or Deny; a refusal (say, the file has unsaved changes) is shown where the user is. */
  async decide(approved: boolean): Promise<void> {
    const callId = this.activeCall();
    if (callId === undefined) throw new Error('The active editor shows no Zuno proposal that waits for approval.');
    const result = await this.approvals.decide(callId, { approved });
    this.update();
    if (!result.accepted) void vscode.window.showWarningMessage(`Zuno: ${result.error}`);
  }

  dispose(): void {
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
  }
}
