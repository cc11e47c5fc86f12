/**
 * Draws one transcript item. The virtualized list calls this only for items in view whose version
 * changed, so a streamed token re-renders one message, never the transcript. Buttons carry a
 * `data-action`; one delegated listener (media/main.ts) handles them all, so re-drawn rows need no
 * re-wiring. The `data-testid` and `data-*` attributes are the contract the e2e tests select on.
 */
import { actionButton, element } from './dom';
import { renderMarkdown } from './markdown';
import {
  badges,
  cardStatus,
  compactionLabel,
  describeOrigin,
  formatArguments,
  formatDuration,
  outputLineCount,
  sessionEndLabel,
  summarizeArguments,
} from './presentation';
import type { AssistantItem, NoticeItem, ToolItem, TranscriptItem } from './transcript';
import type { UiState } from './ui-state';
import type { ViewModel } from './view-model';
import type { PendingApproval, PendingQuestion } from '../src/webview/protocol';

export class ItemRenderer {
  /** Rendered markdown by item key, so scrolling back to a message does not parse it again. */
  private readonly markdownCache = new Map<string, { readonly text: string; readonly html: string }>();

  constructor(
    private readonly model: ViewModel,
    private readonly ui: UiState,
  ) {}

  /** Drops cached markdown when the transcript is replaced by a snapshot. */
  reset(): void {
    this.markdownCache.clear();
  }

  render(item: TranscriptItem): HTMLElement {
    switch (item.kind) {
      case 'user':
        return message('user', 'You', element('div', { className: 'message-body plain', text: item.text }));
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
    }
  }

  private assistant(item: AssistantItem): HTMLElement {
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
    const status = cardStatus(card);
    const attributes: Record<string, string> = {
      'data-testid': 'tool-card',
      'data-tool': card.tool,
      'data-call-id': card.callId,
      'data-state': card.state,
      'data-outcome': card.outcome ?? '',
      'data-category': card.category ?? '',
    };
    if (card.parentCallId !== undefined) attributes['data-parent-call-id'] = card.parentCallId;
    const node = element('section', {
      className: `tool-card tone-${status.tone}${card.parentCallId === undefined ? '' : ' is-child'}`,
      attributes: { ...attributes, 'aria-label': `${card.tool || 'tool'} call: ${status.label}` },
    });

    const header = element(
      'div',
      { className: 'tool-header' },
      element('span', { className: 'tool-name', text: card.tool || 'tool' }),
      element('span', { className: 'badges' }, ...badges(card).map((badge) =>
        element('span', { className: `badge badge-${badge.kind}`, text: badge.text, attributes: { 'data-testid': `badge-${badge.kind}` } }),
      )),
      element('span', { className: 'tool-status', text: status.label, attributes: { 'data-testid': 'tool-status' } }),
      // A call that never ran (blocked, or settled before its start) has no run time worth showing.
      card.durationMs === undefined || card.outcome === 'blocked' || !card.started
        ? undefined
        : element('span', { className: 'tool-duration', text: formatDuration(card.durationMs) }),
    );
    node.append(header);

    const parent = card.parentCallId === undefined ? undefined : this.model.transcript.card(card.parentCallId);
    const origin = describeOrigin(card, parent?.tool);
    if (origin !== undefined) node.append(element('div', { className: 'tool-origin', text: origin, attributes: { 'data-testid': 'tool-origin' } }));

    const summary = card.subject ?? summarizeArguments(card.argumentsText);
    if (summary !== '') node.append(element('div', { className: 'tool-args', text: summary, attributes: { 'data-testid': 'tool-args' } }));

    if (status.explanation !== undefined) {
      node.append(element('div', { className: 'tool-explanation', text: status.explanation, attributes: { 'data-testid': 'outcome-explanation' } }));
    }
    if (card.decision !== undefined && card.outcome !== 'blocked') {
      const text = card.decision.approved ? 'Approved.' : `Denied${card.decision.reason ? `: ${card.decision.reason}` : '.'}`;
      node.append(element('div', { className: 'tool-decision', text }));
    }

    const approval = this.model.approvals.get(card.callId);
    if (approval !== undefined) node.append(this.approval(approval));
    const question = this.model.questions.get(card.callId);
    if (question !== undefined) node.append(this.question(question));

    node.append(...this.details(card));
    return node;
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
      disabled(actionButton('Approve', 'approve', { ...callAttributes, 'data-testid': 'approve', 'data-focus-key': 'approve' }, 'button primary')),
      disabled(actionButton('Deny', 'deny', { ...callAttributes, 'data-testid': 'deny', 'data-focus-key': 'deny' }, 'button danger')),
      approval.canShowDiff
        ? actionButton('Show diff', 'show-diff', { ...callAttributes, 'data-testid': 'show-diff', 'data-focus-key': 'show-diff' }, 'button secondary')
        : undefined,
      disabled(
        actionButton(
          'Allow like this (adds a rule to settings)',
          'allow-like-this',
          {
            ...callAttributes,
            'data-testid': 'allow-like-this',
            'data-focus-key': 'allow-like-this',
            title: 'Approves this call and writes a permission rule into zuno.permission.rules, where you can see and remove it.',
          },
          'button secondary',
        ),
      ),
    );

    return element(
      'div',
      { className: 'approval', attributes: { 'data-testid': 'approval', ...callAttributes } },
      element('div', { className: 'approval-title', text: sent ? 'Decision sent…' : 'Approval needed' }),
      element('div', { className: 'approval-reason', text: approval.reason }),
      approval.argumentsPreview === ''
        ? undefined
        : element('pre', { className: 'approval-preview', text: approval.argumentsPreview, attributes: { 'data-testid': 'approval-preview' } }),
      approval.paths === undefined || approval.paths.length === 0
        ? undefined
        : element('ul', { className: 'approval-paths' }, ...approval.paths.map((path) => element('li', { text: path }))),
      reasonInput,
      actions,
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
    const hasArguments = card.argumentsText.trim() !== '';
    const lines = outputLineCount(card);
    if (!hasArguments && lines === 0 && card.output === '') return [];
    const open = this.ui.expanded.has(card.callId);
    const label = lines === 0 ? 'Details' : `Output (${lines} line${lines === 1 ? '' : 's'})`;
    const toggle = actionButton(`${open ? 'Hide' : 'Show'} ${label.toLowerCase()}`, 'toggle-details', {
      'data-call-id': card.callId,
      'data-testid': 'toggle-details',
      'data-focus-key': 'toggle-details',
      'aria-expanded': String(open),
    }, 'link-button');
    if (!open) return [toggle];

    const panel = element('div', { className: 'tool-details', attributes: { 'data-testid': 'tool-details' } });
    if (hasArguments) {
      panel.append(element('div', { className: 'details-label', text: 'Arguments' }), element('pre', { className: 'tool-arguments', text: formatArguments(card.argumentsText) }));
    }
    if (card.output !== '') {
      panel.append(element('div', { className: 'details-label', text: 'Output' }));
      if (card.droppedOutputChars > 0) {
        panel.append(element('div', { className: 'details-note', text: `${card.droppedOutputChars} earlier characters are not shown here.` }));
      }
      panel.append(element('pre', { className: 'tool-output', text: card.output, attributes: { 'data-testid': 'tool-output' } }));
    }
    if (card.truncated) {
      panel.append(element('div', { className: 'details-note', text: 'The result was truncated to the output cap before the model saw it.' }));
    }
    return [toggle, panel];
  }
}

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
    { className: `notice level-${item.level}`, attributes: { 'data-testid': 'notice', 'data-level': item.level, role: item.level === 'error' ? 'alert' : 'note' } },
    item.title === undefined ? undefined : element('div', { className: 'notice-title', text: item.title }),
    element('div', { className: 'notice-text', text: item.text }),
  );
}
