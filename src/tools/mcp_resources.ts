/**
 * mcp_resources and mcp_read: the resources MCP servers offer (issue 11). Reads change nothing,
 * so both are ReadOnly / Safe / ParallelSafe and get no strict prompt (E3). Output follows the
 * caps (O1): the scheduler keeps the head and tail and spills the whole text to a file the model
 * may read. Binary and image contents are described, never dumped.
 */
import { z } from 'zod';
import type { Declarations } from '../core/declarations';
import { ToolError } from '../core/errors';
import { formatResourceContents, McpNotSentError, type McpClients } from '../core/mcp';
import { defineTool, type Tool } from '../core/tool';

const DECLARATIONS: Declarations = { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' };

/** A server that cannot be reached is an error that says so; nothing was sent. */
function notSent(error: unknown): never {
  if (error instanceof McpNotSentError) throw new ToolError(`${error.message}. Nothing was read.`);
  throw error;
}

function knownServer(clients: McpClients, server: string): void {
  if (!clients.servers().includes(server)) {
    throw new ToolError(`There is no enabled MCP server "${server}". The servers are: ${clients.servers().join(', ') || '(none)'}.`);
  }
}

export function mcpResourcesTool(clients: McpClients): Tool {
  return defineTool({
    name: 'mcp_resources',
    description:
      'List the resources (documents, data) that MCP servers offer: one line per resource with its URI, name and type. Read one with mcp_read {"server": ..., "uri": ...}. Give "server" to list one server; without it every server is listed.',
    parameters: z.strictObject({ server: z.string().min(1).optional().describe('One MCP server; all servers when absent') }),
    declarations: DECLARATIONS,
    unavailableReason: () => (clients.servers().length === 0 ? 'no MCP server is enabled (mcp.servers)' : undefined),
    async run(args, context) {
      if (args.server !== undefined) knownServer(clients, args.server);
      const servers = args.server !== undefined ? [args.server] : clients.servers();
      const sections = await Promise.all(
        servers.map(async (server) => {
          try {
            const resources = await clients.listResources(server, context.signal);
            const lines = resources.map(
              (resource) =>
                `${resource.uri}  ${[resource.name, resource.mimeType, resource.size !== undefined ? `${resource.size} bytes` : undefined, resource.description].filter(Boolean).join(' · ')}`,
            );
            return `MCP server "${server}": ${resources.length} resource${resources.length === 1 ? '' : 's'}\n${lines.join('\n')}`.trimEnd();
          } catch (error) {
            if (args.server !== undefined) notSent(error);
            return `MCP server "${server}": not listed (${error instanceof Error ? error.message : String(error)})`;
          }
        }),
      );
      return { output: sections.join('\n\n') };
    },
  });
}

export function mcpReadTool(clients: McpClients): Tool {
  return defineTool({
    name: 'mcp_read',
    description:
      'Read one resource of an MCP server by its URI (from mcp_resources, or a resource link in a tool result). Text comes back as it is; binary contents (images, archives) are described with their type and size, not shown. Long text is cut to the output cap and saved in full to a file you can read.',
    parameters: z.strictObject({
      server: z.string().min(1).describe('The MCP server that offers the resource'),
      uri: z.string().min(1).describe('The resource URI'),
    }),
    declarations: DECLARATIONS,
    unavailableReason: () => (clients.servers().length === 0 ? 'no MCP server is enabled (mcp.servers)' : undefined),
    async run(args, context) {
      knownServer(clients, args.server);
      const contents = await clients.readResource(args.server, args.uri, context.signal).catch(notSent);
      if (contents.length === 0) return { output: `MCP server "${args.server}" returned no contents for ${args.uri}.` };
      const parts = contents.map((item) =>
        contents.length === 1
          ? formatResourceContents(args.server, item)
          : `[${item.uri}${item.mimeType ? ` ${item.mimeType}` : ''}]\n${formatResourceContents(args.server, item)}`,
      );
      return { output: parts.join('\n\n'), metadata: { server: args.server, uri: args.uri } };
    },
  });
}
