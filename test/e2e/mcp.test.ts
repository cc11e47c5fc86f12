// Issue 11 in the real editor (code-server driven through Chromium): a server defined by the
// workspace's .vscode/mcp.json (server-everything from npm, over stdio) is listed by "Zuno: MCP
// Servers" as not approved and is not started; approved there, it runs with its tools, and its
// echo tool appears in "Zuno: Toggle Tools…" under Zuno's name.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Editor } from './support/editor';
import { sharedEditor } from './support/session';

const repository = join(__dirname, '..', '..');
const mcpJson = JSON.stringify({
  servers: {
    everything: {
      type: 'stdio',
      command: process.execPath,
      args: [join(repository, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
    },
  },
});

const quickInput = (page: Page) => page.locator('.quick-input-widget');

/** Runs a command whose quick pick has `title`, and narrows it to `filter`. */
async function openPick(editor: Editor, command: string, title: string, filter: string): Promise<void> {
  await editor.runCommand(command);
  await quickInput(editor.page).locator('.quick-input-title', { hasText: title }).waitFor();
  await quickInput(editor.page).locator('.quick-input-box input').fill(filter);
}

/** The text of the quick pick's rows now. */
async function rows(page: Page): Promise<string> {
  return (await quickInput(page).locator('.quick-input-list .monaco-list-row').allInnerTexts()).join('\n');
}

const shared = sharedEditor({ workspace: { '.vscode/mcp.json': mcpJson, 'README.md': '# MCP\n' } });

describe('issue 11: MCP in the editor (one editor)', () => {
  before(() => shared.start());
  after(() => shared.stop());

  it('issue 11: a .vscode/mcp.json server appears in MCP Servers, is started only once approved, and its tool is in Toggle Tools', (t) =>
    shared.scenario(t, async ({ editor }) => {
      const { page } = editor;
      await editor.openZuno();

      await openPick(editor, 'Zuno: MCP Servers', 'Zuno: MCP servers', 'everything');
      await editor.waitFor(async () => /not approved · from \.vscode\/mcp\.json/.test(await rows(page)), {
        message: 'the server listed as not approved',
      });
      await page.keyboard.press('Enter');
      await quickInput(page).locator('.quick-input-box input').fill('Approve');
      await quickInput(page).locator('.quick-input-list .monaco-list-row', { hasText: 'Approve' }).waitFor();
      await page.keyboard.press('Enter');

      await openPick(editor, 'Zuno: MCP Servers', 'Zuno: MCP servers', 'everything');
      let shown = '';
      await editor.waitFor(
        async () => {
          shown = await rows(page);
          return /running · \d+ tools · untrusted · from \.vscode\/mcp\.json/.test(shown);
        },
        { message: 'the approved server running with its tools' },
      );
      assert.match(shown, /running · \d+ tools · untrusted/);
      await page.keyboard.press('Escape');

      await openPick(editor, 'Zuno: Toggle Tools', 'Zuno: tools the model is offered', 'mcp__everything__echo');
      const checkbox = page.locator(
        '.quick-input-widget .quick-input-list .monaco-checkbox[role="checkbox"][aria-label="mcp__everything__echo"]',
      );
      await checkbox.waitFor();
      assert.equal(await checkbox.getAttribute('aria-checked'), 'true', 'offered unless switched off');
      await page.keyboard.press('Escape');
    }));
});
