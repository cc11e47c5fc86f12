/**
 * What a call shows besides its header: a command's exit code and last lines, and the collapsible
 * arguments and output (capped by media/call-output.ts). One drawing for a top-level card and for a
 * delegated child call inside its task card (issue 14 item 3), so both read the same.
 */
import { detailsLabel, type CallOutput } from './call-output';
import { actionButton, element } from './dom';
import { formatArguments } from './presentation';
import { exitLabel, lastLines } from './rows';

export interface DetailedCall extends CallOutput {
  readonly argumentsText: string;
  readonly exitCode?: number;
  readonly truncated: boolean;
}

/** A command's result at a glance: its exit code and how its output ended. */
export function shellResult(call: DetailedCall): HTMLElement | undefined {
  const exit = exitLabel(call);
  if (exit === undefined) return undefined;
  const tail = lastLines(call.output);
  return element(
    'div',
    { className: `shell-result${call.exitCode === 0 ? '' : ' failed'}`, attributes: { 'data-testid': 'shell-result' } },
    element('span', { className: 'exit-code', text: exit, attributes: { 'data-testid': 'exit-code' } }),
    tail.length === 0
      ? undefined
      : element('pre', { className: 'shell-tail', text: tail.join('\n'), attributes: { 'data-testid': 'shell-tail' } }),
  );
}

/**
 * The toggle and, when `open`, the panel with the full arguments and the kept tail of the output.
 * `toggle` is the button's action and attributes: they say which call (or child call) it opens.
 */
export function callDetails(
  call: DetailedCall,
  open: boolean,
  toggle: { readonly action: string; readonly attributes: Readonly<Record<string, string>> },
): HTMLElement[] {
  const label = detailsLabel(call);
  if (label === undefined) return [];
  const button = actionButton(
    `${open ? 'Hide' : 'Show'} ${label.toLowerCase()}`,
    toggle.action,
    { ...toggle.attributes, 'data-testid': 'toggle-details', 'aria-expanded': String(open) },
    'link-button',
  );
  if (!open) return [button];

  const panel = element('div', { className: 'tool-details', attributes: { 'data-testid': 'tool-details' } });
  if (call.argumentsText.trim() !== '') {
    panel.append(
      element('div', { className: 'details-label', text: 'Arguments' }),
      element('pre', { className: 'tool-arguments', text: formatArguments(call.argumentsText) }),
    );
  }
  if (call.output !== '') {
    panel.append(element('div', { className: 'details-label', text: 'Output' }));
    if (call.droppedOutputChars > 0) {
      panel.append(
        element('div', { className: 'details-note', text: `${call.droppedOutputChars} earlier characters are not shown here.` }),
      );
    }
    panel.append(element('pre', { className: 'tool-output', text: call.output, attributes: { 'data-testid': 'tool-output' } }));
  }
  if (call.truncated) {
    panel.append(
      element('div', { className: 'details-note', text: 'The result was truncated to the output cap before the model saw it.' }),
    );
  }
  return [button, panel];
}
