/**
 * Deferred tools (issue 11, "Many tools"): when the offered tools would exceed a budget (a count,
 * or the tokens of their definitions), the MCP tools beyond it are not sent with every request.
 * The model finds them with `mcp_tools`, which enables the matches for its session; from the next
 * request on they are sent like any other tool. Deferral decides only what is *sent*: a deferred
 * tool stays under the same availability, declarations, pins and policy as an offered one.
 *
 * The split is stable, so a provider's prompt cache is not broken from one step to the next:
 * static tools are always sent, MCP tools fill the budget in registration order, and the tools a
 * session enabled are added on top (enabling never pushes another tool out).
 */
import { estimateTokens } from './token-budget';
import type { Tool } from './tool';

/** The name of the tool that finds and enables deferred tools (src/tools/mcp_tools.ts). */
export const DEFERRED_TOOL_SEARCH = 'mcp_tools';

export interface ToolBudget {
  /** Tools sent per request, static ones included (`mcp.max_offered_tools`). */
  readonly maxTools: number;
  /** Tokens of the sent definitions, at four characters a token (`mcp.max_offered_schema_tokens`). */
  readonly maxSchemaTokens: number;
}

/** What one tool's definition costs in a request. */
export function definitionTokens(tool: Pick<Tool, 'name' | 'description' | 'inputSchema'>): number {
  return estimateTokens(JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }).length);
}

export interface SplitTools {
  /** Sent with the request, in surface order. */
  readonly sent: readonly Tool[];
  /** Available, but sent only once `mcp_tools` enabled them for the session. */
  readonly deferred: readonly Tool[];
}

/** The MCP tools each session enabled through `mcp_tools`; shared by a registry and its slot views. */
export class DeferredTools {
  private readonly enabledBySession = new Map<string, Set<string>>();

  enable(sessionId: string, names: readonly string[]): void {
    let enabled = this.enabledBySession.get(sessionId);
    if (!enabled) this.enabledBySession.set(sessionId, (enabled = new Set()));
    for (const name of names) enabled.add(name);
  }

  isEnabled(sessionId: string, name: string): boolean {
    return this.enabledBySession.get(sessionId)?.has(name) === true;
  }

  /**
   * Splits `surface` under `budget`: tools for which `deferrable` is false are always sent; the
   * others fill what is left in order, the rest are deferred unless the session enabled them.
   */
  split(surface: readonly Tool[], deferrable: (tool: Tool) => boolean, budget: ToolBudget, sessionId: string): SplitTools {
    const costs = new Map(surface.map((tool) => [tool, definitionTokens(tool)]));
    const total = [...costs.values()].reduce((sum, cost) => sum + cost, 0);
    if (surface.length <= budget.maxTools && total <= budget.maxSchemaTokens) return { sent: surface, deferred: [] };
    let count = 0;
    let tokens = 0;
    for (const tool of surface) {
      if (deferrable(tool)) continue;
      count++;
      tokens += costs.get(tool) ?? 0;
    }
    const kept = new Set<Tool>();
    for (const tool of surface) {
      if (!deferrable(tool)) continue;
      const cost = costs.get(tool) ?? 0;
      // Once one tool does not fit, later ones are not squeezed in: the cut stays in one place.
      if (count + 1 > budget.maxTools || tokens + cost > budget.maxSchemaTokens) break;
      kept.add(tool);
      count++;
      tokens += cost;
    }
    const sent: Tool[] = [];
    const deferred: Tool[] = [];
    for (const tool of surface) {
      if (!deferrable(tool) || kept.has(tool) || this.isEnabled(sessionId, tool.name)) sent.push(tool);
      else deferred.push(tool);
    }
    return { sent, deferred };
  }
}

/** The words of a query, lower case, without punctuation. */
const words = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);

/**
 * The tools matching `query`, best first: an exact name (Zuno's or the server's) is the only
 * match; otherwise each query word found in the name counts three, in the description one.
 * Tools matching no word are left out.
 */
export function searchTools(tools: readonly Tool[], query: string, limit: number): Tool[] {
  const wanted = query.trim().toLowerCase();
  const exact = tools.filter((tool) => tool.name.toLowerCase() === wanted || tool.name.toLowerCase().endsWith(`__${wanted}`));
  if (exact.length > 0) return exact.slice(0, limit);
  const queryWords = words(query);
  const scored: { tool: Tool; score: number; index: number }[] = [];
  tools.forEach((tool, index) => {
    const name = tool.name.toLowerCase();
    const nameWords = new Set(words(tool.name));
    const descriptionWords = new Set(words(tool.description));
    let score = 0;
    for (const word of queryWords) {
      if (nameWords.has(word) || name.includes(word)) score += 3;
      if (descriptionWords.has(word)) score += 1;
    }
    if (score > 0) scored.push({ tool, score, index });
  });
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.slice(0, limit).map((entry) => entry.tool);
}
