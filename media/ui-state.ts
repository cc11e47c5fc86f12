/**
 * What the user is doing in the view that the host does not know about: half-typed drafts,
 * expanded cards, decisions sent but not yet acknowledged. It lives outside the DOM because the
 * virtualized list throws rows away when they scroll out of view; a row drawn again must come back
 * exactly as the user left it. The composer draft and expanded cards also survive a reload through
 * the webview's own `setState`.
 */
import type { ToWebview } from '../src/webview/protocol';

export interface QuestionDraft {
  selected: string[];
  text: string;
}

/** The part kept across reloads; small on purpose (VS Code serialises it on every `setState`). */
export interface PersistedUiState {
  readonly draft: string;
  readonly expanded: readonly string[];
  /** The plan/todo panel folded (issue 14 item 14). */
  readonly workPanelCollapsed?: boolean;
}

/** Enough expanded cards to cover a long session without letting the saved state grow forever. */
const MAX_REMEMBERED_EXPANDED = 200;

export class UiState {
  draft = '';
  /** Call ids whose details (arguments and output) are open. */
  readonly expanded = new Set<string>();
  readonly denyReasons = new Map<string, string>();
  /** Approvals the user answered; their buttons stay disabled until the host closes them. */
  readonly decided = new Set<string>();
  readonly questionDrafts = new Map<string, QuestionDraft>();
  /** Questions the user answered or cancelled, waiting for `question-closed`. */
  readonly answered = new Set<string>();
  historyOpen = false;
  workPanelCollapsed = false;

  static restore(saved: unknown): UiState {
    const state = new UiState();
    if (saved === null || typeof saved !== 'object') return state;
    const { draft, expanded, workPanelCollapsed } = saved as Partial<Record<keyof PersistedUiState, unknown>>; // checked field by field below
    if (typeof draft === 'string') state.draft = draft;
    if (workPanelCollapsed === true) state.workPanelCollapsed = true;
    if (Array.isArray(expanded)) for (const callId of expanded) if (typeof callId === 'string') state.expanded.add(callId);
    return state;
  }

  persisted(): PersistedUiState {
    return {
      draft: this.draft,
      expanded: [...this.expanded].slice(-MAX_REMEMBERED_EXPANDED),
      ...(this.workPanelCollapsed ? { workPanelCollapsed: true } : {}),
    };
  }

  toggleExpanded(callId: string): void {
    if (this.expanded.has(callId)) this.expanded.delete(callId);
    else this.expanded.add(callId);
  }

  questionDraft(callId: string): QuestionDraft {
    let draft = this.questionDrafts.get(callId);
    if (draft === undefined) {
      draft = { selected: [], text: '' };
      this.questionDrafts.set(callId, draft);
    }
    return draft;
  }

  /**
   * Forgets what the host has settled, so a later approval for the same call starts clean.
   * Returns the call ids whose cards must be drawn again because only UI state changed.
   */
  receive(message: ToWebview): readonly string[] {
    switch (message.type) {
      case 'snapshot':
        this.denyReasons.clear();
        this.decided.clear();
        this.questionDrafts.clear();
        this.answered.clear();
        this.historyOpen = false;
        return [];
      case 'approval-closed':
        this.decided.delete(message.callId);
        this.denyReasons.delete(message.callId);
        return [];
      case 'question-closed':
        this.answered.delete(message.callId);
        this.questionDrafts.delete(message.callId);
        return [];
      case 'error': {
        // The host refused something (e.g. a decision it could not apply) without closing the
        // approval: give the buttons back so the user can decide again instead of being stuck.
        const reopened = [...this.decided, ...this.answered];
        this.decided.clear();
        this.answered.clear();
        return reopened;
      }
      default:
        return [];
    }
  }
}
