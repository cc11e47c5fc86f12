/**
 * MCP servers' tools under Zuno's names and rules (issue 11). The core sees a server only
 * through `McpClients` (implemented with the official SDK in `src/hosts/node/mcp.ts`); here
 * live the parts that are pure logic:
 *
 * - names: a server's tool `echo` on server `everything` is `mcp__everything__echo`, sanitised
 *   to the providers' rule `^[a-zA-Z0-9_-]{1,64}$` and unique;
 * - declarations fail closed (E2, C2): SideEffecting / Never / Exclusive unless the user declares
 *   the tool, or trusts the server and its annotations say so; untrusted annotations are shown
 *   in the approval, never obeyed;
 * - arguments are validated against the server's JSON Schema (ajv, 2020-12 or draft-07) before
 *   anything is sent: invalid ones are `blocked: invalid_arguments` in preflight;
 * - pinning: each definition is hashed when first offered; a changed or new tool of a known
 *   server is withheld (`blocked: unavailable`) until the user accepts it (`zuno mcp accept`).
 */
import { createHash } from 'node:crypto';
import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import type { McpServerConfig } from './config';
import { elicitThroughQuestions, type McpElicitation, type McpElicitationResult } from './mcp-elicitation';
import { completeDeclarations, STRICTEST_DECLARATIONS, type Declarations } from './declarations';
import type { ToolSource } from './registry';
import type { JsonSchema, Tool, ToolResult } from './tool';

/** The hints a server may attach to a tool (MCP `ToolAnnotations`). */
export interface McpAnnotations {
  readonly title?: string | undefined;
  readonly readOnlyHint?: boolean | undefined;
  readonly destructiveHint?: boolean | undefined;
  readonly idempotentHint?: boolean | undefined;
  readonly openWorldHint?: boolean | undefined;
}

/** A tool as the server lists it. */
export interface McpToolDefinition {
  readonly name: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly inputSchema: JsonSchema;
  readonly annotations?: McpAnnotations | undefined;
}

/** One item of a tool result or a resource read, as MCP sends it. */
export type McpContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image' | 'audio'; readonly data: string; readonly mimeType: string }
  | {
      readonly type: 'resource_link';
      readonly uri: string;
      readonly name?: string | undefined;
      readonly description?: string | undefined;
      readonly mimeType?: string | undefined;
    }
  | { readonly type: 'resource'; readonly resource: McpResourceContents }
  | { readonly type: string };

export interface McpCallResult {
  readonly content: readonly McpContent[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean | undefined;
}

export interface McpResource {
  readonly uri: string;
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly mimeType?: string | undefined;
  readonly size?: number | undefined;
}

export interface McpResourceContents {
  readonly uri: string;
  readonly mimeType?: string | undefined;
  readonly text?: string | undefined;
  /** Base64. */
  readonly blob?: string | undefined;
}

export type McpServerState = 'disabled' | 'stopped' | 'starting' | 'running' | 'failed';

export interface McpServerStatus {
  readonly server: string;
  readonly state: McpServerState;
  /** Why it is not running, for people and for the model. */
  readonly reason?: string | undefined;
  /** The end of its stderr (stdio servers), for the log. */
  readonly stderrTail?: string | undefined;
}

export interface McpCallOptions {
  readonly signal: AbortSignal;
  /** Progress notifications, as live output. */
  readonly onProgress?: (text: string) => void;
  /** Asks the user a server's question (elicitation); absent where no one can answer. */
  readonly elicit?: ((request: McpElicitation, signal: AbortSignal) => Promise<McpElicitationResult>) | undefined;
}

/**
 * The MCP servers of a workspace, started lazily. Failures:
 * - the server could not be reached before the request was sent: `McpNotSentError`, nothing happened;
 * - the request was sent and no answer came (timeout, dropped connection, crash): a
 *   `TransientError`, so a Never call is `indeterminate` and is not sent again (R3);
 * - the server answered with a protocol error: a `ToolError` with its message.
 */
export interface McpClients {
  /** The enabled servers' names, in config order. */
  servers(): readonly string[];
  /** Starts the server when it is not running (a crashed one after its backoff) and lists its tools. */
  tools(server: string, signal: AbortSignal): Promise<readonly McpToolDefinition[]>;
  callTool(server: string, tool: string, args: unknown, options: McpCallOptions): Promise<McpCallResult>;
  listResources(server: string, signal: AbortSignal): Promise<readonly McpResource[]>;
  readResource(server: string, uri: string, signal: AbortSignal): Promise<readonly McpResourceContents[]>;
  status(server: string): McpServerStatus;
  /** Stops one server (the user's act); the next request that needs it starts it again at once. */
  restart(server: string): Promise<void>;
  /** Stops every server. */
  close(): Promise<void>;
}

/** The request never left Zuno: the server was not running or could not be started. */
export class McpNotSentError extends Error {
  override readonly name = 'McpNotSentError';
}

/** Pinned definition hashes: server → tool → hash (`<stateDir>/mcp-pins.json`). */
export type McpPins = Readonly<Record<string, Readonly<Record<string, string>>>>;

export interface McpPinStore {
  /** Rejects when the file exists but cannot be read: every MCP tool is then withheld (fail closed). */
  load(): Promise<McpPins>;
  /** Replaces the file atomically. */
  save(pins: McpPins): Promise<void>;
  /** The definitions as approved, kept to show what changed (a diff); a tool pinned before they were kept has none. */
  loadDefinitions(): Promise<Readonly<Record<string, Readonly<Record<string, McpToolDefinition>>>>>;
  /** Keeps `definitions` of `server` as approved, beside the others. */
  saveDefinitions(server: string, definitions: readonly McpToolDefinition[]): Promise<void>;
  /** For messages. */
  readonly path: string;
}

/** The user accepts what `server` presents now (all its tools, or only `tool`): pinned, and kept for later diffs. */
export async function acceptAndKeep(
  store: McpPinStore,
  pins: McpPins,
  server: string,
  definitions: readonly McpToolDefinition[],
  tool?: string,
): Promise<McpPins> {
  const accepted = acceptDefinitions(pins, server, definitions, tool);
  await store.save(accepted);
  await store.saveDefinitions(
    server,
    definitions.filter((definition) => tool === undefined || definition.name === tool),
  );
  return accepted;
}

const NAME_RULE = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_NAME = 64;

const sanitise = (text: string): string => text.replace(/[^a-zA-Z0-9_-]/g, '_');

/**
 * `mcp__<server>__<tool>` under the providers' name rule, unique among `taken` (which it joins).
 * Too long a name keeps its start and gets a short hash of the full name, so two long names
 * differing only at the end stay apart.
 */
export function mcpToolName(server: string, tool: string, taken: Set<string>): string {
  const full = `mcp__${sanitise(server)}__${sanitise(tool)}`;
  const hash = createHash('sha256').update(`${server}\u0000${tool}`).digest('hex');
  let name = full.length <= MAX_NAME ? full : `${full.slice(0, MAX_NAME - 9)}_${hash.slice(0, 8)}`;
  for (let suffix = 2; taken.has(name); suffix++) {
    const tail = `_${suffix}`;
    name = `${(full.length <= MAX_NAME ? full : name).slice(0, MAX_NAME - tail.length)}${tail}`;
  }
  if (!NAME_RULE.test(name)) throw new Error(`internal: the MCP tool name "${name}" breaks the name rule`);
  taken.add(name);
  return name;
}

/** JSON with object keys sorted, so a hash does not depend on the order a server writes keys in. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What pinning compares: name, description, input schema and annotations (issue 11). */
export function definitionHash(definition: McpToolDefinition): string {
  const pinned = {
    name: definition.name,
    description: definition.description ?? '',
    inputSchema: definition.inputSchema,
    annotations: definition.annotations ?? {},
  };
  return `sha256:${createHash('sha256').update(canonicalJson(pinned)).digest('hex')}`;
}

export type PinVerdict = 'pinned' | 'changed' | 'new';

/** How a tool stands against the pins; a server that was never pinned is pinned whole at its first offer. */
export function pinVerdict(pins: McpPins, server: string, definition: McpToolDefinition): PinVerdict {
  const known = pins[server]?.[definition.name];
  if (known === undefined) return 'new';
  return known === definitionHash(definition) ? 'pinned' : 'changed';
}

/** The pins with `definitions` of `server` accepted (all of them, or only `tool`). */
export function acceptDefinitions(pins: McpPins, server: string, definitions: readonly McpToolDefinition[], tool?: string): McpPins {
  const accepted = { ...pins[server] };
  for (const definition of definitions) {
    if (tool === undefined || definition.name === tool) accepted[definition.name] = definitionHash(definition);
  }
  return { ...pins, [server]: accepted };
}

/**
 * The declarations of one MCP tool (issue 11, E2, C2): the user's explicit ones win; else a
 * trusted server's annotations (readOnlyHint → ReadOnly / Safe / ParallelSafe, idempotentHint →
 * replay Safe); else the strictest.
 */
export function mcpDeclarations(server: McpServerConfig, definition: McpToolDefinition): Declarations {
  const declared = server.tools[definition.name]?.declarations;
  if (declared !== undefined) {
    return completeDeclarations({
      ...(declared.effect !== undefined ? { effect: declared.effect } : {}),
      ...(declared.replay !== undefined ? { replay: declared.replay } : {}),
      ...(declared.concurrency !== undefined ? { concurrency: declared.concurrency } : {}),
    });
  }
  if (!server.trust) return STRICTEST_DECLARATIONS;
  const hints = definition.annotations ?? {};
  if (hints.readOnlyHint === true) return { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' };
  return completeDeclarations(hints.idempotentHint === true ? { replay: 'Safe' } : {});
}

/** The annotations in words, for the approval prompt: shown whether or not they are obeyed. */
export function annotationNote(serverName: string, server: McpServerConfig, definition: McpToolDefinition): string {
  const hints = definition.annotations ?? {};
  const said: string[] = [];
  if (hints.readOnlyHint !== undefined) said.push(hints.readOnlyHint ? 'read-only' : 'not read-only');
  if (hints.destructiveHint === true) said.push('DESTRUCTIVE');
  else if (hints.destructiveHint === false) said.push('not destructive');
  if (hints.idempotentHint !== undefined) said.push(hints.idempotentHint ? 'idempotent' : 'not idempotent');
  if (hints.openWorldHint !== undefined) said.push(hints.openWorldHint ? 'reaches the outside world' : 'closed world');
  const trust = server.trust ? 'trusted' : 'untrusted: its annotations are shown, not obeyed';
  const declared = server.tools[definition.name]?.declarations !== undefined ? '; declared by the user in config' : '';
  return `MCP server "${serverName}" (${trust}${declared}) describes this tool as: ${said.length > 0 ? said.join(', ') : 'nothing (no annotations)'}.`;
}

const DRAFT_07 = /json-schema\.org\/draft-0[4-7]\/schema/;

/** One ajv per dialect, shared: compiling is the cost, and schemas are compiled once per definition. */
let ajvDraft07: Ajv | undefined;
let ajv2020: Ajv2020 | undefined;

/**
 * Compiles a server's input schema: draft-07 (and older) when its `$schema` says so, 2020-12
 * otherwise (the MCP default). Formats are not checked (no format vocabulary is loaded) and
 * unknown keywords are ignored, as servers write them; nothing is coerced or defaulted, so the
 * arguments sent are the model's own.
 */
export function compileInputSchema(schema: JsonSchema): ValidateFunction {
  const options = { strict: false, allErrors: true, validateFormats: false, logger: false } as const;
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (DRAFT_07.test(declared)) return (ajvDraft07 ??= new Ajv(options)).compile(schema);
  return (ajv2020 ??= new Ajv2020(options)).compile(schema);
}

function describeSchemaErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 8)
    .map((error) => {
      const where = error.instancePath === '' ? 'arguments' : error.instancePath.slice(1).replace(/\//g, '.');
      const missing =
        error.keyword === 'required' && typeof error.params.missingProperty === 'string' ? ` "${error.params.missingProperty}"` : '';
      return `${where}: ${error.message ?? 'invalid'}${missing}`;
    })
    .join('; ');
}

/** Base64 length to bytes. */
const decodedSize = (base64: string): number => Math.floor((base64.replace(/=+$/, '').length * 3) / 4);

/** Resource contents as text for the model: text as it is, binary described, never dumped. */
export function formatResourceContents(server: string, contents: McpResourceContents): string {
  if (contents.text !== undefined) return contents.text;
  const size = contents.blob !== undefined ? decodedSize(contents.blob) : 0;
  return `[binary resource ${contents.uri}: ${contents.mimeType ?? 'unknown type'}, ${size} bytes, not shown (server "${server}")]`;
}

/** A tool result as the model reads it: text as it is; images, audio and blobs described; links made readable. */
export function formatCallResult(server: string, result: McpCallResult): string {
  const parts: string[] = [];
  for (const item of result.content) {
    if (item.type === 'text' && 'text' in item) parts.push(item.text);
    else if ((item.type === 'image' || item.type === 'audio') && 'data' in item) {
      parts.push(`[${item.type}: ${item.mimeType}, ${decodedSize(item.data)} bytes, not shown]`);
    } else if (item.type === 'resource_link' && 'uri' in item) {
      const about = [item.name, item.mimeType, item.description].filter((text) => text !== undefined && text !== '').join(', ');
      parts.push(
        `[resource link: ${item.uri}${about ? ` (${about})` : ''}; read it with mcp_read {"server": ${JSON.stringify(server)}, "uri": ${JSON.stringify(item.uri)}}]`,
      );
    } else if (item.type === 'resource' && 'resource' in item) {
      parts.push(`[resource ${item.resource.uri}]\n${formatResourceContents(server, item.resource)}`);
    } else parts.push(`[${item.type} content, not shown]`);
  }
  if (result.structuredContent !== undefined && !result.content.some((item) => item.type === 'text'))
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  return parts.join('\n') || '(the tool returned no content)';
}

/** What the source knows of one offered MCP tool. */
interface OfferedTool {
  readonly server: string;
  readonly definition: McpToolDefinition;
  /** The entry it was built with: trusting or declaring anew rebuilds it. */
  readonly config: McpServerConfig;
  /** Why it is withheld now, or undefined when it may be called. */
  withheld: string | undefined;
}

export interface McpToolSourceOptions {
  readonly clients: McpClients;
  /** A function is read at each refresh (the editor's live settings and approvals). */
  readonly servers: Readonly<Record<string, McpServerConfig>> | (() => Readonly<Record<string, McpServerConfig>>);
  readonly pins: McpPinStore;
}

/**
 * The MCP servers' tools as a registry source. `prepare` (before each model request) starts the
 * servers that are not running, lists their tools, pins the first offer of a server and withholds
 * what no longer matches its pin. A server that fails keeps its last known tools, withheld with
 * the reason, while everything else works.
 */
export class McpToolSource implements ToolSource {
  private readonly offered = new Map<string, OfferedTool>();
  private readonly built = new Map<string, Tool>();
  /** Stable names for the life of the runtime: (server, tool) → offered name. */
  private readonly names = new Map<string, string>();
  private readonly taken = new Set<string>();
  private readonly reported = new Map<string, string>();
  private preparing: Promise<void> | undefined;

  constructor(private readonly options: McpToolSourceOptions) {}

  tools(): readonly Tool[] {
    return [...this.built.values()];
  }

  /** Concurrent callers (parallel child agents) share one refresh. */
  prepare(signal: AbortSignal, report: (level: 'info' | 'warning' | 'error', text: string) => void): Promise<void> {
    this.preparing ??= this.refresh(signal, report).finally(() => {
      this.preparing = undefined;
    });
    return this.preparing;
  }

  private reportOnce(
    server: string,
    level: 'info' | 'warning' | 'error',
    text: string,
    report: (level: 'info' | 'warning' | 'error', text: string) => void,
  ): void {
    if (this.reported.get(server) === text) return;
    this.reported.set(server, text);
    report(level, text);
  }

  private async refresh(signal: AbortSignal, report: (level: 'info' | 'warning' | 'error', text: string) => void): Promise<void> {
    const { clients, pins: pinStore } = this.options;
    let pins: McpPins;
    let pinProblem: string | undefined;
    try {
      pins = await pinStore.load();
    } catch (error) {
      pins = {};
      pinProblem = `the pinned MCP tool definitions in ${pinStore.path} cannot be read (${error instanceof Error ? error.message : String(error)}); fix or delete that file, then run zuno mcp accept for each server`;
    }
    const listed = await Promise.all(
      clients.servers().map(async (server) => {
        try {
          return { server, definitions: await clients.tools(server, signal) };
        } catch (error) {
          const status = clients.status(server);
          const reason = status.reason ?? (error instanceof Error ? error.message : String(error));
          this.reportOnce(
            server,
            'warning',
            `MCP server "${server}" is not available: ${reason}${status.stderrTail ? `\nIts stderr ends with:\n${status.stderrTail}` : ''}`,
            report,
          );
          return { server, failure: reason };
        }
      }),
    );
    const firstPinned: { server: string; definitions: readonly McpToolDefinition[] }[] = [];
    const servers = typeof this.options.servers === 'function' ? this.options.servers() : this.options.servers;
    // A server no longer enabled (switched off, removed, approval withdrawn) offers nothing.
    const enabled = new Set(listed.map((entry) => entry.server));
    for (const [key, offered] of this.offered) {
      if (enabled.has(offered.server)) continue;
      this.offered.delete(key);
      const name = this.names.get(key);
      if (name !== undefined) this.built.delete(name);
    }
    for (const entry of listed) {
      const { server } = entry;
      const config = servers[server];
      if (config === undefined) continue;
      if ('failure' in entry) {
        for (const offered of this.offered.values()) {
          if (offered.server === server)
            offered.withheld = `MCP server "${server}" is not running: ${entry.failure}. It is started again at the next request.`;
        }
        continue;
      }
      if (this.reported.has(server))
        this.reportOnce(server, 'info', `MCP server "${server}" is running (${entry.definitions.length} tools).`, report);
      // First offer of a server never seen before: pin every tool it has now.
      if (pinProblem === undefined && pins[server] === undefined) {
        pins = acceptDefinitions(pins, server, entry.definitions);
        firstPinned.push({ server, definitions: entry.definitions });
      }
      const present = new Set<string>();
      for (const definition of entry.definitions) {
        const key = `${server}\u0000${definition.name}`;
        present.add(key);
        const withheld = this.withheldReason(server, config, definition, pins, pinProblem);
        const previous = this.offered.get(key);
        if (previous && previous.definition === definition && previous.withheld === withheld && previous.config === config) continue;
        const offered: OfferedTool = { server, definition, withheld, config };
        this.offered.set(key, offered);
        let name = this.names.get(key);
        if (name === undefined) {
          name = mcpToolName(server, definition.name, this.taken);
          this.names.set(key, name);
        }
        try {
          this.built.set(name, this.buildTool(name, offered, config));
        } catch (error) {
          offered.withheld = `its input schema is not a valid JSON Schema (${error instanceof Error ? error.message : String(error)}), so its arguments cannot be checked`;
          this.built.set(name, this.unavailableTool(name, offered));
        }
        if (withheld !== undefined && previous?.withheld !== withheld) report('warning', `"${name}" is withheld: ${withheld}`);
      }
      // A tool the server no longer lists is not offered.
      for (const [key, offered] of this.offered) {
        if (offered.server !== server || present.has(key)) continue;
        this.offered.delete(key);
        const name = this.names.get(key);
        if (name !== undefined) this.built.delete(name);
      }
    }
    if (firstPinned.length > 0) {
      try {
        await pinStore.save(pins);
        for (const { server, definitions } of firstPinned) await pinStore.saveDefinitions(server, definitions);
      } catch (error) {
        report(
          'error',
          `The MCP tool definitions could not be pinned in ${pinStore.path} (${error instanceof Error ? error.message : String(error)}); they will be pinned at the next run.`,
        );
      }
    }
  }

  private withheldReason(
    server: string,
    config: McpServerConfig,
    definition: McpToolDefinition,
    pins: McpPins,
    pinProblem: string | undefined,
  ): string | undefined {
    if (config.tools[definition.name]?.enabled === false)
      return `switched off in config (mcp.servers.${server}.tools.${definition.name}.enabled = false)`;
    if (pinProblem !== undefined) return pinProblem;
    const verdict = pinVerdict(pins, server, definition);
    const accept = `Nothing was sent to the server. The user can review it and run \`zuno mcp accept ${server} ${definition.name}\` to approve it.`;
    if (verdict === 'changed')
      return `its definition changed since it was approved (MCP server "${server}", tool "${definition.name}"). ${accept}`;
    if (verdict === 'new')
      return `it is a new tool of MCP server "${server}" that was not there when the server's tools were approved. ${accept}`;
    return undefined;
  }

  /** A tool whose definition cannot even be offered: known by name, so a call gets the reason. */
  private unavailableTool(name: string, offered: OfferedTool): Tool {
    return {
      name,
      description: offered.definition.description ?? '',
      inputSchema: { type: 'object' },
      parse: () => ({ success: false, error: offered.withheld ?? 'unavailable' }),
      declarationsFor: () => STRICTEST_DECLARATIONS,
      subjectsFor: async () => [],
      unavailableReason: () => offered.withheld,
      hasPreview: false,
      preview: async () => [],
      run: async () => ({ output: offered.withheld ?? 'unavailable', status: 'error' }),
    };
  }

  private buildTool(name: string, offered: OfferedTool, config: McpServerConfig): Tool {
    const { server, definition } = offered;
    const validate = compileInputSchema(definition.inputSchema);
    const declarations = mcpDeclarations(config, definition);
    const note = annotationNote(server, config, definition);
    const clients = this.options.clients;
    const inputSchema: JsonSchema =
      definition.inputSchema.type === undefined ? { type: 'object', ...definition.inputSchema } : definition.inputSchema;
    const title = definition.title ?? definition.annotations?.title;
    return {
      name,
      description: `${title ? `${title}: ` : ''}${definition.description ?? '(no description)'}\n(Tool "${definition.name}" of MCP server "${server}".)`,
      inputSchema,
      parse(raw) {
        return validate(raw) ? { success: true, args: raw } : { success: false, error: describeSchemaErrors(validate) };
      },
      declarationsFor: () => declarations,
      subjectsFor: async () => [],
      unavailableReason: () => offered.withheld,
      approvalNote: note,
      hasPreview: false,
      preview: async () => [],
      async run(args, context): Promise<ToolResult> {
        let result: McpCallResult;
        try {
          const questions = context.host.questions;
          const elicit = questions
            ? (request: McpElicitation, signal: AbortSignal) =>
                elicitThroughQuestions(request, { server, callId: context.callId, sessionId: context.sessionId, questions, signal })
            : undefined;
          result = await clients.callTool(server, definition.name, args, { signal: context.signal, onProgress: context.progress, elicit });
        } catch (error) {
          if (error instanceof McpNotSentError)
            return { output: `The call was not sent: ${error.message}. Nothing happened.`, status: 'error' };
          throw error;
        }
        const output = formatCallResult(server, result);
        return { output, status: result.isError === true ? 'error' : 'ok', metadata: { server, tool: definition.name } };
      },
    };
  }
}
