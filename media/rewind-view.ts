/**
 * Restoring files from the chat (issue 13): the buttons on a user message, the preview the user
 * confirms (every file with its diff, and what is left alone), the note on cards whose changes
 * were rolled back, and the record of a restore with its undo. The words say plainly that a
 * restore puts files back and undoes nothing outside the workspace.
 */
import { actionButton, element } from './dom';
import { clip, rewindSummary } from './presentation';
import type { RewindItem, ToolItem, UserItem } from './transcript';
import type { RewindState } from './view-model';

export const OUTSIDE_EFFECTS_NOTE =
  'Restoring puts the workspace’s files back as they were; it does not undo effects outside the workspace (a pushed commit, a sent request, a database row). A checkpoint is taken first, so the restore itself can be undone.';

const CHANGE_WORDS = {
  added: 'added since: will be removed',
  removed: 'deleted since: will be put back',
  modified: 'changed since: will be put back',
} as const;

/** The restore buttons under a user message whose turn took a checkpoint, and its preview when open. */
export function userRestore(item: UserItem, rewind: RewindState | undefined): HTMLElement[] {
  const checkpointId = item.checkpointId;
  if (checkpointId === undefined) return [];
  const attributes = { 'data-checkpoint-id': checkpointId };
  const actions = element(
    'div',
    { className: 'restore-actions' },
    actionButton(
      'Restore files to before this message',
      'restore-files',
      { ...attributes, 'data-testid': 'restore-files', title: OUTSIDE_EFFECTS_NOTE },
      'link-button',
    ),
    actionButton(
      'Restore and fork the conversation from here',
      'restore-fork',
      { ...attributes, 'data-testid': 'restore-fork', title: OUTSIDE_EFFECTS_NOTE },
      'link-button',
    ),
  );
  return rewind?.checkpointId === checkpointId ? [actions, rewindPanel(rewind)] : [actions];
}

/** The preview: what will change, then the confirmation. */
export function rewindPanel(state: RewindState): HTMLElement {
  const attributes = { 'data-checkpoint-id': state.checkpointId };
  const panel = element('div', {
    className: 'rewind-panel',
    attributes: { 'data-testid': 'rewind-preview', 'data-busy': String(state.busy), ...attributes },
  });
  const title = state.fork ? 'Restore files and fork the conversation from here' : 'Restore files to before this message';
  panel.append(element('div', { className: 'rewind-title', text: title }));
  const preview = state.preview;
  if (preview === undefined) {
    panel.append(element('div', { className: 'rewind-note', text: 'Preparing the preview…' }));
    panel.append(
      element(
        'div',
        { className: 'rewind-actions' },
        actionButton('Cancel', 'rewind-cancel', { ...attributes, 'data-testid': 'rewind-cancel' }, 'button secondary'),
      ),
    );
    return panel;
  }
  const conflicts = preview.files.filter((file) => file.conflict).map((file) => file.path);
  if (preview.files.length === 0) {
    panel.append(element('div', { className: 'rewind-note', text: 'No file changed since this message: there is nothing to restore.' }));
  } else {
    panel.append(
      element('div', {
        className: 'rewind-note',
        text: `${preview.files.length} file${preview.files.length === 1 ? '' : 's'} will change:`,
      }),
    );
    const list = element('ul', { className: 'rewind-files' });
    for (const file of preview.files) {
      const row = element(
        'li',
        {
          className: `rewind-file change-${file.change}${file.conflict ? ' conflict' : ''}`,
          attributes: { 'data-testid': 'rewind-file', 'data-path': file.path, 'data-change': file.change },
        },
        element('span', { className: 'rewind-path', text: file.path }),
        element('span', {
          className: 'rewind-change',
          text: ` ${CHANGE_WORDS[file.change]}${file.conflict ? ' (also changed outside Zuno)' : ''}`,
        }),
        actionButton(
          'Open diff',
          'rewind-open-diff',
          { ...attributes, 'data-path': file.path, 'data-testid': 'rewind-open-diff' },
          'link-button',
        ),
      );
      if (file.diff !== undefined && file.diff !== '')
        row.append(element('pre', { className: 'rewind-diff', text: file.diff, attributes: { 'data-testid': 'rewind-diff' } }));
      list.append(row);
    }
    panel.append(list);
  }
  const leftAlone = [...preview.overLimit, ...preview.nested.map((folder) => `${folder}/ (a nested repository)`)];
  if (leftAlone.length > 0) {
    panel.append(
      element('div', {
        className: 'rewind-note',
        text: `Left as they are (files over ${preview.limitMb} MB are not in checkpoints; nested repositories keep their own history): ${leftAlone.join(', ')}`,
        attributes: { 'data-testid': 'rewind-left-alone' },
      }),
    );
  }
  if (conflicts.length > 0) {
    panel.append(
      element('div', {
        className: 'rewind-warning',
        text: `${preview.refused === true ? 'Not restored yet: files changed outside Zuno meanwhile. ' : ''}Changed outside Zuno since this message, and overwritten by the restore: ${conflicts.join(', ')}. Save what you need first.`,
        attributes: { 'data-testid': 'rewind-conflicts', role: 'alert' },
      }),
    );
  }
  panel.append(element('div', { className: 'rewind-note', text: OUTSIDE_EFFECTS_NOTE }));
  const label = conflicts.length > 0 ? 'Overwrite and restore' : state.fork ? 'Restore and fork' : 'Restore';
  const confirm = actionButton(
    label,
    'rewind-confirm',
    { ...attributes, 'data-testid': 'rewind-confirm', 'data-force': String(conflicts.length > 0) },
    conflicts.length > 0 ? 'button danger' : 'button primary',
  );
  confirm.disabled = state.busy || (preview.files.length === 0 && !state.fork);
  panel.append(
    element(
      'div',
      { className: 'rewind-actions' },
      confirm,
      actionButton('Cancel', 'rewind-cancel', { ...attributes, 'data-testid': 'rewind-cancel' }, 'button secondary'),
    ),
  );
  return panel;
}

/** A restore in the transcript: what it did, and how to undo it. */
export function rewindRecord(item: RewindItem, rewind: RewindState | undefined): HTMLElement {
  const node = element(
    'div',
    {
      className: 'notice level-info rewind-record',
      attributes: { 'data-testid': 'rewind-record', 'data-checkpoint-id': item.checkpointId, role: 'note' },
    },
    element('div', { className: 'notice-text', text: rewindSummary(item) }),
    item.forkedSessionId === undefined
      ? undefined
      : element('div', {
          className: 'notice-text',
          text: `The conversation continues in a new chat (${item.forkedSessionId}); this one is kept as it was.`,
        }),
    actionButton(
      'Undo this restore',
      'rewind-undo',
      { 'data-checkpoint-id': item.undoCheckpointId, 'data-testid': 'rewind-undo' },
      'link-button',
    ),
  );
  if (rewind?.checkpointId === item.undoCheckpointId) node.append(rewindPanel(rewind));
  return node;
}

/** On a card whose changes a restore undid; `message` is the one the files were restored to before. */
export function rolledBackNote(card: ToolItem, message: string | undefined): HTMLElement | undefined {
  if (card.rolledBackTo === undefined) return undefined;
  const to = message === undefined ? `checkpoint ${card.rolledBackTo}` : `before “${clip(message.replace(/\s+/g, ' ').trim(), 60)}”`;
  return element('div', {
    className: 'tool-rolled-back',
    text: `Files rolled back: restoring the files to ${to} undid this call’s changes to them (not its effects outside the workspace).`,
    attributes: { 'data-testid': 'rolled-back' },
  });
}
