/**
 * The composer's @-mention picker (issue 14 item 14): typing `@` opens a list of workspace files
 * that narrows as the user types; arrows move, Enter or Tab chooses, Escape closes. Choosing one
 * puts `@path` in place of what was typed. The host lists and ranks the files; this module only
 * tracks the token at the caret (mention-token.ts) and the list.
 */
import { element } from './dom';
import { activeMention, insertMention, type ActiveMention } from './mention-token';

/** The open picker: the results for the current query and the highlighted row. */
export class MentionPicker {
  readonly root = element('ul', {
    className: 'mention-list',
    attributes: { 'data-testid': 'mention-list', role: 'listbox', 'aria-label': 'Workspace files' },
  });
  private mention: ActiveMention | undefined;
  private paths: readonly string[] = [];
  private selected = 0;

  constructor(
    private readonly composer: HTMLTextAreaElement,
    private readonly search: (query: string) => void,
    private readonly changed: () => void,
  ) {
    this.root.hidden = true;
    // mousedown, not click: the composer must keep its caret and focus.
    this.root.addEventListener('mousedown', (event) => {
      const row = event.target instanceof Element ? event.target.closest<HTMLElement>('[data-path]') : null;
      if (row?.dataset.path === undefined) return;
      event.preventDefault();
      this.choose(row.dataset.path);
    });
  }

  get open(): boolean {
    return this.mention !== undefined;
  }

  /** After each edit or caret move in the composer: opens, narrows or closes the picker. */
  update(): void {
    const mention = activeMention(this.composer.value, this.composer.selectionStart);
    const queryChanged = mention?.query !== this.mention?.query || mention?.start !== this.mention?.start;
    this.mention = mention;
    if (mention === undefined) {
      this.close();
      return;
    }
    if (queryChanged) this.search(mention.query);
  }

  /** The host's answer; an answer for an older query is dropped. */
  results(query: string, paths: readonly string[]): void {
    if (this.mention === undefined || this.mention.query !== query) return;
    this.paths = paths;
    this.selected = 0;
    this.draw();
  }

  /** The composer's keydown; true when the picker used the key (the composer must then not send). */
  key(event: KeyboardEvent): boolean {
    if (this.mention === undefined || this.root.hidden) return false;
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowUp': {
        if (this.paths.length === 0) return false;
        const step = event.key === 'ArrowDown' ? 1 : -1;
        this.selected = (this.selected + step + this.paths.length) % this.paths.length;
        this.draw();
        return true;
      }
      case 'Enter':
      case 'Tab': {
        const path = this.paths[this.selected];
        if (path === undefined || event.shiftKey || event.isComposing) return false;
        this.choose(path);
        return true;
      }
      case 'Escape':
        this.close();
        return true;
      default:
        return false;
    }
  }

  private choose(path: string): void {
    if (this.mention === undefined) return;
    const { text, caret } = insertMention(this.composer.value, this.mention, path);
    this.composer.value = text;
    this.composer.setSelectionRange(caret, caret);
    this.composer.focus();
    this.close();
    this.changed();
  }

  close(): void {
    this.mention = undefined;
    this.paths = [];
    this.root.hidden = true;
    this.root.replaceChildren();
  }

  private draw(): void {
    this.root.hidden = false;
    if (this.paths.length === 0) {
      this.root.replaceChildren(element('li', { className: 'mention-empty', text: 'No matching files in this workspace' }));
      return;
    }
    this.root.replaceChildren(
      ...this.paths.map((path, index) => {
        const slash = path.lastIndexOf('/');
        return element(
          'li',
          {
            className: index === this.selected ? 'mention-item selected' : 'mention-item',
            attributes: {
              'data-testid': 'mention-item',
              'data-path': path,
              role: 'option',
              'aria-selected': String(index === this.selected),
              title: path,
            },
          },
          element('span', { className: 'mention-name', text: path.slice(slash + 1) }),
          element('span', { className: 'mention-folder', text: slash < 0 ? '' : path.slice(0, slash) }),
        );
      }),
    );
    this.root.querySelector('.selected')?.scrollIntoView({ block: 'nearest' });
  }
}
