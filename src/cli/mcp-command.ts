/**
 * `zuno mcp list` and `zuno mcp accept SERVER [TOOL]` (issue 11): the user's side of MCP
 * pinning. `list` starts each enabled server and lists its tools with the names, declarations and
 * annotations Zuno gives them and how each stands against its pin; `accept` pins the definitions a
 * server presents now (all of them, or one tool), so a tool withheld as changed or new is offered
 * again. Accepting a definition is the user's act, never the model's: only this command does it.
 */
import type { ZunoConfig } from '../core/config';
import { acceptDefinitions, annotationNote, mcpDeclarations, mcpToolName, pinVerdict, type McpPins, type McpToolDefinition } from '../core/mcp';
import { createMcpPinStore } from '../hosts/node/mcp-pins';
import { createMcpClients } from '../agent/runtime';

export interface McpCommandOptions {
  readonly action: 'list' | 'accept';
  /** `accept`: the server, and optionally one tool of it. */
  readonly server?: string | undefined;
  readonly tool?: string | undefined;
  readonly json: boolean;
  readonly config: ZunoConfig;
  readonly workspaceRoot: string;
  readonly stateDir: string;
  /** stdout. */
  readonly write: (text: string) => void;
  /** stderr. */
  readonly warn: (text: string) => void;
}

/** How long `list` and `accept` wait for the servers. */
const COMMAND_TIMEOUT_MS = 60_000;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function describeVerdict(pins: McpPins, server: string, definition: McpToolDefinition): string {
  if (pins[server] === undefined) return 'not pinned yet (pinned when first offered to a model)';
  const verdict = pinVerdict(pins, server, definition);
  if (verdict === 'pinned') return 'pinned';
  const how = `withheld until: zuno mcp accept ${server} ${definition.name}`;
  return verdict === 'changed' ? `CHANGED since it was approved, ${how}` : `NEW since the server was approved, ${how}`;
}

/** Runs the command; the exit code is 0, 1 when a server could not be reached, 2 for a name that is not there. */
export async function runMcpCommand(options: McpCommandOptions): Promise<number> {
  const { config, write, warn } = options;
  const servers = config.mcp.servers;
  const names = Object.keys(servers);
  if (options.action === 'accept') {
    const entry = servers[options.server ?? ''];
    if (entry === undefined) {
      warn(`zuno: there is no MCP server "${options.server ?? ''}" in mcp.servers (the servers are: ${names.join(', ') || 'none'}).\n`);
      return 2;
    }
    if (!entry.enabled) {
      warn(`zuno: MCP server "${options.server ?? ''}" is disabled (mcp.servers.${options.server ?? ''}.enabled = false); enable it first.\n`);
      return 2;
    }
  } else if (names.length === 0) {
    write(options.json ? '[]\n' : 'No MCP servers are configured. Add them under "mcp": {"servers": {…}} in .zuno/config.json.\n');
    return 0;
  }
  const clients = createMcpClients({ config, workspaceRoot: options.workspaceRoot });
  const pinStore = createMcpPinStore(options.stateDir);
  const signal = AbortSignal.timeout(COMMAND_TIMEOUT_MS);
  try {
    let pins: McpPins;
    try {
      pins = await pinStore.load();
    } catch (error) {
      // Accepting rewrites the file whole; listing says what is wrong with it.
      warn(`zuno: ${pinStore.path} cannot be read (${messageOf(error)}); until it is fixed, deleted or rewritten by zuno mcp accept, every MCP tool is withheld.\n`);
      pins = {};
    }

    if (options.action === 'accept') {
      const server = options.server ?? '';
      let definitions: readonly McpToolDefinition[];
      try {
        definitions = await clients.tools(server, signal);
      } catch (error) {
        const status = clients.status(server);
        warn(`zuno: MCP server "${server}" could not be reached, so nothing was accepted: ${status.reason ?? messageOf(error)}\n`);
        if (status.stderrTail) warn(`Its stderr ends with:\n${status.stderrTail}\n`);
        return 1;
      }
      if (options.tool !== undefined && !definitions.some((definition) => definition.name === options.tool)) {
        warn(`zuno: MCP server "${server}" has no tool "${options.tool}" (it has: ${definitions.map((definition) => definition.name).join(', ') || 'none'}).\n`);
        return 2;
      }
      const accepted = definitions.filter((definition) => options.tool === undefined || definition.name === options.tool);
      await pinStore.save(acceptDefinitions(pins, server, definitions, options.tool));
      if (options.json) write(`${JSON.stringify({ server, accepted: accepted.map((definition) => definition.name) })}\n`);
      else for (const definition of accepted) write(`accepted ${server} ${definition.name}: ${(definition.description ?? '').split('\n')[0] ?? ''}\n`);
      return 0;
    }

    const listed = await Promise.all(
      names.map(async (server) => {
        if (servers[server]?.enabled === false) return { server, state: 'disabled' as const };
        try {
          return { server, state: 'running' as const, definitions: await clients.tools(server, signal) };
        } catch (error) {
          const status = clients.status(server);
          return { server, state: 'failed' as const, reason: status.reason ?? messageOf(error), stderr: status.stderrTail ?? null };
        }
      }),
    );
    // Named in config order, as the runtime names them.
    const taken = new Set<string>();
    const documents = listed.map((entry) => {
      const server = servers[entry.server];
      const tools =
        entry.state === 'running' && server !== undefined
          ? entry.definitions.map((definition) => ({
              name: mcpToolName(entry.server, definition.name, taken),
              tool: definition.name,
              pin: describeVerdict(pins, entry.server, definition),
              enabled: server.tools[definition.name]?.enabled !== false,
              declarations: mcpDeclarations(server, definition),
              annotations: annotationNote(entry.server, server, definition),
            }))
          : [];
      return { server: entry.server, state: entry.state, trust: server?.trust ?? false, ...(entry.state === 'failed' ? { reason: entry.reason, stderr: entry.stderr } : {}), tools };
    });
    if (options.json) write(`${JSON.stringify(documents, null, 2)}\n`);
    else {
      for (const document of documents) {
        const count = `${document.tools.length} tool${document.tools.length === 1 ? '' : 's'}`;
        write(`${document.server}: ${document.state}, ${document.trust ? 'trusted' : 'untrusted'}, ${count}${document.reason !== undefined ? ` (${document.reason})` : ''}\n`);
        for (const tool of document.tools) {
          const declared = `${tool.declarations.effect}/${tool.declarations.replay}/${tool.declarations.concurrency}`;
          write(`  ${tool.name}  ${declared}${tool.enabled ? '' : '  switched off'}  ${tool.pin}\n`);
        }
      }
    }
    return listed.some((entry) => entry.state === 'failed') ? 1 : 0;
  } finally {
    await clients.close();
  }
}
