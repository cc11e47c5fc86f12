/**
 * How a call ends (SPEC B1–B3, R3). Every call ends in exactly one of these, persisted.
 * `blocked` means the effect never ran; `error` means it ran and failed; `indeterminate`
 * means the effect may or may not have happened and will not be retried.
 */

export const BLOCKED_CATEGORIES = ['invalid_arguments', 'unavailable', 'denied'] as const;
export type BlockedCategory = (typeof BLOCKED_CATEGORIES)[number];

export const OUTCOME_KINDS = ['ok', 'error', 'blocked', 'indeterminate', 'cancelled'] as const;
export type OutcomeKind = (typeof OUTCOME_KINDS)[number];

export type Outcome =
  | { readonly kind: 'ok' }
  | { readonly kind: 'error' }
  | { readonly kind: 'blocked'; readonly category: BlockedCategory }
  | { readonly kind: 'indeterminate' }
  | { readonly kind: 'cancelled' };

/** The model-facing text of a blocked call. It says plainly that nothing ran (B2, B3). */
export function blockedMessage(tool: string, category: BlockedCategory, reason: string): string {
  const what: Record<BlockedCategory, string> = {
    invalid_arguments: 'its arguments were invalid',
    unavailable: 'the tool is not available here',
    denied: 'permission was denied',
  };
  return (
    `BLOCKED (${category}): the call to "${tool}" was NOT executed, because ${what[category]}. ` +
    `Nothing happened; no state was changed.\nReason: ${reason}`
  );
}
