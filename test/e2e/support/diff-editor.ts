/**
 * Helpers for VS Code's diff editor, which "Show diff" on an approval opens (src/hosts/vscode/
 * proposals.ts): the file on disk on the left, Zuno's editable proposal (scheme zuno-proposal)
 * on the right. Monaco draws only the lines in view, each absolutely positioned, so the text is
 * read back in `top` order; short files fit on screen whole.
 */
import type { Locator, Page } from 'playwright-core';

/** The diff editor whose tab is active. */
export const activeDiffEditor = (page: Page): Locator => page.locator('.editor-group-container.active .monaco-diff-editor').first();

/** The label of the active editor tab, e.g. "plan.md (new file proposed by Zuno)". */
export async function activeTabLabel(page: Page): Promise<string> {
  return (await page.locator('.editor-group-container.active .tab.active').first().getAttribute('aria-label')) ?? '';
}

/**
 * The text one side of the active diff editor shows, lines joined with "\n" (Monaco draws spaces
 * as no-break spaces; they are turned back). Only lines drawn on screen are included.
 */
export async function diffEditorText(page: Page, side: 'original' | 'modified'): Promise<string> {
  // A string, because this tsconfig has no DOM types; it runs in the page.
  const script = `(() => {
    const root = document.querySelector('.editor-group-container.active .monaco-diff-editor .editor.${side} .view-lines');
    if (root === null) return null;
    const lines = [...root.querySelectorAll(':scope > .view-line')]
      .map((line) => ({ top: parseFloat(line.style.top || '0'), text: line.textContent || '' }))
      .sort((a, b) => a.top - b.top);
    return lines.map((line) => line.text.replace(/\\u00a0/g, ' ')).join('\\n');
  })()`;
  const text = await page.evaluate<string | null>(script);
  if (text === null) throw new Error(`the active diff editor has no ${side} side`);
  return text;
}
