/**
 * A small element builder. All text goes in through `textContent`, never through HTML strings,
 * so model and tool text cannot become markup; the only HTML the view assigns is markdown-it's
 * escaped output (media/markdown.ts).
 */

export interface ElementOptions {
  readonly className?: string;
  readonly text?: string;
  /** Set as attributes; `data-testid` and friends are what the e2e tests select on. */
  readonly attributes?: Readonly<Record<string, string>>;
}

export function element<Tag extends keyof HTMLElementTagNameMap>(
  tag: Tag,
  options: ElementOptions = {},
  ...children: readonly (Node | undefined)[]
): HTMLElementTagNameMap[Tag] {
  const node = document.createElement(tag);
  if (options.className !== undefined) node.className = options.className;
  if (options.text !== undefined) node.textContent = options.text;
  if (options.attributes !== undefined) {
    for (const [name, value] of Object.entries(options.attributes)) node.setAttribute(name, value);
  }
  for (const child of children) if (child !== undefined) node.append(child);
  return node;
}

/** A button that the delegated click handler routes by its `data-action`. */
export function actionButton(
  label: string,
  action: string,
  attributes: Readonly<Record<string, string>> = {},
  className = 'button',
): HTMLButtonElement {
  return element('button', { className, text: label, attributes: { type: 'button', 'data-action': action, ...attributes } });
}
