/**
 * mcp_tools: finds MCP tools that are not sent with every request (issue 11, "Many tools"; see
 * src/core/deferred-tools.ts) and enables the matches for the session, so their definitions are
 * sent from the next request on. Finding and enabling change nothing outside the session's tool
 * list, so it is ReadOnly / Safe / ParallelSafe; the enabled tools keep their own declarations,
 * pins and permission rules.
 */
import { z } from 'zod';
import { DEFERRED_TOOL_SEARCH, searchTools } from '../core/deferred-tools';
import type { ToolRegistry } from '../core/registry';
import { defineTool, type Tool } from '../core/tool';

const MAX_MATCHES = 20;

/** `registry` is read at each call: the tool is registered in the registry it searches. */
export function mcpToolsTool(registry: () => ToolRegistry): Tool {
  return defineTool({
    name: DEFERRED_TOOL_SEARCH,
    description:
      'Find MCP tools by keywords or exact name and make them callable. When many MCP tools exist, some are not listed with every request; the matches found here are enabled for this session and can be called from your next step.',
    parameters: z.strictObject({
      query: z.string().trim().min(1).max(500).describe('Keywords of what you need (e.g. "github issue create"), or a tool\'s exact name'),
      limit: z
        .int()
        .min(1)
        .max(MAX_MATCHES)
        .optional()
        .describe(`How many matches to enable, best first (default 5, at most ${MAX_MATCHES})`),
    }),
    declarations: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' },
    unavailableReason: () =>
      registry()
        .names()
        .some((name) => name.startsWith('mcp__'))
        ? undefined
        : 'no MCP server offers tools (mcp.servers)',
    run(args, context) {
      const { sent, deferred } = registry().offered(context, context.sessionId);
      const mcpSent = sent.filter((tool) => tool.name.startsWith('mcp__'));
      const matches = searchTools([...deferred, ...mcpSent], args.query, args.limit ?? 5);
      if (matches.length === 0) {
        const total = deferred.length + mcpSent.length;
        return Promise.resolve({
          output: `No MCP tool matches "${args.query}" (${total} MCP tool${total === 1 ? '' : 's'} available). Try other words.`,
          metadata: { enabled: [] },
        });
      }
      const newlyEnabled = matches.filter((tool) => deferred.includes(tool));
      registry().deferral.enable(
        context.sessionId,
        newlyEnabled.map((tool) => tool.name),
      );
      const lines = matches.map((tool) => {
        const state = deferred.includes(tool) ? 'enabled now, callable from your next step' : 'already listed';
        return `${tool.name} (${state}): ${tool.description}\n  parameters: ${JSON.stringify(tool.inputSchema)}`;
      });
      return Promise.resolve({ output: lines.join('\n'), metadata: { enabled: newlyEnabled.map((tool) => tool.name) } });
    },
  });
}
