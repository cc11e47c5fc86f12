/**
 * Helpers for the chat webview. They select on the `data-testid` and `data-*` attributes that
 * media/render.ts and media/chrome.ts keep as the contract with these tests.
 */
import type { Frame, Locator } from 'playwright-core';
import { UI_TIMEOUT_MS } from './editor';

/** `[data-testid="…"]`, the selector every chat element is found by. */
export const testId = (id: string): string => `[data-testid="${id}"]`;

/** Types `text` into the composer and presses Send. */
export async function sendPrompt(chat: Frame, text: string): Promise<void> {
  await chat.locator(testId('composer')).fill(text);
  await chat.locator(testId('send')).click();
}

/** Every assistant message, in transcript order. */
export const assistantMessages = (chat: Frame): Locator => chat.locator(`${testId('message')}[data-role="assistant"]`);

/** Waits for an assistant message that has finished streaming and contains `text`; returns its text. */
export async function waitForAnswer(chat: Frame, text: string, timeout = UI_TIMEOUT_MS): Promise<string> {
  const answer = chat.locator(`${testId('message')}[data-role="assistant"][data-streaming="false"]`, { hasText: text }).last();
  await answer.waitFor({ timeout });
  return (await answer.locator('.message-body').textContent()) ?? '';
}

/** The card of the tool call `callId`, or of the last call to `tool`. */
export const toolCard = (chat: Frame, by: { readonly callId: string } | { readonly tool: string }): Locator =>
  'callId' in by
    ? chat.locator(`${testId('tool-card')}[data-call-id="${by.callId}"]`)
    : chat.locator(`${testId('tool-card')}[data-tool="${by.tool}"]`).last();
