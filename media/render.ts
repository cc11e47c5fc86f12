/**
 * Draws one transcript item. The virtualized list calls this only for items in view whose version
 * changed, so a streamed token re-renders one message, never the transcript. Buttons carry a
 * `data-action`; one delegated listener (media/main.ts) handles them all, so re-drawn rows need no
 * re-wiring. The `data-testid` and `data-*` attributes are the contract the e2e tests select on.
 */
import { approvedText } from './approval-format';
import { approvalBatch, batchAttribute, batchLabel } from './approval-batch';
import { renderApprovalDetails, renderApprovalPreview, renderRuleChoices } from './approval-view';
import { childDetailsKey, renderDelegation } from './delegation-view';
import { actionButton, element } from './dom';
import { renderMarkdown } from './markdown';
import { groupLabel, groupState, mistakeText, rowKind } from './rows';
import { callDetails, shellResult } from './call-details';
import {
  badges,
  ROW_ICONS,
  cardStatus,
  compactionLabel,
  describeOrigin,
  formatDuration,
  sessionEndLabel,
  summarizeArguments,
} from './presentation';
import type { MessageEdits } from './message-edits';
import { rewindRecord, rolledBackNote, userRestore } from './rewind-view';
import type { AssistantItem, NoticeItem, ToolItem, TranscriptItem } from './transcript';
import type { UiState } from './ui-state';
import type { ViewModel } from './view-model';
import type { PendingApproval, PendingQuestion } from '../src/webview/protocol';
import { taskBrief } from './task-brief';
import { codicon } from './icons';
import { recoveryCard } from './recovery-view';

export class ItemRenderer {
  /** Rendered markdown by item key, so scrolling back to a message does not parse it again. */
  private readonly markdownCache = new Map<string, { readonly text: string; readonly html: string }>();

  constructor(
    private readonly model: ViewModel,
    private readonly ui: UiState,
    private readonly edits: MessageEdits,
  ) {}

  /** Drops cached markdown when the transcript is replaced by a snapshot. */
  reset(): void {
    this.markdownCache.clear();
  }

  render(item: TranscriptItem): HTMLElement {
    switch (item.kind) {
      case 'user': {
        if (item.brief !== undefined) return taskBrief(item.text, item.brief);
        const body = this.edits.editor(item) ?? element('div', { className: 'message-body plain', text: item.text });
        const node = message('user', 'You', body);
        node.append(...this.edits.actions(item), ...userRestore(item, this.model.rewind));
        return node;
      }
      case 'rewind':
        return rewindRecord(item, this.model.rewind);
      case 'assistant':
        return this.assistant(item);
      case 'tool':
        return this.toolCard(item);
      case 'notice':
        return notice(item);
      case 'compaction':
        return element('div', {
          className: 'compaction-divider',
          text: compactionLabel(item),
          attributes: { 'data-testid': 'compaction', 'data-reason': item.reason, role: 'separator' },
        });
      case 'session-end':
        return element('div', {
          className: `session-end reason-${item.reason}`,
          text: sessionEndLabel(item),
          attributes: { 'data-testid': 'session-end', 'data-reason': item.reason },
        });
      case 'recovery':
        return recoveryCard(item, (callId) => this.model.transcript.card(callId));
    }
  }

  private assistant(item: AssistantItem): HTMLElement {
    // A step that only called tools says nothing: no lingering "Thinking…" once it is over.
    if (item.text === '' && !item.streaming)
      return element('div', { className: 'message-empty', attributes: { 'data-testid': 'empty-step' } });
    const body = element('div', { className: 'message-body markdown' });
    if (item.text === '') {
      body.append(element('span', { className: 'typing', text: 'Thinking…' }));
    } else {
      body.innerHTML = this.markdown(item); // markdown-it with html:false: every tag in the text is escaped
    }
    const node = message('assistant', 'Zuno', body);
    node.setAttribute('data-streaming', String(item.streaming));
    if (item.reasoning !== undefined && item.reasoning !== '') {
      // Collapsed: the thoughts are there to check, not to read by default.
      const details = element(
        'details',
        { className: 'reasoning', attributes: { 'data-testid': 'reasoning' } },
        element('summary', { text: 'Reasoning' }),
        element('div', { className: 'reasoning-text plain', text: item.reasoning }),
      );
      body.before(details);
    }
    return node;
  }

  private markdown(item: AssistantItem): string {
    const cached = this.markdownCache.get(item.key);
    if (cached !== undefined && cached.text === item.text) return cached.html;
    const html = renderMarkdown(item.text);
    this.markdownCache.set(item.key, { text: item.text, html });
    return html;
  }

  private toolCard(card: ToolItem): HTMLElement {
    const waiting = this.model.approvals.has(card.callId) || this.model.questions.has(card.callId);
    switch (rowKind(card, waiting)) {
      case 'mistake':
        return this.mistakeRow(card);
      case 'compact':
        return this.compactRow(card);
      case 'card':
        return this.fullCard(card);
    }
  }

  /** Whether a group's members are listed one by one (the group itself is one row otherwise). */
  private groupOpen(leaderCallId: string): boolean {
    return this.ui.expanded.has(groupKey(leaderCallId));
  }

  /**
   * One line for a read-only call. The first call of a group draws the group's line above its own
   * ("Read 4 files"); the others draw nothing while the group is closed.
   */
  private compactRow(card: ToolItem): HTMLElement {
    const leader = card.groupLeader;
    if (leader !== undefined && !this.groupOpen(leader)) {
      return element('div', {
        className: 'row-grouped',
        attributes: { 'data-testid': 'grouped-call', 'data-call-id': card.callId, 'data-group': leader },
      });
    }
    const status = cardStatus(card);
    const row = element(
      'div',
      {
        className: `tool-row tone-${status.tone}`,
        attributes: { ...cardAttributes(card), 'data-row': 'compact', 'aria-label': `${card.tool || 'tool'} call: ${status.label}` },
      },
      element(
        'span',
        { className: 'row-icon', attributes: { title: status.label, 'aria-hidden': 'true' } },
        codicon(ROW_ICONS[status.tone] ?? 'circle-small'),
      ),
      element('span', { className: 'tool-name', text: card.tool || 'tool' }),
      element('span', { className: 'row-subject', text: card.subject ?? summarizeArguments(card.argumentsText, 120) }),
      // Always present for assistive tech and tests; drawn only when it says more than the icon.
      element('span', {
        className: `tool-status${card.outcome === 'ok' ? ' quiet' : ''}`,
        text: status.label,
        attributes: { 'data-testid': 'tool-status' },
      }),
      badgeList(card),
      ...this.details(card),
    );
    if (card.groupSize <= 1 || leader !== undefined) return row;
    const members = this.model.transcript.groupMembers(card.callId);
    const open = this.groupOpen(card.callId);
    const state = groupState(members);
    const header = element(
      'div',
      {
        className: 'tool-group',
        attributes: { 'data-testid': 'tool-group', 'data-tool': card.tool, 'data-count': String(members.length) },
      },
      actionButton(
        `${open ? '▾' : '▸'} ${groupLabel(card.tool, members.length)}`,
        'toggle-group',
        {
          'data-call-id': card.callId,
          'data-testid': 'toggle-group',
          'data-focus-key': 'toggle-group',
          'aria-expanded': String(open),
        },
        'link-button group-toggle',
      ),
      state === '' ? undefined : element('span', { className: 'group-state', text: state }),
      open
        ? undefined
        : element('span', {
            className: 'row-subject',
            text: members.map((member) => member.subject ?? summarizeArguments(member.argumentsText, 60)).join(', '),
          }),
    );
    return open ? element('div', { className: 'tool-group-box' }, header, row) : header;
  }

  /** The model's own mistake: muted, one line, the reason only under its toggle. */
  private mistakeRow(card: ToolItem): HTMLElement {
    const open = this.ui.expanded.has(card.callId);
    return element(
      'div',
      {
        className: 'tool-row mistake-row',
        attributes: {
          'data-testid': 'mistake-row',
          'data-tool': card.tool,
          'data-call-id': card.callId,
          'data-outcome': 'blocked',
          'data-category': card.category ?? '',
        },
      },
      element('span', { className: 'row-text', text: mistakeText(card), attributes: { title: mistakeText(card) } }),
      actionButton(
        open ? 'Hide' : 'Why',
        'toggle-details',
        { 'data-call-id': card.callId, 'data-testid': 'toggle-details', 'aria-expanded': String(open) },
        'link-button',
      ),
      open
        ? element('pre', { className: 'mistake-details', text: card.blockedReason ?? '', attributes: { 'data-testid': 'tool-details' } })
        : undefined,
    );
  }

  private fullCard(card: ToolItem): HTMLElement {
    const status = cardStatus(card);
    const attributes = cardAttributes(card);
    const node = element('section', {
      className: `tool-card tone-${status.tone}${card.parentCallId === undefined ? '' : ' is-child'}`,
      attributes: { ...attributes, 'aria-label': `${card.tool || 'tool'} call: ${status.label}` },
    });

    const header = element(
      'div',
      { className: 'tool-header' },
      element('span', { className: 'tool-name', text: card.tool || 'tool' }),
      badgeList(card),
      element('span', { className: 'tool-status', text: status.label, attributes: { 'data-testid': 'tool-status' } }),
      // A call that never ran (blocked, or settled before its start) has no run time worth showing.
      card.durationMs === undefined || card.outcome === 'blocked' || !card.started
        ? undefined
        : element('span', { className: 'tool-duration', text: formatDuration(card.durationMs) }),
    );
    node.append(header);

    const parent = card.parentCallId === undefined ? undefined : this.model.transcript.card(card.parentCallId);
    const origin = describeOrigin(card, parent?.tool);
    if (origin !== undefined)
      node.append(element('div', { className: 'tool-origin', text: origin, attributes: { 'data-testid': 'tool-origin' } }));

    const approval = this.model.approvals.get(card.callId);
    // A pending approval draws the call readably itself; the one-line summary would only repeat it rawly.
    const summary = approval?.preview !== undefined ? '' : (card.subject ?? summarizeArguments(card.argumentsText));
    if (summary !== '') node.append(element('div', { className: 'tool-args', text: summary, attributes: { 'data-testid': 'tool-args' } }));

    if (status.explanation !== undefined) {
      node.append(
        element('div', { className: 'tool-explanation', text: status.explanation, attributes: { 'data-testid': 'outcome-explanation' } }),
      );
    }
    const result = shellResult(card);
    if (result !== undefined) node.append(result);
    if (card.decision !== undefined && card.outcome !== 'blocked') {
      const text = card.decision.approved
        ? approvedText(card.decision.addedRule)
        : `Denied${card.decision.reason ? `: ${card.decision.reason}` : '.'}`;
      node.append(element('div', { className: 'tool-decision', text }));
    }

    if (approval !== undefined) node.append(this.approval(approval));
    if (card.delegation !== undefined) {
      node.append(
        renderDelegation(card.delegation, {
          approvalFor: (callId) => this.childApproval(card.callId, callId),
          isOpen: (callId) => this.ui.expanded.has(childDetailsKey(card.callId, callId)),
          taskCallId: card.callId,
        }),
      );
    }
    const question = this.model.questions.get(card.callId);
    if (question !== undefined) node.append(this.question(question));

    const restoredTo = card.rolledBackTo === undefined ? undefined : this.model.transcript.checkpointItem(card.rolledBackTo);
    const rolledBack = rolledBackNote(card, restoredTo?.kind === 'user' ? restoredTo.text : undefined);
    if (rolledBack !== undefined) node.append(rolledBack);
    node.append(...this.details(card));
    return node;
  }

  /** A delegated child's pending approval, drawn inside its task's card. */
  private childApproval(taskCallId: string, callId: string): HTMLElement | undefined {
    const approval = this.model.approvals.get(callId);
    return approval?.origin?.parentCallId === taskCallId ? this.approval(approval) : undefined;
  }

  /** "Approve all N" beside Approve while the turn waits on several approvals (issue 14). */
  private batchButton(callId: string, sent: boolean): HTMLButtonElement | undefined {
    const batch = approvalBatch(this.model.approvals, this.ui.decided);
    if (sent || !batch.includes(callId)) return undefined;
    return actionButton(
      batchLabel(batch),
      'approve-all',
      {
        'data-call-id': callId,
        'data-call-ids': batchAttribute(batch),
        'data-testid': 'approve-all',
        'data-focus-key': 'approve-all',
        title: `Approve each of the ${batch.length} calls waiting now, as if you pressed Approve on each; later calls still ask`,
      },
      'button secondary',
    );
  }

  private approval(approval: PendingApproval): HTMLElement {
    const sent = this.ui.decided.has(approval.callId);
    const callAttributes = { 'data-call-id': approval.callId };
    const disabled = (button: HTMLButtonElement): HTMLButtonElement => {
      button.disabled = sent;
      return button;
    };
    const reasonInput = element('input', {
      className: 'deny-reason',
      attributes: {
        type: 'text',
        placeholder: 'Reason for denying (optional, shown to the model)',
        'aria-label': 'Reason for denying',
        'data-testid': 'deny-reason',
        'data-focus-key': 'deny-reason',
        'data-input': 'deny-reason',
        ...callAttributes,
      },
    });
    reasonInput.value = this.ui.denyReasons.get(approval.callId) ?? '';
    reasonInput.disabled = sent;

    const actions = element(
      'div',
      { className: 'approval-actions' },
      disabled(
        actionButton(
          'Approve',
          'approve',
          { ...callAttributes, 'data-testid': 'approve', 'data-focus-key': 'approve', title: 'Approve (Ctrl+Enter)' },
          'button primary',
        ),
      ),
      this.batchButton(approval.callId, sent),
      disabled(
        actionButton(
          'Deny',
          'deny',
          { ...callAttributes, 'data-testid': 'deny', 'data-focus-key': 'deny', title: 'Deny (Escape)' },
          'button danger',
        ),
      ),
      approval.canShowDiff
        ? actionButton(
            'Show diff',
            'show-diff',
            { ...callAttributes, 'data-testid': 'show-diff', 'data-focus-key': 'show-diff' },
            'button secondary',
          )
        : undefined,
    );

    return element(
      'div',
      { className: 'approval', attributes: { 'data-testid': 'approval', ...callAttributes } },
      element('div', { className: 'approval-title', text: sent ? 'Decision sent…' : 'Approval needed' }),
      element('div', {
        className: 'approval-reason',
        text: approval.plainReason ?? approval.reason,
        attributes: { 'data-testid': 'approval-reason' },
      }),
      approval.preview === undefined ? undefined : renderApprovalPreview(approval.preview, approval.callId),
      approval.preview !== undefined || approval.paths === undefined || approval.paths.length === 0
        ? undefined
        : element('ul', { className: 'approval-paths' }, ...approval.paths.map((path) => element('li', { text: path }))),
      renderApprovalDetails(approval),
      reasonInput,
      actions,
      renderRuleChoices(approval, sent),
    );
  }

  private question(question: PendingQuestion): HTMLElement {
    const sent = this.ui.answered.has(question.callId);
    const draft = this.ui.questionDraft(question.callId);
    const callAttributes = { 'data-call-id': question.callId };
    const options = question.options ?? [];
    const inputType = question.multiple === true ? 'checkbox' : 'radio';
    const optionList = element(
      'div',
      { className: 'question-options', attributes: { role: question.multiple === true ? 'group' : 'radiogroup' } },
      ...options.map((option, index) => {
        const input = element('input', {
          attributes: {
            type: inputType,
            name: `question-${question.callId}`,
            value: option,
            'data-testid': 'question-option',
            'data-focus-key': `option-${index}`,
            'data-input': 'question-option',
            ...callAttributes,
          },
        });
        input.checked = draft.selected.includes(option);
        input.disabled = sent;
        return element('label', { className: 'question-option' }, input, element('span', { text: option }));
      }),
    );
    const freeText =
      question.allowFreeText === true || options.length === 0
        ? element('textarea', {
            className: 'question-text',
            attributes: {
              rows: '2',
              placeholder: options.length === 0 ? 'Your answer' : 'Or answer in your own words',
              'data-testid': 'question-text',
              'data-focus-key': 'question-text',
              'data-input': 'question-text',
              ...callAttributes,
            },
          })
        : undefined;
    if (freeText !== undefined) {
      freeText.value = draft.text;
      freeText.disabled = sent;
    }
    const submit = actionButton('Answer', 'question-submit', { ...callAttributes, 'data-testid': 'question-submit' }, 'button primary');
    const cancel = actionButton('Cancel', 'question-cancel', { ...callAttributes, 'data-testid': 'question-cancel' }, 'button secondary');
    submit.disabled = sent;
    cancel.disabled = sent;
    return element(
      'div',
      { className: 'question', attributes: { 'data-testid': 'question-form', ...callAttributes } },
      element('div', { className: 'question-title', text: question.question }),
      options.length === 0 ? undefined : optionList,
      freeText,
      element('div', { className: 'question-actions' }, submit, cancel),
    );
  }

  /** The collapsible part: full arguments and the kept tail of the output. */
  private details(card: ToolItem): HTMLElement[] {
    return callDetails(card, this.ui.expanded.has(card.callId), {
      action: 'toggle-details',
      attributes: { 'data-call-id': card.callId, 'data-focus-key': 'toggle-details' },
    });
  }
}

/** What the e2e tests select a call's row on, the same for a full card and a compact row. */
function cardAttributes(card: ToolItem): Record<string, string> {
  return {
    'data-testid': 'tool-card',
    'data-tool': card.tool,
    'data-call-id': card.callId,
    'data-state': card.state,
    'data-outcome': card.outcome ?? '',
    'data-category': card.category ?? '',
    ...(card.parentCallId !== undefined ? { 'data-parent-call-id': card.parentCallId } : {}),
  };
}

/**
 * The declarations as codicons with the words in a tooltip (issue 14 item 5). The words stay the
 * element's text, visually hidden, so screen readers and the e2e tests read them.
 */
function badgeList(card: ToolItem): HTMLElement {
  return element(
    'span',
    { className: 'badges' },
    ...badges(card).map((badge) =>
      element(
        'span',
        {
          className: `badge badge-${badge.kind}`,
          attributes: { 'data-testid': `badge-${badge.kind}`, 'data-icon': badge.icon, title: badge.tooltip },
        },
        codicon(badge.icon),
        badge.kind === 'attempt'
          ? element('span', { className: 'badge-count', text: String(card.attempt), attributes: { 'aria-hidden': 'true' } })
          : undefined,
        element('span', { className: 'visually-hidden', text: badge.text }),
      ),
    ),
  );
}

/** The key under which an open group is remembered in `UiState.expanded`. */
export const groupKey = (leaderCallId: string): string => `group:${leaderCallId}`;

function message(role: 'user' | 'assistant', author: string, body: HTMLElement): HTMLElement {
  return element(
    'article',
    { className: `message ${role}`, attributes: { 'data-testid': 'message', 'data-role': role } },
    element('div', { className: 'message-author', text: author }),
    body,
  );
}

function notice(item: NoticeItem): HTMLElement {
  return element(
    'div',
    {
      className: `notice level-${item.level}`,
      attributes: { 'data-testid': 'notice', 'data-level': item.level, role: item.level === 'error' ? 'alert' : 'note' },
    },
    item.title === undefined ? undefined : element('div', { className: 'notice-title', text: item.title }),
    element('div', { className: 'notice-text', text: item.text }),
  );
}
