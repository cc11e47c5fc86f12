/**
 * Draws what an approval will do (issue 14 item 3) from the host's `ApprovalPreview`: a diff per
 * file, the command line, the URL, the todo list, an MCP call's arguments as a table. All text goes
 * in through `textContent` (media/dom.ts), so nothing the model wrote becomes markup.
 */
import { actionButton, element } from './dom';
import { changeLabel, DIFF_MARKERS, diffCounts, filesSummary, ruleText, todoLine } from './approval-format';
import type { ApprovalPreview, FileDiffPreview, PendingApproval } from '../src/webview/protocol';

function fileDiff(file: FileDiffPreview, callId: string): HTMLElement {
  const header = element(
    'div',
    { className: 'diff-file-header' },
    element('span', { className: 'diff-path', text: file.path }),
    element('span', { className: 'diff-change', text: changeLabel(file) }),
    element('span', {
      className: 'diff-counts',
      text: diffCounts(file),
      attributes: { 'data-testid': 'diff-counts', title: `${file.added} added, ${file.removed} removed` },
    }),
    actionButton('Show diff', 'show-diff', { 'data-call-id': callId, title: 'Open the editable diff beside the chat' }, 'link-button'),
  );
  const lines = element('div', { className: 'diff-lines', attributes: { role: 'table', 'aria-label': `Changes to ${file.path}` } });
  for (const hunk of file.hunks) {
    lines.append(element('div', { className: 'diff-hunk', text: hunk.header, attributes: { 'data-testid': 'diff-hunk' } }));
    for (const line of hunk.lines) {
      lines.append(
        element('div', {
          className: `diff-line diff-${line.kind}`,
          text: `${DIFF_MARKERS[line.kind]} ${line.text}`,
          attributes: { 'data-testid': 'diff-line', 'data-kind': line.kind },
        }),
      );
    }
  }
  if (file.omittedLines > 0) {
    lines.append(
      element('div', {
        className: 'details-note',
        text: `${file.omittedLines} more changed line${file.omittedLines === 1 ? '' : 's'}: Show diff has them all.`,
      }),
    );
  }
  return element(
    'div',
    { className: 'diff-file', attributes: { 'data-testid': 'diff-file', 'data-path': file.path } },
    header,
    file.hunks.length > 0 ? lines : undefined,
  );
}

function codeBlock(text: string, testId: string): HTMLElement {
  return element('pre', { className: 'approval-code', attributes: { 'data-testid': testId } }, element('code', { text }));
}

export function renderApprovalPreview(preview: ApprovalPreview, callId: string): HTMLElement {
  const box = element('div', {
    className: `approval-what kind-${preview.kind}`,
    attributes: { 'data-testid': 'approval-what', 'data-kind': preview.kind },
  });
  switch (preview.kind) {
    case 'files':
      if (preview.files.length > 1) box.append(element('div', { className: 'approval-label', text: filesSummary(preview.files) }));
      box.append(...preview.files.map((file) => fileDiff(file, callId)));
      break;
    case 'command':
      box.append(
        element('div', {
          className: 'approval-label',
          text: `${preview.background ? 'Start in the background' : 'Run'} in ${preview.cwd}`,
        }),
        codeBlock(preview.command, 'approval-command'),
      );
      break;
    case 'url':
      box.append(element('div', { className: 'approval-label', text: 'Fetch' }), codeBlock(preview.url, 'approval-url'));
      break;
    case 'todos':
      box.append(
        element('div', { className: 'approval-label', text: preview.replacesList ? 'New todo list' : 'Changes to the todo list' }),
        element(
          'ul',
          { className: 'approval-todos', attributes: { 'data-testid': 'approval-todos' } },
          ...preview.items.map((item) => element('li', { text: todoLine(item) })),
        ),
      );
      break;
    case 'text':
      box.append(
        element('div', { className: 'approval-label', text: preview.label }),
        element('div', { className: 'approval-text', text: preview.text, attributes: { 'data-testid': 'approval-text' } }),
      );
      break;
    case 'table': {
      const rows = preview.rows.map((row) =>
        element(
          'tr',
          {},
          element('th', { text: row.name, attributes: { scope: 'row' } }),
          element('td', {}, element('pre', { text: row.value })),
        ),
      );
      box.append(
        element('div', { className: 'approval-label', text: preview.title, attributes: { 'data-testid': 'approval-mcp-tool' } }),
        rows.length === 0
          ? element('div', { className: 'details-note', text: 'No arguments.' })
          : element(
              'table',
              { className: 'approval-table', attributes: { 'data-testid': 'approval-table' } },
              element('tbody', {}, ...rows),
            ),
      );
      break;
    }
  }
  return box;
}

/** The raw arguments and the policy's own wording, collapsed: for the curious, never the lead. */
export function renderApprovalDetails(approval: PendingApproval): HTMLElement {
  return element(
    'details',
    { className: 'approval-details', attributes: { 'data-testid': 'approval-details' } },
    element('summary', { text: 'Details' }),
    element('div', { className: 'details-label', text: 'Policy' }),
    element('div', { className: 'approval-policy', text: approval.reason }),
    approval.argumentsPreview === '' ? undefined : element('div', { className: 'details-label', text: 'Arguments' }),
    approval.argumentsPreview === ''
      ? undefined
      : element('pre', {
          className: 'approval-preview',
          text: approval.argumentsPreview,
          attributes: { 'data-testid': 'approval-preview' },
        }),
  );
}

/**
 * "Allow like this": one button per rule the host offers, each showing the rule it adds. The
 * first keeps the `allow-like-this` test id; a button sends only its index, never a rule.
 */
export function renderRuleChoices(approval: PendingApproval, sent: boolean): HTMLElement | undefined {
  const choices = approval.ruleChoices ?? [];
  if (choices.length === 0) return undefined;
  const buttons = choices.map((choice, index) => {
    const button = element(
      'button',
      {
        className: 'button secondary rule-choice',
        attributes: {
          type: 'button',
          'data-action': 'allow-like-this',
          'data-call-id': approval.callId,
          'data-rule-choice': String(index),
          'data-testid': index === 0 ? 'allow-like-this' : 'allow-like-this-choice',
          'data-focus-key': `allow-like-this-${index}`,
          title: `Approve, and add the rule "${ruleText(choice.rule)}" to zuno.permission.rules (you can see and remove it there): ${choice.label}.`,
        },
      },
      element('span', { className: 'rule-choice-label', text: choice.label }),
      element('code', { className: 'rule-choice-rule', text: ruleText(choice.rule) }),
    );
    button.disabled = sent;
    return button;
  });
  return element(
    'div',
    { className: 'rule-choices', attributes: { 'data-testid': 'rule-choices' } },
    element('div', { className: 'approval-label', text: 'Allow like this, adding a rule to settings:' }),
    ...buttons,
  );
}
