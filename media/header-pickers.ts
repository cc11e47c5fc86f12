/**
 * The chat header's model and permission-mode pickers (issue 14 item 12): the mode is a native
 * dropdown of the three modes; the model is a compact button that opens "Select Model", because
 * the models come from the server, which only the extension host may ask. Both show what is set
 * now, and both change the same settings as the palette commands.
 */
import type { ViewStatus } from '../src/webview/protocol';
import { actionButton, element } from './dom';
import { headerPickerState, PERMISSION_MODE_CHOICES } from './header-format';

export class HeaderPickers {
  readonly root: HTMLElement;
  private readonly modeSelect = element('select', {
    className: 'header-picker mode-picker',
    attributes: { 'data-testid': 'mode-picker', 'data-change': 'permission-mode', 'aria-label': 'Permission mode' },
  });
  private readonly modelButton = actionButton(
    '',
    'configure-model',
    { 'data-testid': 'model-picker', 'aria-label': 'Model', 'aria-haspopup': 'listbox' },
    'header-picker model-picker',
  );

  constructor() {
    for (const mode of PERMISSION_MODE_CHOICES) this.modeSelect.append(element('option', { text: mode, attributes: { value: mode } }));
    this.root = element('div', { className: 'header-pickers' }, this.modelButton, this.modeSelect);
  }

  update(status: ViewStatus): void {
    const state = headerPickerState(status);
    this.modeSelect.value = state.mode ?? '';
    this.modeSelect.title = state.modeTitle;
    this.modelButton.textContent = state.modelText;
    this.modelButton.title = state.modelTitle;
  }
}
