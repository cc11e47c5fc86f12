/**
 * Which tools exist and which the model is offered (SPEC S1–S3, A1). Four things are kept apart:
 * the registered tools (slots included), the default surface, the `tools` on/off switches in
 * config, and an agent's allowlist, which replaces the default surface instead of extending it.
 * Availability is not authorization: that is the permission policy's job.
 */
import { DeferredTools, DEFERRED_TOOL_SEARCH, type SplitTools } from './deferred-tools';
import type { CallEnvironment, Tool } from './tool';

export interface ToolRegistration {
  readonly tool: Tool;
  /** On the default surface (S1/S2), or only a registered slot (S3: edit, execute, lsp). */
  readonly defaultSurface: boolean;
}

/**
 * Tools that appear at run time (an MCP server's, issue 11), all on the default surface. The loop
 * calls `prepare` before each model request: it may start servers and refresh their lists.
 */
export interface ToolSource {
  /** Never rejects: a part that fails makes its tools unavailable and says so through `report`. */
  prepare(signal: AbortSignal, report: (level: 'info' | 'warning' | 'error', text: string) => void): Promise<void>;
  /** The tools known now, withheld ones included (their `unavailableReason` says why). */
  tools(): readonly Tool[];
}

export type Availability = { readonly available: true; readonly tool: Tool } | { readonly available: false; readonly reason: string };

export class ToolRegistry {
  private readonly registrations = new Map<string, ToolRegistration>();

  constructor(
    registrations: readonly ToolRegistration[],
    private readonly sources: readonly ToolSource[] = [],
    /** The sessions' enabled deferred tools; shared with the slot views, so a child's enabling and its parent's stay apart only by session. */
    readonly deferral: DeferredTools = new DeferredTools(),
  ) {
    for (const registration of registrations) {
      const name = registration.tool.name;
      if (this.registrations.has(name)) throw new Error(`Two tools are registered under the name "${name}".`);
      this.registrations.set(name, registration);
    }
  }

  /**
   * The same tools, static ones as slots only, with the same sources (so a child agent sees MCP
   * tools that appear later). For registries used only with an allowlist, which replaces the
   * default surface (A1).
   */
  asSlots(): ToolRegistry {
    return new ToolRegistry(
      [...this.registrations.values()].map((registration) => ({ tool: registration.tool, defaultSurface: false })),
      this.sources,
      this.deferral,
    );
  }

  /** Lets every source start and refresh its tools; see ToolSource. */
  async prepare(signal: AbortSignal, report: (level: 'info' | 'warning' | 'error', text: string) => void): Promise<void> {
    await Promise.all(this.sources.map((source) => source.prepare(signal, report)));
  }

  /** A registered tool, or a source's (on the default surface); a static name wins over a source's. */
  private registration(name: string): ToolRegistration | undefined {
    const registered = this.registrations.get(name);
    if (registered) return registered;
    for (const source of this.sources) {
      const tool = source.tools().find((candidate) => candidate.name === name);
      if (tool) return { tool, defaultSurface: true };
    }
    return undefined;
  }

  /** Any registered tool, slot or not. */
  get(name: string): Tool | undefined {
    return this.registration(name)?.tool;
  }

  /** Every registered name, in registration order, then the sources' tools. */
  names(): string[] {
    const names = [...this.registrations.keys()];
    for (const source of this.sources) for (const tool of source.tools()) if (!this.registrations.has(tool.name)) names.push(tool.name);
    return names;
  }

  /**
   * What the model is offered: the default surface, or an agent allowlist that replaces it (A1),
   * minus tools switched off in config, minus tools unavailable here. Registration order.
   */
  surface(env: CallEnvironment, allowlist?: readonly string[]): Tool[] {
    const tools: Tool[] = [];
    for (const name of this.names()) {
      const availability = this.availability(name, env, allowlist);
      if (availability.available) tools.push(availability.tool);
    }
    return tools;
  }

  /**
   * What one request of `sessionId` sends: the surface, minus the source (MCP) tools beyond the
   * budget of `mcp.max_offered_tools` and `mcp.max_offered_schema_tokens` that the session has not
   * enabled (see deferred-tools.ts). When some are deferred, the search tool's description says
   * how many and from which servers, so the model knows to look.
   */
  offered(env: CallEnvironment, sessionId: string, allowlist?: readonly string[]): SplitTools {
    const budget = { maxTools: env.config.mcp.max_offered_tools, maxSchemaTokens: env.config.mcp.max_offered_schema_tokens };
    const split = this.deferral.split(this.surface(env, allowlist), (tool) => !this.registrations.has(tool.name), budget, sessionId);
    if (split.deferred.length === 0) return split;
    const note = ` Not listed now: ${split.deferred.length} MCP tool${split.deferred.length === 1 ? '' : 's'} (${deferredServers(split.deferred)}); search them with this tool to use them.`;
    return {
      ...split,
      sent: split.sent.map((tool) => (tool.name === DEFERRED_TOOL_SEARCH ? { ...tool, description: `${tool.description}${note}` } : tool)),
    };
  }

  /** Why `name` may not be called here, or the tool when it may. */
  availability(name: string, env: CallEnvironment, allowlist?: readonly string[]): Availability {
    const registration = this.registration(name);
    if (!registration) {
      const offered = this.surface(env, allowlist).map((tool) => tool.name);
      return {
        available: false,
        reason: `There is no tool named "${name}". The tools you can call are: ${offered.join(', ') || '(none)'}.`,
      };
    }
    if (allowlist) {
      if (!allowlist.includes(name)) {
        return { available: false, reason: `"${name}" is not in this agent's tool allowlist (${allowlist.join(', ') || 'empty'}).` };
      }
    } else if (!registration.defaultSurface) {
      return {
        available: false,
        reason: `"${name}" is a registered slot that is not on the default tool surface; only an agent whose tool allowlist names it may call it.`,
      };
    }
    if (env.config.tools[name] === false) {
      return { available: false, reason: `"${name}" is switched off in config (tools.${name} = false).` };
    }
    let unavailable: string | undefined;
    try {
      unavailable = registration.tool.unavailableReason(env);
    } catch (error) {
      unavailable = `its availability check failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (unavailable !== undefined) return { available: false, reason: `"${name}" is not available here: ${unavailable}` };
    return { available: true, tool: registration.tool };
  }
}

/** `everything: 12, filesystem: 3`, from the `mcp__<server>__` prefix of the names. */
function deferredServers(tools: readonly Tool[]): string {
  const counts = new Map<string, number>();
  for (const tool of tools) {
    const server = /^mcp__(.+?)__/.exec(tool.name)?.[1] ?? 'other';
    counts.set(server, (counts.get(server) ?? 0) + 1);
  }
  return [...counts].map(([server, count]) => `${server}: ${count}`).join(', ');
}
