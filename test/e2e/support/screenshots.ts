/**
 * Screenshots of the chat in the light and the dark theme, kept as artifacts (issue 14, Tests):
 * `test-results/screenshots/<scenario>-light.png` and `-dark.png`, beside the failure logs that
 * CI keeps (test-results/ is git-ignored). The theme is switched through the command palette, and
 * the window is back in its first theme afterwards.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { repoRoot } from '../../../scripts/code-server';
import { ZUNO_CHAT_SELECTOR, type Editor } from './editor';

type ThemeKind = 'light' | 'dark';

/** The themes' labels in the picker (their setting ids are "Default Light Modern" and "Default Dark Modern"). */
const THEMES: Readonly<Record<ThemeKind, string>> = { light: 'Light Modern', dark: 'Dark Modern' };

export const SCREENSHOT_DIR = join(repoRoot, 'test-results', 'screenshots');

/** The workbench marks its theme's kind on its root: `vs` (light), `vs-dark`, `hc-black`, `hc-light`. */
async function themeKind(page: Page): Promise<ThemeKind> {
  const classes = (await page.locator('.monaco-workbench').first().getAttribute('class')) ?? '';
  return /\b(vs-dark|hc-black)\b/.test(classes) ? 'dark' : 'light';
}

/** Sets the colour theme as a user would (Preferences: Color Theme) and waits until the workbench and the chat view show it. */
async function useTheme(editor: Editor, kind: ThemeKind): Promise<void> {
  const { page } = editor;
  await editor.runCommand('Preferences: Color Theme');
  // The palette turns into the theme picker (its last row browses the marketplace, which is offline here).
  await page.locator('.quick-input-widget input[placeholder*="Color Theme"]').waitFor();
  await page.locator('.quick-input-widget input').fill(THEMES[kind]);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: THEMES[kind] }).first().click();
  const chat = await editor.frameWith(ZUNO_CHAT_SELECTOR);
  await editor.waitFor(
    async () =>
      (await themeKind(page)) === kind &&
      // A webview's body carries `vscode-light` / `vscode-dark` once the theme reached it.
      (await chat.evaluate<boolean>(`document.body.classList.contains('vscode-${kind}')`)),
    { message: `the ${THEMES[kind]} theme in the workbench and the chat view` },
  );
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
}

/** Captures the side bar (the chat) in the current theme, then in the other one. Returns the files written. */
export async function screenshotThemes(editor: Editor, scenario: string): Promise<string[]> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const first = await themeKind(editor.page);
  const order: ThemeKind[] = first === 'light' ? ['light', 'dark'] : ['dark', 'light'];
  const files: string[] = [];
  for (const kind of order) {
    if (kind !== first) await useTheme(editor, kind);
    const file = join(SCREENSHOT_DIR, `${scenario}-${kind}.png`);
    await editor.page.locator('.part.sidebar').screenshot({ path: file });
    files.push(file);
  }
  await useTheme(editor, first);
  return files;
}
