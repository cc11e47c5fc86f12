/**
 * Reading VS Code's terminal panel, and checking on processes, from an e2e test.
 *
 * xterm.js draws with WebGL when it can, and then its text is only pixels. With
 * `terminal.integrated.gpuAcceleration: "off"` (TERMINAL_SETTINGS) it uses its DOM renderer:
 * one `<div>` per visible row under `.xterm-rows`. Only the rows in view exist (no scrollback),
 * so a test reads the terminal while the lines it expects are on screen.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { waitFor, type WaitOptions } from './editor';

/** User settings that make the terminal's text readable from the DOM. */
export const TERMINAL_SETTINGS: Readonly<Record<string, unknown>> = { 'terminal.integrated.gpuAcceleration': 'off' };

/** The visible rows of the terminal panel, top to bottom, with xterm's no-break spaces made plain. */
export async function terminalLines(page: Page): Promise<string[]> {
  const rows = await page.locator('.terminal-wrapper .xterm-rows > div').allTextContents();
  return rows.map((row) => row.replace(/\u00a0/g, ' ').trimEnd());
}

/**
 * Waits until the terminal shows every one of `lines`, in that order (other rows may come between),
 * and returns the rows it saw. A line matches a row that equals it, or a RegExp that matches the row.
 */
export async function waitForTerminalLines(page: Page, lines: readonly (string | RegExp)[], options: WaitOptions = {}): Promise<string[]> {
  let seen: string[] = [];
  const matches = (row: string, line: string | RegExp): boolean => (typeof line === 'string' ? row === line : line.test(row));
  try {
    await waitFor(
      async () => {
        seen = await terminalLines(page);
        let next = 0;
        for (const row of seen) if (next < lines.length && matches(row, lines[next] ?? '')) next += 1;
        return next === lines.length;
      },
      { message: `the terminal to show ${lines.map(String).join(' … ')}`, ...options },
    );
  } catch (error: unknown) {
    const shown = seen.filter((row) => row !== '').join('\n');
    throw new Error(`${error instanceof Error ? error.message : String(error)}\nThe terminal showed:\n${shown}`, { cause: error });
  }
  return seen;
}

/**
 * Whether process `pid` still exists. A zombie counts as gone: it has exited and only waits to be
 * reaped, which in a container whose PID 1 does not reap may never happen.
 */
export function processAlive(pid: number): boolean {
  if (process.platform === 'linux') {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return false;
    }
    // "pid (comm) state …": comm may hold spaces and parentheses, the state follows the last ')'.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error: unknown) {
    return typeof error === 'object' && error !== null && 'code' in error && error.code === 'EPERM';
  }
}
