/**
 * `zuno mcp list` and `zuno mcp accept SERVER [TOOL]` (issue 11): the user's side of MCP
 * pinning. `list` starts each enabled server and lists its tools with the names, declarations and
 * annotations Zuno gives them and how each stands against its pin; `accept` pins the definitions a
 * server presents now (all of them, or one tool), so a tool withheld as changed or new is offered
 * again. Accepting a definition is the user's act, never the model's: only this command does it.
 */
import type { ZunoConfig } from '../core/config';
import type { Declarations } from '../core/declarations';
import { acceptAndKeep, annotationNote, mcpDeclarations, mcpToolName, pinVerdict, type McpPins, type McpToolDefinition } from '../core/mcp';
import { pendingNotice, WORKSPACE_MCP_FILE, withWorkspaceServers } from '../core/mcp-workspace';
import { createMcpPinStore } from '../hosts/node/mcp-pins';
import { createWorkspaceMcpDecisionStore, loadWorkspaceMcp, type WorkspaceMcp } from '../hosts/node/mcp-workspace';
import { createMcpClients } from '../agent/runtime';

/**
 * The config with the approved servers of the workspace's `.vscode/mcp.json` added (issue 11).
 * The others are not started; `warn` says which and how to approve them, and what of the file
 * could not be used.
 */
export function withApprovedWorkspaceServers(
  config: ZunoConfig,
  workspaceRoot: string,
  stateDir: string,
  warn: (text: string) => void,
): ZunoConfig {
  const workspace = loadWorkspaceMcp(workspaceRoot, stateDir, config);
  if (!workspace) return config;
  for (const problem of workspace.problems) warn(`zuno: ${problem}\n`);
  const { pending } = workspace.standing;
  if (pending.length > 0) {
    const names = pending.map((entry) => entry.name).join(' ');
    warn(
      `zuno: ${pendingNotice(pending, `Review ${WORKSPACE_MCP_FILE}, then run: zuno mcp approve SERVER (${names}); or zuno mcp decline SERVER to stop this notice.`)}\n`,
    );
  }
  return withWorkspaceServers(config, workspace.standing.approved);
}

export interface McpCommandOptions {
  readonly action: 'list' | 'accept' | 'approve' | 'decline';
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

interface ServerDocument {
  readonly server: string;
  readonly state: 'running' | 'failed' | 'disabled' | 'not approved' | 'declined';
  /** `config`, or the workspace file the server comes from. */
  readonly origin: string;
  readonly trust: boolean;
  readonly reason?: string;
  readonly stderr?: string | null;
  readonly tools: readonly { name: string; tool: string; pin: string; enabled: boolean; declarations: Declarations; annotations: string }[];
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
  const { write, warn } = options;
  const workspace = loadWorkspaceMcp(options.workspaceRoot, options.stateDir, options.config);
  if (options.action === 'approve' || options.action === 'decline') return decide(options, workspace);
  for (const problem of workspace?.problems ?? []) warn(`zuno: ${problem}\n`);
  const config = withWorkspaceServers(options.config, workspace?.standing.approved ?? {});
  const servers = config.mcp.servers;
  const names = Object.keys(servers);
  const unapproved = [
    ...(workspace?.standing.pending ?? []).map((entry) => ({ ...entry, state: 'not approved' as const })),
    ...(workspace?.standing.declined ?? []).map((entry) => ({ ...entry, state: 'declined' as const })),
  ];
  if (options.action === 'accept') {
    const entry = servers[options.server ?? ''];
    if (entry === undefined) {
      warn(`zuno: there is no MCP server "${options.server ?? ''}" in mcp.servers (the servers are: ${names.join(', ') || 'none'}).\n`);
      return 2;
    }
    if (!entry.enabled) {
      warn(
        `zuno: MCP server "${options.server ?? ''}" is disabled (mcp.servers.${options.server ?? ''}.enabled = false); enable it first.\n`,
      );
      return 2;
    }
  } else if (names.length === 0 && unapproved.length === 0) {
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
      warn(
        `zuno: ${pinStore.path} cannot be read (${messageOf(error)}); until it is fixed, deleted or rewritten by zuno mcp accept, every MCP tool is withheld.\n`,
      );
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
        warn(
          `zuno: MCP server "${server}" has no tool "${options.tool}" (it has: ${definitions.map((definition) => definition.name).join(', ') || 'none'}).\n`,
        );
        return 2;
      }
      const accepted = definitions.filter((definition) => options.tool === undefined || definition.name === options.tool);
      await acceptAndKeep(pinStore, pins, server, definitions, options.tool);
      if (options.json) write(`${JSON.stringify({ server, accepted: accepted.map((definition) => definition.name) })}\n`);
      else
        for (const definition of accepted)
          write(`accepted ${server} ${definition.name}: ${(definition.description ?? '').split('\n')[0] ?? ''}\n`);
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
    const documents: ServerDocument[] = listed.map((entry) => {
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
      const origin = workspace?.standing.approved[entry.server] !== undefined ? WORKSPACE_MCP_FILE : 'config';
      return {
        server: entry.server,
        state: entry.state,
        origin,
        trust: server?.trust ?? false,
        ...(entry.state === 'failed' ? { reason: entry.reason, stderr: entry.stderr } : {}),
        tools,
      };
    });
    // Servers of the workspace file that are not approved are listed, never started.
    for (const entry of unapproved) {
      const how =
        entry.state === 'declined'
          ? `declined; zuno mcp approve ${entry.name} to start it`
          : `${entry.changed ? 'changed since approved; ' : ''}run zuno mcp approve ${entry.name} to start it`;
      documents.push({
        server: entry.name,
        state: entry.state,
        origin: WORKSPACE_MCP_FILE,
        trust: false,
        reason: `${entry.summary} (${how})`,
        stderr: null,
        tools: [],
      });
    }
    if (options.json) write(`${JSON.stringify(documents, null, 2)}\n`);
    else {
      for (const document of documents) {
        const count = `${document.tools.length} tool${document.tools.length === 1 ? '' : 's'}`;
        const origin = document.origin === 'config' ? '' : `, from ${document.origin}`;
        write(
          `${document.server}: ${document.state}${origin}, ${document.trust ? 'trusted' : 'untrusted'}, ${count}${document.reason !== undefined ? ` (${document.reason})` : ''}\n`,
        );
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

/** `approve` / `decline` a server of the workspace's `.vscode/mcp.json`, for its current definition. */
function decide(options: McpCommandOptions, workspace: WorkspaceMcp | undefined): number {
  const name = options.server ?? '';
  const entry = workspace?.file.servers.find((server) => server.name === name);
  if (!entry) {
    const listed = workspace?.file.servers.map((server) => server.name).join(', ') || 'none';
    const configured = Object.hasOwn(options.config.mcp.servers, name)
      ? ` "${name}" is defined in mcp.servers, which needs no approval.`
      : '';
    options.warn(`zuno: ${WORKSPACE_MCP_FILE} defines no usable MCP server "${name}" (it defines: ${listed}).${configured}\n`);
    return 2;
  }
  const store = createWorkspaceMcpDecisionStore(options.stateDir);
  const previous = store.load().decisions[name];
  const approved = options.action === 'approve';
  store.decide(name, { hash: entry.hash, approved, trust: approved && previous?.trust === true });
  if (options.json) options.write(`${JSON.stringify({ server: name, approved, summary: entry.summary })}\n`);
  else if (approved)
    options.write(
      `approved ${name} (${entry.summary}): it starts at the next run; its tools ask before running unless declared in mcp.servers. A changed definition asks again.\n`,
    );
  else options.write(`declined ${name} (${entry.summary}): it is not started, and not mentioned again until its definition changes.\n`);
  return 0;
}
