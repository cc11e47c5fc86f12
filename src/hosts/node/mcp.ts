/**
 * MCP servers for the CLI and the editor, through the official SDK client (issue 11).
 *
 * - Transports: stdio (`command`), Streamable HTTP (`url`), and the older HTTP+SSE when a URL
 *   refuses Streamable HTTP. The SDK negotiates the protocol version: its current one, falling
 *   back to the older ones a server offers.
 * - Lifecycle: a server starts at the first request that needs it (lazily), within
 *   `startup_timeout_ms`. One that fails to start or exits is `failed`, with the reason and the
 *   end of its stderr; it is started again at the next request, after a backoff that doubles
 *   with each consecutive failure (the first restart is immediate).
 * - Environment: a stdio server inherits what shell commands inherit (secrets dropped,
 *   core/environment.ts) plus its entry's `env`; `${env:NAME}` in `env` and `headers` is read
 *   from Zuno's own environment, so a secret can be named without being written in a file.
 * - `concurrency.mcp_connections` caps the requests in flight across all servers.
 * - Capabilities: elicitation is announced and declined where no one can answer; sampling is
 *   not announced, so servers do not ask for it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { isAbsolute, resolve } from 'node:path';
import type { McpServerConfig } from '../../core/config';
import { ToolError, TransientError } from '../../core/errors';
import { FairSharedLock } from '../../core/lock';
import {
  McpNotSentError,
  type McpCallOptions,
  type McpCallResult,
  type McpClients,
  type McpContent,
  type McpResource,
  type McpResourceContents,
  type McpServerStatus,
  type McpToolDefinition,
} from '../../core/mcp';
import { inputEnvironmentVariable } from '../../core/mcp-workspace';

// McpError's code is a plain number; the SDK's enum names the ones that matter here.
const REQUEST_TIMEOUT: number = ErrorCode.RequestTimeout;
const CONNECTION_CLOSED: number = ErrorCode.ConnectionClosed;

/** How much of a server's stderr is kept for the log. */
const STDERR_TAIL = 4096;
const MAX_BACKOFF_MS = 60_000;

export interface NodeMcpClientsOptions {
  /** The servers; a function is read at each use, so the editor's settings and approvals count at once. */
  readonly servers: Readonly<Record<string, McpServerConfig>> | (() => Readonly<Record<string, McpServerConfig>>);
  readonly workspaceRoot: string;
  /** What a stdio server inherits before its entry's `env`: the filtered environment of commands. */
  readonly childEnvironment: () => Readonly<Record<string, string>>;
  /** Where `${env:NAME}` is read from: Zuno's own environment, unfiltered (the user named the variable). */
  readonly referenceEnvironment: Readonly<Record<string, string | undefined>>;
  /** `concurrency.mcp_connections`. */
  readonly maxInFlight: number;
  readonly clientVersion: string;
  /** Where `${input:ID}` comes from; the environment (`ZUNO_MCP_INPUT_<ID>`) when absent. */
  readonly inputs?: McpInputSource;
  /** For tests: the clock used for restart backoff. */
  readonly now?: () => number;
}

/**
 * Where `${input:ID}` (a `.vscode/mcp.json` input) is read from when a server starts: the
 * editor's SecretStorage, or the CLI's environment. Never from a file.
 */
export interface McpInputSource {
  get(id: string): Promise<string | undefined>;
  /** How the user provides it, for the error when it is missing. */
  where(id: string): string;
}

/** The CLI's inputs: `ZUNO_MCP_INPUT_<ID>` in Zuno's own environment. */
export function environmentInputs(environment: Readonly<Record<string, string | undefined>>): McpInputSource {
  return {
    get: (id) => Promise.resolve(environment[inputEnvironmentVariable(id)]),
    where: (id) => `set the environment variable ${inputEnvironmentVariable(id)} before starting Zuno`,
  };
}

/**
 * `${env:NAME}` and `${input:ID}` references replaced. A missing value is an error naming it:
 * starting a server with an empty token would fail later and less clearly.
 */
export async function expandReferences(
  values: Readonly<Record<string, string>>,
  environment: Readonly<Record<string, string | undefined>>,
  inputs: McpInputSource,
  where: string,
): Promise<Record<string, string>> {
  const expanded: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    const ids = [...value.matchAll(/\$\{input:([^}]+)\}/g)].map((match) => match[1] ?? '');
    const answers = new Map<string, string>();
    for (const id of ids) {
      const answer = await inputs.get(id);
      if (answer === undefined)
        throw new McpNotSentError(`${where}.${key} needs the input "${id}", which has no value; ${inputs.where(id)}`);
      answers.set(id, answer);
    }
    expanded[key] = value
      .replace(/\$\{env:([^}]+)\}/g, (_match, name: string) => {
        const found = environment[name];
        if (found === undefined)
          throw new McpNotSentError(
            `${where}.${key} names the environment variable ${name}, which is not set; set it before starting Zuno`,
          );
        return found;
      })
      .replace(/\$\{input:([^}]+)\}/g, (_match, id: string) => answers.get(id) ?? '');
  }
  return expanded;
}

interface Connection {
  readonly client: Client;
  /** A stdio server's process, to end it when it does not exit on its own once stdin closes. */
  readonly pid: number | undefined;
  tools: readonly McpToolDefinition[] | undefined;
}

/** How long a stdio server may take to exit after its stdin closes before it gets SIGTERM (the SDK waits 2 s). */
const EXIT_GRACE_MS = 300;

/** Closes the client; a stdio server still running after the grace gets SIGTERM, as the MCP spec's shutdown says. */
async function shutDown(connection: Connection): Promise<void> {
  const pid = connection.pid;
  const timer =
    pid === undefined
      ? undefined
      : setTimeout(() => {
          try {
            process.kill(pid, 'SIGTERM');
          } catch {
            // Already gone.
          }
        }, EXIT_GRACE_MS);
  try {
    await connection.client.close();
  } finally {
    clearTimeout(timer);
  }
}

interface CallWatcher {
  readonly progress: (text: string) => void;
  readonly elicit: McpCallOptions['elicit'];
  readonly signal: AbortSignal;
}

/** One server's state: at most one start in progress, and the backoff after failures. */
class ServerSlot {
  connection: Promise<Connection> | undefined;
  state: McpServerStatus['state'] = 'stopped';
  reason: string | undefined;
  stderr = '';
  failures = 0;
  retryAt = 0;
  /** Set while Zuno closes the server on purpose: that exit is no crash. */
  closing = false;
  /** Calls in flight: a server's question (elicitation) goes to one that can ask the user. */
  readonly watchers = new Set<CallWatcher>();
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export class NodeMcpClients implements McpClients {
  private readonly slots = new Map<string, ServerSlot>();
  private readonly inFlight: FairSharedLock;
  private readonly now: () => number;

  constructor(private readonly options: NodeMcpClientsOptions) {
    this.inFlight = new FairSharedLock(options.maxInFlight);
    this.now = options.now ?? Date.now;
  }

  private get configured(): Readonly<Record<string, McpServerConfig>> {
    const servers = this.options.servers;
    return typeof servers === 'function' ? servers() : servers;
  }

  servers(): readonly string[] {
    return Object.entries(this.configured)
      .filter(([, server]) => server.enabled)
      .map(([name]) => name);
  }

  status(server: string): McpServerStatus {
    const config = this.configured[server];
    if (!config) return { server, state: 'stopped', reason: `there is no MCP server "${server}" in the config (mcp.servers)` };
    const slot = this.slots.get(server);
    if (!config.enabled) return { server, state: 'disabled', reason: `it is disabled (mcp.servers.${server}.enabled = false)` };
    if (!slot) return { server, state: 'stopped' };
    const tail = slot.stderr.trim();
    return {
      server,
      state: slot.state,
      ...(slot.reason !== undefined ? { reason: slot.reason } : {}),
      ...(tail !== '' ? { stderrTail: tail } : {}),
    };
  }

  /** Stops the server now (the user's act); it starts again, at once, at the next request that needs it. */
  async restart(server: string): Promise<void> {
    const slot = this.slots.get(server);
    if (!slot) return;
    const connection = slot.connection;
    slot.connection = undefined;
    slot.failures = 0;
    slot.retryAt = 0;
    slot.reason = undefined;
    slot.state = 'stopped';
    if (!connection) return;
    slot.closing = true;
    await connection.then(shutDown).catch(() => undefined);
  }

  async tools(server: string, signal: AbortSignal): Promise<readonly McpToolDefinition[]> {
    const connection = await this.connect(server, signal);
    if (connection.tools === undefined) connection.tools = await this.listTools(server, connection, signal);
    return connection.tools;
  }

  async callTool(server: string, tool: string, args: unknown, options: McpCallOptions): Promise<McpCallResult> {
    const config = this.config(server);
    return this.request(server, options.signal, async (connection) => {
      const slot = this.slot(server);
      const watcher: CallWatcher = { progress: (text) => options.onProgress?.(text), elicit: options.elicit, signal: options.signal };
      slot.watchers.add(watcher);
      try {
        const result = await connection.client.callTool({ name: tool, arguments: (args ?? {}) as Record<string, unknown> }, undefined, {
          signal: options.signal,
          timeout: config.timeout_ms,
          onprogress: (progress) => {
            const total = progress.total !== undefined ? `/${progress.total}` : '';
            options.onProgress?.(`[progress ${progress.progress}${total}${progress.message ? `: ${progress.message}` : ''}]\n`);
          },
        });
        return {
          content: Array.isArray(result.content) ? (result.content as McpContent[]) : [],
          ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
          ...(result.isError === true ? { isError: true } : {}),
        };
      } finally {
        slot.watchers.delete(watcher);
      }
    });
  }

  async listResources(server: string, signal: AbortSignal): Promise<readonly McpResource[]> {
    const config = this.config(server);
    return this.request(server, signal, async (connection) => {
      const resources: McpResource[] = [];
      let cursor: string | undefined;
      do {
        const page = await connection.client.listResources(cursor !== undefined ? { cursor } : {}, { signal, timeout: config.timeout_ms });
        resources.push(...page.resources);
        cursor = page.nextCursor;
      } while (cursor !== undefined && resources.length < 10_000);
      return resources;
    });
  }

  async readResource(server: string, uri: string, signal: AbortSignal): Promise<readonly McpResourceContents[]> {
    const config = this.config(server);
    return this.request(
      server,
      signal,
      async (connection) => (await connection.client.readResource({ uri }, { signal, timeout: config.timeout_ms })).contents,
    );
  }

  async close(): Promise<void> {
    await Promise.all(
      [...this.slots.values()].map(async (slot) => {
        const connection = slot.connection;
        slot.connection = undefined;
        if (!connection) return;
        slot.closing = true;
        await connection.then(shutDown).catch(() => undefined);
        slot.state = 'stopped';
      }),
    );
  }

  private config(server: string): McpServerConfig {
    const config = this.configured[server];
    if (!config) throw new McpNotSentError(`there is no MCP server "${server}" in the config (mcp.servers)`);
    if (!config.enabled) throw new McpNotSentError(`MCP server "${server}" is disabled (mcp.servers.${server}.enabled = false)`);
    return config;
  }

  private slot(server: string): ServerSlot {
    if (!this.configured[server]) throw new McpNotSentError(`there is no MCP server "${server}" in the config (mcp.servers)`);
    let slot = this.slots.get(server);
    if (!slot) this.slots.set(server, (slot = new ServerSlot()));
    return slot;
  }

  /**
   * One request under the in-flight cap. A failure to reach the server is McpNotSentError
   * (nothing was sent); a failure after sending is classified by `afterSend`.
   */
  private async request<T>(server: string, signal: AbortSignal, send: (connection: Connection) => Promise<T>): Promise<T> {
    const release = await this.inFlight.acquire('shared', signal);
    try {
      const connection = await this.connect(server, signal);
      try {
        return await send(connection);
      } catch (error) {
        throw this.afterSend(server, error, signal);
      }
    } finally {
      release();
    }
  }

  /** What a failure after the request was sent means for the call (R3). */
  private afterSend(server: string, error: unknown, signal: AbortSignal): unknown {
    if (signal.aborted) return error;
    const slot = this.slot(server);
    if (error instanceof McpError) {
      if (error.code === REQUEST_TIMEOUT) {
        return new TransientError(
          `MCP server "${server}" did not answer within ${this.config(server).timeout_ms} ms (mcp.servers.${server}.timeout_ms); the request was cancelled, but it had been sent`,
        );
      }
      if (error.code === CONNECTION_CLOSED) {
        const tail = slot.stderr.trim();
        return new TransientError(
          `the connection to MCP server "${server}" closed before it answered (${slot.reason ?? 'it stopped'})${tail ? `; its stderr ends with: ${tail.slice(-500)}` : ''}`,
        );
      }
      return new ToolError(`MCP server "${server}" answered with an error: ${error.message}`);
    }
    return new TransientError(`the request to MCP server "${server}" failed after it was sent (${messageOf(error)})`);
  }

  /** The running connection, starting the server when needed (not before its backoff ends). */
  private connect(server: string, signal: AbortSignal): Promise<Connection> {
    const config = this.config(server);
    const slot = this.slot(server);
    if (slot.connection) return slot.connection;
    if (slot.state === 'failed' && this.now() < slot.retryAt) {
      const seconds = Math.ceil((slot.retryAt - this.now()) / 1000);
      return Promise.reject(
        new McpNotSentError(`MCP server "${server}" failed (${slot.reason ?? 'unknown reason'}); it is started again in ${seconds} s`),
      );
    }
    const starting = this.start(server, config, slot, signal);
    slot.connection = starting;
    starting.catch((error: unknown) => {
      if (slot.connection === starting) slot.connection = undefined;
      this.failed(slot, messageOf(error));
    });
    return starting.catch((error: unknown) => {
      throw error instanceof McpNotSentError
        ? error
        : new McpNotSentError(`MCP server "${server}" could not be started: ${messageOf(error)}`);
    });
  }

  private failed(slot: ServerSlot, reason: string): void {
    slot.state = 'failed';
    slot.reason = reason;
    slot.failures++;
    slot.retryAt = this.now() + (slot.failures <= 1 ? 0 : Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (slot.failures - 2)));
  }

  private async transport(server: string, config: McpServerConfig, slot: ServerSlot, http: 'streamable' | 'sse'): Promise<Transport> {
    const inputs = this.options.inputs ?? environmentInputs(this.options.referenceEnvironment);
    if (config.command !== undefined) {
      const env = {
        ...this.options.childEnvironment(),
        ...(await expandReferences(config.env, this.options.referenceEnvironment, inputs, `mcp.servers.${server}.env`)),
      };
      const cwd =
        config.cwd === undefined
          ? this.options.workspaceRoot
          : isAbsolute(config.cwd)
            ? config.cwd
            : resolve(this.options.workspaceRoot, config.cwd);
      const transport = new StdioClientTransport({ command: config.command, args: [...config.args], env, cwd, stderr: 'pipe' });
      transport.stderr?.on('data', (chunk: Buffer) => {
        slot.stderr = (slot.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
      });
      return transport;
    }
    const url = new URL(config.url ?? '');
    const headers = await expandReferences(config.headers, this.options.referenceEnvironment, inputs, `mcp.servers.${server}.headers`);
    return http === 'streamable'
      ? new StreamableHTTPClientTransport(url, { requestInit: { headers } })
      : new SSEClientTransport(url, { requestInit: { headers } });
  }

  private newClient(server: string, slot: ServerSlot): Client {
    // Sampling is not offered: a server cannot make Zuno's model work for it. Elicitation (form
    // mode only) goes to the question UI of a call in flight on this server; where no one can
    // answer, or no call is in flight, it is declined with a reason.
    const client = new Client({ name: 'zuno', version: this.options.clientVersion }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      const params = request.params;
      const message = typeof params.message === 'string' ? params.message : '';
      const quoted = JSON.stringify(message.slice(0, 300));
      const watcher = [...slot.watchers].find((candidate) => candidate.elicit !== undefined);
      if (watcher?.elicit === undefined || !('requestedSchema' in params)) {
        const why = watcher ? 'it asked for a URL to be opened, which Zuno does not do' : "no one can answer a server's question here";
        for (const each of slot.watchers) each.progress(`[MCP server "${server}" asked the user: ${quoted}; Zuno declined: ${why}]\n`);
        return { action: 'decline' };
      }
      const result = await watcher.elicit(
        { message, requestedSchema: params.requestedSchema },
        AbortSignal.any([watcher.signal, extra.signal]),
      );
      const told =
        result.action === 'accept'
          ? 'the user answered'
          : result.action === 'decline'
            ? 'the user declined'
            : 'the user dismissed the question';
      watcher.progress(`[MCP server "${server}" asked the user: ${quoted}; ${told}]\n`);
      if (result.action !== 'accept') return { action: result.action };
      const content: Record<string, string | number | boolean | string[]> = {};
      for (const [key, value] of Object.entries(result.content)) content[key] = typeof value === 'object' ? [...value] : value;
      return { action: 'accept', content };
    });
    return client;
  }

  private async start(server: string, config: McpServerConfig, slot: ServerSlot, signal: AbortSignal): Promise<Connection> {
    slot.state = 'starting';
    slot.reason = undefined;
    slot.stderr = '';
    slot.closing = false;
    const timeout = config.startup_timeout_ms;
    const open = async (http: 'streamable' | 'sse'): Promise<Connection> => {
      const transport = await this.transport(server, config, slot, http);
      const client = this.newClient(server, slot);
      try {
        await client.connect(transport, { signal, timeout });
      } catch (error) {
        await client.close().catch(() => undefined);
        throw error;
      }
      const connection: Connection = {
        client,
        pid: transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined,
        tools: undefined,
      };
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        connection.tools = undefined;
      });
      client.onclose = () => {
        if (slot.connection === undefined || slot.closing) return;
        slot.connection = undefined;
        this.failed(slot, config.command !== undefined ? 'the server process exited' : 'the connection closed');
      };
      return connection;
    };
    let connection: Connection;
    try {
      connection = await open('streamable');
    } catch (error) {
      // An HTTP server that refuses Streamable HTTP may speak the older HTTP+SSE transport.
      if (config.url === undefined || signal.aborted || error instanceof McpNotSentError) throw this.startFailure(server, slot, error);
      try {
        connection = await open('sse');
      } catch (sseError) {
        throw this.startFailure(server, slot, new Error(`Streamable HTTP: ${messageOf(error)}; SSE: ${messageOf(sseError)}`));
      }
    }
    try {
      connection.tools = await this.listTools(server, connection, signal);
    } catch (error) {
      slot.closing = true;
      await shutDown(connection).catch(() => undefined);
      throw error;
    }
    slot.state = 'running';
    slot.failures = 0;
    return connection;
  }

  private startFailure(server: string, slot: ServerSlot, error: unknown): Error {
    if (error instanceof McpNotSentError) return error;
    const timedOut = error instanceof McpError && error.code === REQUEST_TIMEOUT;
    const why = timedOut
      ? `it did not finish starting within ${this.config(server).startup_timeout_ms} ms (mcp.servers.${server}.startup_timeout_ms)`
      : messageOf(error);
    const tail = slot.stderr.trim();
    return new McpNotSentError(
      `MCP server "${server}" could not be started: ${why}${tail ? `; its stderr ends with: ${tail.slice(-500)}` : ''}`,
    );
  }

  private async listTools(server: string, connection: Connection, signal: AbortSignal): Promise<readonly McpToolDefinition[]> {
    const tools: McpToolDefinition[] = [];
    let cursor: string | undefined;
    try {
      do {
        const page = await connection.client.listTools(cursor !== undefined ? { cursor } : {}, {
          signal,
          timeout: this.config(server).startup_timeout_ms,
        });
        for (const tool of page.tools) {
          tools.push({
            name: tool.name,
            ...(tool.title !== undefined ? { title: tool.title } : {}),
            ...(tool.description !== undefined ? { description: tool.description } : {}),
            inputSchema: tool.inputSchema,
            ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
          });
        }
        cursor = page.nextCursor;
      } while (cursor !== undefined && tools.length < 10_000);
    } catch (error) {
      throw new McpNotSentError(`MCP server "${server}" did not list its tools: ${messageOf(error)}`);
    }
    return tools;
  }
}
