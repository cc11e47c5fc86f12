/** What the chat header's model and mode pickers show (issue 14 item 12), without the DOM so it can be unit tested. */
import type { PermissionMode } from '../src/core/config';
import type { ViewStatus } from '../src/webview/protocol';

/** What each mode means, for the dropdown's tooltip; the keys are checked against the config's modes. */
const MODE_HINTS = {
  strict: 'strict: asks before every call with side effects, unless an allow rule covers it',
  'auto-edit': 'auto-edit: file edits and plan/todo updates run without asking; commands still ask',
  auto: 'auto: nothing asks; deny rules and hooks still apply',
} as const satisfies Record<PermissionMode, string>;

export const PERMISSION_MODE_CHOICES = Object.keys(MODE_HINTS) as readonly PermissionMode[];

/** The select's value, when it is one of the modes (anything else is ignored). */
export function chosenMode(value: string): PermissionMode | undefined {
  return PERMISSION_MODE_CHOICES.find((mode) => mode === value);
}

export interface HeaderPickerState {
  readonly mode: PermissionMode | undefined;
  readonly modeTitle: string;
  readonly modelText: string;
  readonly modelTitle: string;
}

/** What the two pickers show for a status; a mode the view does not know leaves the dropdown blank. */
export function headerPickerState(status: ViewStatus): HeaderPickerState {
  const mode = chosenMode(status.permissionMode);
  const model = status.modelName;
  return {
    mode,
    modeTitle: mode === undefined ? `Permission mode: ${status.permissionMode}` : `Permission mode. ${MODE_HINTS[mode]}`,
    modelText: model ?? 'Select model',
    modelTitle: model === undefined ? 'No model is set: choose one' : `Model: ${status.modelLabel}. Click to change it.`,
  };
}
