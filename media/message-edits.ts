/**
 * Edit-and-resend on a user message (issue 14): Edit turns the message into a text box; Send
 * continues the chat from before it with the new text (the later messages are no longer what the
 * model sees). When the message's turn took a checkpoint, "Also restore files" goes through the
 * checkpoint restore's own preview and confirmation first (issue 13). Drafts live here, outside
 * the DOM, because the virtualized list discards rows that scroll out of view.
 */
import { actionButton, element } from './dom';
import type { UserItem } from './transcript';

interface Draft {
  text: string;
  restore: boolean;
}

export class MessageEdits {
  private readonly drafts = new Map<string, Draft>();
  /** An edit waiting for its restore's confirmation: the text sent in the fork. */
  private pending: { readonly checkpointId: string; readonly text: string } | undefined;

  start(item: UserItem): void {
    this.drafts.set(item.key, { text: item.text, restore: item.checkpointId !== undefined });
  }

  stop(key: string): void {
    this.drafts.delete(key);
  }

  draft(key: string): Readonly<Draft> | undefined {
    return this.drafts.get(key);
  }

  /** Keeps what is typed (and the restore choice) as it changes. */
  input(target: HTMLInputElement | HTMLTextAreaElement): boolean {
    const key = target.dataset.itemKey;
    const draft = key === undefined ? undefined : this.drafts.get(key);
    if (draft === undefined) return false;
    if (target.dataset.input === 'edit-text') draft.text = target.value;
    else if (target.dataset.input === 'edit-restore' && target instanceof HTMLInputElement) draft.restore = target.checked;
    else return false;
    return true;
  }

  awaitRestore(checkpointId: string, text: string): void {
    this.pending = { checkpointId, text };
  }

  /** The text to send once the restore of `checkpointId` is confirmed, if an edit is waiting for it. */
  takePending(checkpointId: string): string | undefined {
    const pending = this.pending;
    this.pending = undefined;
    return pending?.checkpointId === checkpointId ? pending.text : undefined;
  }

  cancelPending(): void {
    this.pending = undefined;
  }

  /** The text box that replaces the message while it is edited; undefined when it is not. */
  editor(item: UserItem): HTMLElement | undefined {
    const draft = this.drafts.get(item.key);
    if (draft === undefined) return undefined;
    const attributes = { 'data-item-key': item.key };
    const input = element('textarea', {
      className: 'edit-input',
      attributes: { ...attributes, 'data-input': 'edit-text', 'data-testid': 'edit-input', rows: '3', 'aria-label': 'Edit your message' },
    });
    input.value = draft.text;
    const restore =
      item.checkpointId === undefined
        ? undefined
        : element(
            'label',
            { className: 'edit-restore' },
            element('input', {
              attributes: {
                ...attributes,
                type: 'checkbox',
                'data-input': 'edit-restore',
                'data-testid': 'edit-restore',
                ...(draft.restore ? { checked: '' } : {}),
              },
            }),
            document.createTextNode(' Also restore files to before this message (you see what changes first)'),
          );
    return element(
      'div',
      { className: 'message-body edit-box' },
      input,
      restore,
      element(
        'div',
        { className: 'edit-actions' },
        actionButton('Send', 'edit-send', {
          ...attributes,
          'data-testid': 'edit-send',
          title: 'Continue the chat from here with this text',
        }),
        actionButton('Cancel', 'edit-cancel', { ...attributes, 'data-testid': 'edit-cancel' }, 'button secondary'),
      ),
      element('div', {
        className: 'edit-note',
        text: 'The chat continues from here in a new chat; the messages after this one stay in the old chat, in History.',
      }),
    );
  }

  /** The Edit button under a message that is not being edited. */
  actions(item: UserItem): HTMLElement[] {
    if (this.drafts.has(item.key)) return [];
    return [
      actionButton(
        'Edit',
        'edit-message',
        { 'data-item-key': item.key, 'data-testid': 'edit-message', title: 'Edit this message and send it again from here' },
        'link-button',
      ),
    ];
  }
}
