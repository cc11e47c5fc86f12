/**
 * The collapsible plan/todo panel at the top of the chat (issue 14 item 14): the todo list with
 * completed items checked and the current one highlighted, the plan under it. Its header always
 * says where the work stands ("Todos 2/5 · now: Fix the total"), so it is useful folded too.
 */
import { actionButton, element } from './dom';
import type { WorkState } from './work-state';

const STATUS_GLYPHS: Readonly<Record<string, string>> = { pending: '☐', in_progress: '▶', completed: '☑', cancelled: '☒' };
const STATUS_WORDS: Readonly<Record<string, string>> = {
  pending: 'to do',
  in_progress: 'in progress',
  completed: 'done',
  cancelled: 'cancelled',
};

export class WorkPanel {
  readonly root = element('section', {
    className: 'work-panel',
    attributes: { 'data-testid': 'work-panel', 'aria-label': 'Plan and todos' },
  });
  private drawn = -1;
  private drawnCollapsed: boolean | undefined;

  constructor(
    private readonly state: WorkState,
    private readonly collapsed: () => boolean,
  ) {
    this.root.hidden = true;
  }

  /** Redraws when the plan, the todos or the folding changed; cheap otherwise (called every frame). */
  update(): void {
    const collapsed = this.collapsed();
    if (this.drawn === this.state.version && this.drawnCollapsed === collapsed) return;
    this.drawn = this.state.version;
    this.drawnCollapsed = collapsed;
    const { state } = this;
    this.root.hidden = state.empty;
    if (state.empty) {
      this.root.replaceChildren();
      return;
    }
    this.root.dataset.collapsed = String(collapsed);
    const current = state.current;
    const summary = [
      state.todos.length > 0 ? `Todos ${state.done}/${state.todos.length}` : 'Plan',
      ...(current !== undefined ? [`now: ${current.content}`] : []),
    ].join(' · ');
    const toggle = actionButton(
      `${collapsed ? '▸' : '▾'} ${summary}`,
      'toggle-work-panel',
      {
        'data-testid': 'work-panel-toggle',
        'aria-expanded': String(!collapsed),
        title: collapsed ? 'Show the plan and todos' : 'Hide the plan and todos',
      },
      'work-panel-toggle',
    );
    if (collapsed) {
      this.root.replaceChildren(toggle);
      return;
    }
    const list = element(
      'ul',
      { className: 'todo-list', attributes: { 'data-testid': 'todo-list' } },
      ...state.todos.map((todo) =>
        element(
          'li',
          {
            className: `todo-item status-${todo.status}${todo === current ? ' current' : ''}`,
            attributes: {
              'data-testid': 'todo-item',
              'data-status': todo.status,
              'data-todo-id': todo.id,
              ...(todo === current ? { 'aria-current': 'step' } : {}),
            },
          },
          element('span', {
            className: 'todo-glyph',
            text: STATUS_GLYPHS[todo.status] ?? '•',
            attributes: { title: STATUS_WORDS[todo.status] ?? todo.status },
          }),
          element('span', { className: 'todo-content', text: todo.content }),
        ),
      ),
    );
    this.root.replaceChildren(
      toggle,
      ...(state.todos.length > 0 ? [list] : []),
      ...(state.plan !== undefined
        ? [element('div', { className: 'work-plan plain', text: state.plan, attributes: { 'data-testid': 'work-plan' } })]
        : []),
    );
  }
}
