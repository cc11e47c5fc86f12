// The recovery card's words (issue 14 item 11); DOM-free for the tests.
import { clip, summarizeArguments } from './presentation';
import type { ToolItem } from './transcript';

/** What a cut-off call was doing, as short as the card needs: the command line of a shell call. */
export function cutOffCall(card: Pick<ToolItem, 'tool' | 'argumentsText' | 'subject'>): string {
  if (card.tool === 'shell') {
    try {
      const parsed: unknown = JSON.parse(card.argumentsText);
      const command = parsed !== null && typeof parsed === 'object' ? (parsed as { command?: unknown }).command : undefined;
      if (typeof command === 'string') return clip(command.replace(/\s+/g, ' ').trim(), 80);
    } catch {
      // Arguments that are not JSON are summarised like any other call's below.
    }
  }
  const subject = card.subject ?? summarizeArguments(card.argumentsText, 60);
  return subject === '' ? card.tool : `${card.tool} ${subject}`;
}

/** The card's headline: "Zuno stopped while `npm test` was running; it was not re-run." */
export function recoveryHeadline(calls: readonly string[]): string {
  if (calls.length === 0) return 'Zuno stopped before it finished (the window was closed or reloaded).';
  if (calls.length === 1) return `Zuno stopped while \`${calls[0] ?? ''}\` was running; it was not re-run.`;
  const named = calls.slice(0, 3).map((call) => `\`${call}\``);
  const more = calls.length > 3 ? ` and ${calls.length - 3} more` : '';
  return `Zuno stopped while ${calls.length} calls were running (${named.join(', ')}${more}); they were not re-run.`;
}
