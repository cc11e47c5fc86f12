// Icons from the editor's own icon font (@vscode/codicons, issue 14 item 5): esbuild.mjs copies
// its stylesheet and font beside the bundle, and the page loads them under the view's CSP.
import { element } from './dom';

/** A decorative codicon; the words it stands for are always beside it (a tooltip or hidden text). */
export function codicon(name: string): HTMLElement {
  const spin = name === 'loading' ? ' codicon-modifier-spin' : '';
  return element('span', { className: `codicon codicon-${name}${spin}`, attributes: { 'aria-hidden': 'true', 'data-codicon': name } });
}
