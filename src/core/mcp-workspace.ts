/**
 * The workspace's `.vscode/mcp.json` (issue 11): VS Code's own format (`servers`, `inputs`), read
 * so that a user's existing servers work in Zuno too. A file in the workspace comes with the
 * repository, so a server it defines is never started before the user approved it: the approval
 * is bound to a hash of the server's definition and kept in the state dir, outside the workspace,
 * and a changed definition asks again. Such servers are untrusted (their annotations are shown,
 * never obeyed) unless the user trusts them in the same record.
 *
 * `${input:id}` stays in the entry and is resolved when the server starts, from SecretStorage in
 * the editor and from `ZUNO_MCP_INPUT_<ID>` in the CLI, never from a file. `${workspaceFolder}`
 * and `${userHome}` are substituted; `${env:NAME}` is read from Zuno's environment at start, as in
 * `mcp.servers`. Pure logic: reading the files is the host's (src/hosts/node/mcp-workspace.ts).
 */
import { createHash } from 'node:crypto';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { parseMcpServer, type McpServerConfig, type ZunoConfig } from './config';

export const WORKSPACE_MCP_FILE = '.vscode/mcp.json';

export interface WorkspaceMcpInput {
  readonly id: string;
  readonly description: string;
  readonly password: boolean;
}

export interface WorkspaceMcpServer {
  readonly name: string;
  readonly server: McpServerConfig;
  /** What the approval is bound to: the entry as written, hashed. */
  readonly hash: string;
  /** The command line or URL, for the prompt. */
  readonly summary: string;
}

export interface WorkspaceMcpFile {
  readonly servers: readonly WorkspaceMcpServer[];
  readonly inputs: readonly WorkspaceMcpInput[];
  /** Entries or parts that were not used, each saying why. */
  readonly problems: readonly string[];
}

/** The user's decision on one server of the file, for the definition with `hash`. */
export interface WorkspaceMcpDecision {
  readonly hash: string;
  readonly approved: boolean;
  readonly trust?: boolean | undefined;
}

export type WorkspaceMcpDecisions = Readonly<Record<string, WorkspaceMcpDecision>>;

export interface WorkspaceMcpVariables {
  readonly workspaceFolder: string;
  readonly userHome: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The environment variable the CLI reads `${input:id}` from. */
export function inputEnvironmentVariable(id: string): string {
  return `ZUNO_MCP_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isRecord(value)) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Only the fields that decide what runs or where it connects are hashed. */
function definitionHash(entry: Record<string, unknown>): string {
  const { type, command, args, env, cwd, url, headers } = entry;
  return `sha256:${createHash('sha256').update(canonicalJson({ type, command, args, env, cwd, url, headers })).digest('hex')}`;
}

/** Substitutes the variables Zuno supports; an unknown one is an error naming it. */
function substitute(text: string, variables: WorkspaceMcpVariables, inputs: ReadonlySet<string>): string {
  return text.replace(/\$\{([^}]*)\}/g, (match, name: string) => {
    if (name === 'workspaceFolder') return variables.workspaceFolder;
    if (name === 'userHome') return variables.userHome;
    if (name.startsWith('env:')) return match;
    if (name.startsWith('input:')) {
      if (!inputs.has(name.slice('input:'.length))) throw new Error(`${match} names no entry of "inputs"`);
      return match;
    }
    throw new Error(`${match} is a variable Zuno does not support (only \${workspaceFolder}, \${userHome}, \${env:NAME} and \${input:ID})`);
  });
}

function stringRecord(value: unknown, key: string, substituteText: (text: string) => string): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw new Error(`"${key}" is not an object`);
  const result: Record<string, string> = {};
  for (const [name, item] of Object.entries(value)) {
    if (item === null) continue;
    if (typeof item !== 'string' && typeof item !== 'number') throw new Error(`"${key}.${name}" is not a string`);
    result[name] = substituteText(String(item));
  }
  return result;
}

function convertServer(
  name: string,
  entry: Record<string, unknown>,
  variables: WorkspaceMcpVariables,
  inputIds: ReadonlySet<string>,
  problems: string[],
): WorkspaceMcpServer | undefined {
  const where = `servers.${name}`;
  try {
    const text = (value: string): string => substitute(value, variables, inputIds);
    const type = entry.type ?? (entry.url !== undefined ? 'http' : 'stdio');
    if (type !== 'stdio' && type !== 'http' && type !== 'sse')
      throw new Error(`"type" is ${JSON.stringify(type)}; Zuno knows "stdio", "http" and "sse"`);
    if (entry.envFile !== undefined)
      problems.push(
        `${where}.envFile is not read: secrets come from SecretStorage or the environment, never from a file; name the variables in "env" as \${input:ID} or \${env:NAME}.`,
      );
    let raw: Record<string, unknown>;
    let summary: string;
    if (type === 'stdio') {
      if (typeof entry.command !== 'string') throw new Error('a stdio server needs "command"');
      if (entry.args !== undefined && (!Array.isArray(entry.args) || entry.args.some((item) => typeof item !== 'string')))
        throw new Error('"args" is not a list of strings');
      const args = ((entry.args ?? []) as string[]).map(text);
      const env = stringRecord(entry.env, 'env', text);
      raw = {
        command: text(entry.command),
        args,
        ...(env ? { env } : {}),
        ...(typeof entry.cwd === 'string' ? { cwd: text(entry.cwd) } : {}),
      };
      summary = [entry.command, ...((entry.args ?? []) as string[])].join(' ');
    } else {
      if (typeof entry.url !== 'string') throw new Error(`an ${type} server needs "url"`);
      const headers = stringRecord(entry.headers, 'headers', text);
      raw = { url: text(entry.url), ...(headers ? { headers } : {}) };
      summary = entry.url;
    }
    const parsed = parseMcpServer(raw);
    if (!parsed.ok) throw new Error(parsed.message);
    return { name, server: parsed.server, hash: definitionHash(entry), summary };
  } catch (error) {
    problems.push(`${where} is not used: ${error instanceof Error ? error.message : String(error)}.`);
    return undefined;
  }
}

/** Reads the file's text (JSON with comments, as VS Code allows); what cannot be used is named in `problems`. */
export function parseWorkspaceMcpFile(text: string, variables: WorkspaceMcpVariables): WorkspaceMcpFile {
  const errors: ParseError[] = [];
  const document: unknown = parse(text, errors, { allowTrailingComma: true });
  if (errors.length > 0 || !isRecord(document)) {
    const first = errors[0];
    const why = first ? `${printParseErrorCode(first.error)} at offset ${first.offset}` : 'it is not an object';
    return { servers: [], inputs: [], problems: [`${WORKSPACE_MCP_FILE} cannot be read as JSON (${why}); no server of it is used.`] };
  }
  const problems: string[] = [];
  const inputs: WorkspaceMcpInput[] = [];
  for (const [index, input] of (Array.isArray(document.inputs) ? document.inputs : []).entries()) {
    if (!isRecord(input) || typeof input.id !== 'string' || input.id === '') {
      problems.push(`inputs[${index}] has no "id".`);
      continue;
    }
    inputs.push({
      id: input.id,
      description: typeof input.description === 'string' ? input.description : input.id,
      password: input.password === true,
    });
  }
  const inputIds = new Set(inputs.map((input) => input.id));
  const servers: WorkspaceMcpServer[] = [];
  const entries = isRecord(document.servers) ? document.servers : {};
  for (const [name, entry] of Object.entries(entries)) {
    if (!isRecord(entry)) {
      problems.push(`servers.${name} is not an object.`);
      continue;
    }
    const converted = convertServer(name, entry, variables, inputIds, problems);
    if (converted) servers.push(converted);
  }
  return { servers, inputs, problems };
}

export interface WorkspaceMcpStanding {
  /** Approved for their current definition: started like `mcp.servers`. */
  readonly approved: Readonly<Record<string, McpServerConfig>>;
  /** Never decided, or changed since the decision: not started until the user approves. */
  readonly pending: readonly (WorkspaceMcpServer & { readonly changed: boolean })[];
  /** Declined by the user for this definition: not started, not asked again. */
  readonly declined: readonly WorkspaceMcpServer[];
}

/**
 * How each server of the file stands against the user's decisions. A name that `mcp.servers`
 * already defines is left to the config (the user's own entry wins) and is not listed.
 */
export function workspaceMcpStanding(
  file: WorkspaceMcpFile,
  decisions: WorkspaceMcpDecisions,
  configured: Readonly<Record<string, unknown>>,
): WorkspaceMcpStanding {
  const approved: Record<string, McpServerConfig> = {};
  const pending: (WorkspaceMcpServer & { changed: boolean })[] = [];
  const declined: WorkspaceMcpServer[] = [];
  for (const entry of file.servers) {
    if (Object.hasOwn(configured, entry.name)) continue;
    const decision = decisions[entry.name];
    if (decision === undefined || decision.hash !== entry.hash) pending.push({ ...entry, changed: decision !== undefined });
    else if (!decision.approved) declined.push(entry);
    else approved[entry.name] = { ...entry.server, trust: decision.trust === true };
  }
  return { approved, pending, declined };
}

/** The config with the approved servers of the file added; the config's own entries win. */
export function withWorkspaceServers(config: ZunoConfig, approved: Readonly<Record<string, McpServerConfig>>): ZunoConfig {
  if (Object.keys(approved).length === 0) return config;
  return { ...config, mcp: { ...config.mcp, servers: { ...approved, ...config.mcp.servers } } };
}

/** For people: what the file asks to run, and how to allow it. */
export function pendingNotice(pending: WorkspaceMcpStanding['pending'], how: string): string {
  const lines = pending.map((entry) => `  ${entry.name}${entry.changed ? ' (changed since you decided)' : ''}: ${entry.summary}`);
  return `${WORKSPACE_MCP_FILE} defines MCP servers that are not started until you approve them:\n${lines.join('\n')}\n${how}`;
}
