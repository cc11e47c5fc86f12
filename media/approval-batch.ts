/**
 * "Approve all N" (issue 14): when one turn waits on several approvals, each of them offers to
 * approve exactly the ones pending now. Each is then approved as if its own Approve had been
 * pressed and recorded as such; nothing is remembered for later calls (no hidden "always").
 * DOM-free, unit-tested in node.
 */
import type { PendingApproval } from '../src/webview/protocol';

/** The approvals still waiting for the user in this view, in the order they arrived; a batch needs two. */
export function approvalBatch(approvals: ReadonlyMap<string, PendingApproval>, decided: ReadonlySet<string>): readonly string[] {
  const waiting = [...approvals.keys()].filter((callId) => !decided.has(callId));
  return waiting.length >= 2 ? waiting : [];
}

export const batchLabel = (callIds: readonly string[]): string => `Approve all ${callIds.length}`;

/** What a drawn "Approve all" button carries (`data-call-ids`): JSON, since a model's call id may hold any character. */
export const batchAttribute = (callIds: readonly string[]): string => JSON.stringify(callIds);

/** The ids back from the button's attribute; anything malformed gives none (nothing is approved). */
export function parseBatch(attribute: string | undefined): string[] {
  if (attribute === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(attribute);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed) || !parsed.every((callId): callId is string => typeof callId === 'string' && callId !== '')) return [];
  const ids = [...new Set(parsed)];
  return ids.length >= 2 ? ids : [];
}
