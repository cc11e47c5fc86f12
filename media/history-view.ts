/**
 * The history panel (issue 14 item 10): search by title and by what was said, rename, delete
 * with a confirmation, dates, and delegated tasks under the chat that delegated them. It owns its
 * listeners (on `data-history-action` / `data-history-input`, which the page's own delegated
 * handlers ignore) and keeps what the user is typing outside the list, which is redrawn whenever
 * the sessions change.
 */
import type { FromWebview } from '../src/webview/protocol';
import { element } from './dom';
import { codicon } from './icons';
import { sessionWhen } from './history-format';
import { historyRows, type HistoryRow } from './history-list';
import type { ViewModel } from './view-model';

/** Sessions listed in the panel; older ones are reachable from the command palette. */
const MAX_LISTED_SESSIONS = 200;
/** Typing pauses this long before the full-text search runs (titles are filtered at once). */
const SEARCH_DELAY_MS = 200;

const historyButton = (label: string, action: string, attributes: Readonly<Record<string, string>>, className: string): HTMLButtonElement =>
  element('button', { className, text: label, attributes: { type: 'button', 'data-history-action': action, ...attributes } });

/** A codicon button, so a row's tools fit beside its title in a narrow side bar; its label is for tooltips and screen readers. */
const iconButton = (icon: string, action: string, testId: string, label: string): HTMLButtonElement =>
  element(
    'button',
    {
      className: 'icon-button session-tool',
      attributes: { type: 'button', 'data-history-action': action, 'data-testid': testId, title: label, 'aria-label': label },
    },
    codicon(icon),
  );

export class HistoryPanel {
  readonly root = element('div', { className: 'history-panel', attributes: { 'data-testid': 'history-panel' } });
  private readonly search = element('input', {
    className: 'history-search',
    attributes: {
      type: 'search',
      'data-testid': 'history-search',
      'data-history-input': 'search',
      placeholder: 'Search chats (titles and messages)',
      'aria-label': 'Search chats',
    },
  });
  private readonly list = element('div', { className: 'history-body' });
  private query = '';
  /** The chat being renamed, and the name typed so far. */
  private renaming: { readonly sessionId: string; title: string } | undefined;
  /** The chat whose Delete was pressed once: the row asks to confirm. */
  private confirmingDelete: string | undefined;
  private searchTimer: ReturnType<typeof setTimeout> | undefined;
  private post: (message: FromWebview) => void = () => undefined;

  constructor(private readonly model: ViewModel) {
    this.root.append(element('div', { className: 'history-title', text: 'Sessions' }), this.search, this.list);
    this.root.addEventListener('click', (event) => this.click(event));
    this.root.addEventListener('input', (event) => this.input(event));
    this.root.addEventListener('keydown', (event) => this.keydown(event));
  }

  /** Where the panel's requests go (the extension host). */
  connect(post: (message: FromWebview) => void): void {
    this.post = post;
  }

  /** The panel was opened: the search starts empty and has the focus. */
  opened(): void {
    this.query = '';
    this.search.value = '';
    this.renaming = undefined;
    this.confirmingDelete = undefined;
    this.render();
    this.search.focus();
  }

  render(): void {
    const { sessions, sessionId } = this.model;
    if (sessions === undefined) {
      this.list.replaceChildren(element('div', { className: 'history-empty', text: 'Loading…' }));
      return;
    }
    if (sessions.length === 0) {
      this.list.replaceChildren(element('div', { className: 'history-empty', text: 'No saved sessions yet.' }));
      return;
    }
    const found = this.model.sessionSearch;
    const answered = found !== undefined && found.query === this.query;
    const rows = historyRows(sessions, this.query, answered ? found.hits : new Map<string, string | undefined>(), MAX_LISTED_SESSIONS);
    if (rows.length === 0) {
      // Titles are filtered at once; what was said is searched in the store, which answers a moment later.
      const text = answered ? `No chat mentions “${this.query.trim()}”.` : 'Searching…';
      this.list.replaceChildren(element('div', { className: 'history-empty', text, attributes: { 'data-testid': 'history-no-match' } }));
      return;
    }
    const renameFocused = document.activeElement instanceof HTMLElement && document.activeElement.dataset.historyInput === 'title';
    const list = element('ul', { className: 'history-list' });
    for (const row of rows) list.append(this.row(row, sessionId));
    this.list.replaceChildren(list);
    if (renameFocused) this.list.querySelector<HTMLInputElement>('[data-history-input="title"]')?.focus();
  }

  private row(row: HistoryRow, currentId: string | undefined): HTMLElement {
    const { session } = row;
    const item = element('li', {
      className: row.depth === 1 ? 'session-row session-task' : 'session-row',
      attributes: { 'data-session-id': session.id, 'data-depth': String(row.depth) },
    });
    if (this.renaming?.sessionId === session.id) {
      const input = element('input', {
        className: 'session-title-input',
        attributes: { type: 'text', 'data-history-input': 'title', 'data-testid': 'session-title-input', 'aria-label': 'Chat name' },
      });
      input.value = this.renaming.title;
      item.append(
        input,
        historyButton('Save', 'rename-save', { 'data-testid': 'session-rename-save' }, 'link-button'),
        historyButton('Cancel', 'rename-cancel', {}, 'link-button'),
      );
      return item;
    }
    if (this.confirmingDelete === session.id) {
      const tasks = this.model.sessions?.filter((other) => other.parent?.sessionId === session.id).length ?? 0;
      item.append(
        element('span', {
          className: 'session-confirm',
          text: `Delete “${session.title}”${tasks > 0 ? ` and its ${tasks} delegated task${tasks === 1 ? '' : 's'}` : ''}? Its files are removed.`,
        }),
        historyButton('Delete', 'delete-confirm', { 'data-testid': 'session-delete-confirm' }, 'button danger'),
        historyButton('Keep', 'delete-cancel', { 'data-testid': 'session-delete-cancel' }, 'link-button'),
      );
      return item;
    }
    const label = row.depth === 1 && session.parent !== undefined ? `${session.parent.agent} task: ${session.title}` : session.title;
    const open = historyButton(
      label || 'Untitled session',
      'open',
      { 'data-testid': 'session-item', title: new Date(session.updatedAt).toLocaleString() },
      'session-button',
    );
    if (session.id === currentId) open.setAttribute('aria-current', 'true');
    const main = element('div', { className: 'session-main' }, open);
    if (row.excerpt !== undefined)
      main.append(element('div', { className: 'session-excerpt', text: row.excerpt, attributes: { 'data-testid': 'session-excerpt' } }));
    item.append(
      main,
      element('span', {
        className: 'session-date',
        text: sessionWhen(session.updatedAt, new Date()),
        attributes: { 'data-testid': 'session-date' },
      }),
    );
    // A task is named after its goal, which also links it to its chat: it is not renamed.
    if (session.parent === undefined) item.append(iconButton('edit', 'rename', 'session-rename', 'Rename this chat'));
    item.append(iconButton('trash', 'delete', 'session-delete', 'Delete this chat and its files'));
    return item;
  }

  private click(event: MouseEvent): void {
    const target = event.target instanceof Element ? event.target.closest<HTMLElement>('[data-history-action]') : null;
    const sessionId = target?.closest<HTMLElement>('[data-session-id]')?.dataset.sessionId;
    if (target === null || sessionId === undefined) return;
    switch (target.dataset.historyAction) {
      case 'open':
        this.post({ type: 'open-session', sessionId });
        return;
      case 'rename': {
        const title = this.model.sessions?.find((session) => session.id === sessionId)?.title ?? '';
        this.renaming = { sessionId, title };
        this.confirmingDelete = undefined;
        this.render();
        const input = this.list.querySelector<HTMLInputElement>('[data-history-input="title"]');
        input?.focus();
        input?.select();
        return;
      }
      case 'rename-save':
        this.saveRename();
        return;
      case 'rename-cancel':
        this.renaming = undefined;
        this.render();
        return;
      case 'delete':
        this.confirmingDelete = sessionId;
        this.renaming = undefined;
        this.render();
        this.list.querySelector<HTMLElement>('[data-history-action="delete-cancel"]')?.focus();
        return;
      case 'delete-confirm':
        this.confirmingDelete = undefined;
        this.post({ type: 'delete-session', sessionId });
        return;
      case 'delete-cancel':
        this.confirmingDelete = undefined;
        this.render();
        return;
    }
  }

  private input(event: Event): void {
    const target = event.target;
    if (!(target instanceof HTMLInputElement)) return;
    if (target.dataset.historyInput === 'title' && this.renaming !== undefined) {
      this.renaming.title = target.value;
      return;
    }
    if (target.dataset.historyInput !== 'search') return;
    this.query = target.value;
    this.render();
    clearTimeout(this.searchTimer);
    if (this.query.trim() === '') return;
    const query = this.query;
    this.searchTimer = setTimeout(() => this.post({ type: 'search-sessions', query }), SEARCH_DELAY_MS);
  }

  private keydown(event: KeyboardEvent): void {
    const target = event.target;
    if (!(target instanceof HTMLInputElement) || target.dataset.historyInput !== 'title') return;
    // Enter saves the name and Escape keeps the old one; neither reaches the page's own shortcuts.
    if (event.key === 'Enter' && !event.isComposing) {
      event.preventDefault();
      this.saveRename();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      this.renaming = undefined;
      this.render();
    }
    event.stopPropagation();
  }

  private saveRename(): void {
    const renaming = this.renaming;
    if (renaming === undefined) return;
    const title = renaming.title.trim();
    this.renaming = undefined;
    const unchanged = this.model.sessions?.find((session) => session.id === renaming.sessionId)?.title === title;
    if (title !== '' && !unchanged) this.post({ type: 'rename-session', sessionId: renaming.sessionId, title });
    this.render();
  }
}
