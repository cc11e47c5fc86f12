/**
 * The `zuno` command line (README: "The CLI contract"). Scripts and black-box tests depend on
 * it, so it changes only by adding things.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseCheckpointsCommand, type CheckpointsCommand, type RewindCommand } from '../cli/checkpoints-command';
import { parseSessionsCommand, type SessionsCommand } from '../cli/sessions-command';

export const USAGE = `Usage:
  zuno exec [--workspace DIR] [--config FILE] [--state-dir DIR] [--base-url URL] [--model NAME]
            [--api-key-env VAR] [--approve allow|deny] [--session ID] [--compact] [--json] PROMPT
  zuno show SESSION_ID [--workspace DIR] [--state-dir DIR] [--json]
  zuno memory list|accept ID|delete ID [--workspace DIR] [--state-dir DIR] [--json]
  zuno mcp list|accept SERVER [TOOL]|approve SERVER|decline SERVER
           [--workspace DIR] [--config FILE] [--state-dir DIR] [--json]
  zuno checkpoints SESSION_ID [--workspace DIR] [--state-dir DIR] [--json]
  zuno sessions [list] | delete SESSION_ID... [--workspace DIR] [--state-dir DIR] [--json]
  zuno rewind SESSION_ID --to CHECKPOINT [--dry-run] [--force] [--fork]
              [--workspace DIR] [--state-dir DIR] [--json]
  zuno --help | --version

exec   Runs the agent on PROMPT in the workspace ("-" reads the prompt from stdin).
show   Prints a stored session: its calls in order, with outcomes and timestamps, and its work state.
memory Lists the memories the agent proposed (memory.enabled), accepts or deletes one.
       Accepted memories are added to later sessions' context.
mcp    Lists the MCP servers of mcp.servers with their tools and how each stands against
       its pinned definition; accept pins what a server presents now (one TOOL or all),
       so a tool withheld because its definition changed, or is new, is offered again.
       Servers of the workspace's .vscode/mcp.json start only once approved (approve;
       decline stops asking); a changed definition needs approving again.
sessions Lists the workspace's sessions (id, last update, status, size on disk, title),
       newest first, each delegated task indented under its session, titled by its goal;
       delete removes sessions and their files.
checkpoints  Lists a session's checkpoints (one before the first change of each turn) and
       the files changed since each.
rewind Restores the workspace's files to a checkpoint: files changed since are put back,
       files added since are removed; nothing else is touched. Refuses (exit 3) when a file
       changed outside Zuno since then would be overwritten, unless --force. A checkpoint is
       taken first, so a rewind can be undone. --dry-run lists and changes nothing; --fork
       also starts a new session whose transcript ends before that checkpoint's message.
       Effects outside the workspace (a pushed commit, a sent request) are not undone.

Options:
  --workspace DIR      The workspace (default: the current directory).
  --config FILE        Config file (default: <workspace>/.zuno/config.json when it exists).
  --state-dir DIR      Sessions and outputs (default: a per-user folder for this workspace,
                       $XDG_STATE_HOME/zuno/workspaces/<name>-<hash>, ~/.local/state when
                       XDG_STATE_HOME is unset; ~/Library/Application Support/Zuno/… on macOS,
                       %LOCALAPPDATA%\\Zuno\\… on Windows). An old <workspace>/.zuno/state is
                       moved there on first use and kept as .zuno/state.migrated-<date>.
  --base-url URL       Model server (else model.base_url, else ZUNO_BASE_URL).
  --model NAME         Model name (else model.name, else ZUNO_MODEL).
  --api-key-env VAR    Environment variable holding the API key (else model.api_key_env;
                       without either, ZUNO_API_KEY is used when set).
  --approve allow|deny Answer every approval. Without it a terminal prompts; without a
                       terminal approvals are denied.
  --session ID         Continue this session (also after a crash).
  --compact            Before PROMPT, replace the session's earlier turns by a handoff (the
                       prompts, plan, todos, goal, changed files and unresolved calls, plus a
                       summary by the model); the stored history is kept whole.
  --json               One JSON event per line on stdout.

Exit codes: 0 finished, 1 model provider failure, 2 usage/config/startup error, 3 rewind
refused (files changed outside Zuno), 130 interrupted.`;

/** A command line that cannot be run: exit code 2, with the message and the usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface ExecCommand {
  readonly command: 'exec';
  readonly prompt: string;
  readonly workspace?: string;
  readonly config?: string;
  readonly stateDir?: string;
  readonly baseUrl?: string;
  readonly model?: string;
  readonly apiKeyEnv?: string;
  readonly approve?: 'allow' | 'deny';
  readonly session?: string;
  /** Compact the session's earlier turns before the prompt (issue 10 item 2). */
  readonly compact?: true;
  readonly json: boolean;
}

export interface ShowCommand {
  readonly command: 'show';
  readonly sessionId: string;
  readonly workspace?: string;
  readonly stateDir?: string;
  readonly json: boolean;
}

export interface MemoryCommand {
  readonly command: 'memory';
  readonly action: 'list' | 'accept' | 'delete';
  readonly memoryId?: string;
  readonly workspace?: string;
  readonly stateDir?: string;
  readonly json: boolean;
}

export interface McpCommand {
  readonly command: 'mcp';
  readonly action: 'list' | 'accept' | 'approve' | 'decline';
  readonly server?: string;
  readonly tool?: string;
  readonly workspace?: string;
  readonly config?: string;
  readonly stateDir?: string;
  readonly json: boolean;
}

export type Command =
  | ExecCommand
  | ShowCommand
  | MemoryCommand
  | McpCommand
  | CheckpointsCommand
  | RewindCommand
  | SessionsCommand
  | { readonly command: 'help' }
  | { readonly command: 'version' };

const execOptions = {
  workspace: { type: 'string' },
  config: { type: 'string' },
  'state-dir': { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  'api-key-env': { type: 'string' },
  approve: { type: 'string' },
  session: { type: 'string' },
  compact: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const showOptions = {
  workspace: { type: 'string' },
  'state-dir': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const mcpOptions = { ...showOptions, config: { type: 'string' } } as const;

/** node's parser, with its errors as UsageErrors; every subcommand parses its words through it. */
export function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: readonly string[], options: T) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    // node's messages name the option (`Unknown option '--foo'`, `Option '--model <value>' argument missing`).
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

export function nonEmpty(name: string, value: string | undefined): string | undefined {
  if (value !== undefined && value.trim() === '') throw new UsageError(`--${name} needs a value.`);
  return value;
}

/** `localhost:11434` parses as a URL with the scheme `localhost:`; only http(s) reaches a model server. */
export function isHttpUrl(text: string): boolean {
  return URL.canParse(text) && /^https?:$/.test(new URL(text).protocol);
}

const isApproveAnswer = (value: string): value is 'allow' | 'deny' => value === 'allow' || value === 'deny';

/** Drops absent options, so that an optional property is either set or missing, never `undefined`. */
function withoutUndefined<T extends Record<string, unknown>>(values: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const result: { [K in keyof T]?: Exclude<T[K], undefined> } = {};
  for (const key of Object.keys(values) as (keyof T)[]) {
    const value = values[key];
    if (value !== undefined) result[key] = value as Exclude<T[keyof T], undefined>;
  }
  return result;
}

/** Parses `argv` without the node and script paths. */
export function parseCommandLine(argv: readonly string[]): Command {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') return { command: 'help' };
  if (first === '--version' || first === '-V' || first === 'version') return { command: 'version' };

  if (first === 'exec') {
    const { values, positionals } = parse(rest, execOptions);
    if (values.help) return { command: 'help' };
    if (positionals.length === 0) throw new UsageError('zuno exec needs a PROMPT (or "-" to read it from stdin).');
    const approve = values.approve;
    if (approve !== undefined && !isApproveAnswer(approve)) {
      throw new UsageError(`--approve must be "allow" or "deny" (got "${approve}").`);
    }
    const baseUrl = nonEmpty('base-url', values['base-url']);
    if (baseUrl !== undefined && !isHttpUrl(baseUrl)) {
      throw new UsageError(`--base-url must be an http(s) URL such as http://127.0.0.1:11434/v1 (got "${baseUrl}").`);
    }
    const optional = {
      workspace: nonEmpty('workspace', values.workspace),
      config: nonEmpty('config', values.config),
      stateDir: nonEmpty('state-dir', values['state-dir']),
      baseUrl,
      model: nonEmpty('model', values.model),
      apiKeyEnv: nonEmpty('api-key-env', values['api-key-env']),
      approve,
      session: nonEmpty('session', values.session),
    };
    return {
      command: 'exec',
      // Several words without quotes are one prompt.
      prompt: positionals.join(' '),
      json: values.json ?? false,
      ...(values.compact ? { compact: true as const } : {}),
      ...withoutUndefined(optional),
    };
  }

  if (first === 'memory') {
    const { values, positionals } = parse(rest, showOptions);
    if (values.help) return { command: 'help' };
    const [action, memoryId, ...extra] = positionals;
    if (action !== 'list' && action !== 'accept' && action !== 'delete') {
      throw new UsageError(
        `zuno memory needs an action: list, accept ID or delete ID (got ${action === undefined ? 'none' : `"${action}"`}).`,
      );
    }
    if (action !== 'list' && memoryId === undefined)
      throw new UsageError(`zuno memory ${action} needs a memory ID (see zuno memory list).`);
    if ((action === 'list' ? [memoryId, ...extra] : extra).some((word) => word !== undefined)) {
      throw new UsageError(`zuno memory ${action} takes ${action === 'list' ? 'no other words' : 'one ID'}.`);
    }
    return {
      command: 'memory',
      action,
      json: values.json ?? false,
      ...withoutUndefined({
        memoryId,
        workspace: nonEmpty('workspace', values.workspace),
        stateDir: nonEmpty('state-dir', values['state-dir']),
      }),
    };
  }

  if (first === 'mcp') {
    const { values, positionals } = parse(rest, mcpOptions);
    if (values.help) return { command: 'help' };
    const [action, server, tool, ...extra] = positionals;
    if (action !== 'list' && action !== 'accept' && action !== 'approve' && action !== 'decline') {
      throw new UsageError(
        `zuno mcp needs an action: list, accept SERVER [TOOL], approve SERVER or decline SERVER (got ${action === undefined ? 'none' : `"${action}"`}).`,
      );
    }
    if (action !== 'list' && server === undefined)
      throw new UsageError(
        `zuno mcp ${action} needs a SERVER (see zuno mcp list)${action === 'accept' ? ', and optionally one TOOL of it' : ''}.`,
      );
    const allowed = action === 'list' ? 0 : action === 'accept' ? 2 : 1;
    if ([server, tool, ...extra].slice(allowed).some((word) => word !== undefined)) {
      throw new UsageError(
        `zuno mcp ${action} takes ${action === 'list' ? 'no other words' : action === 'accept' ? 'a SERVER and at most one TOOL' : 'one SERVER'}.`,
      );
    }
    return {
      command: 'mcp',
      action,
      json: values.json ?? false,
      ...withoutUndefined({
        server,
        tool,
        workspace: nonEmpty('workspace', values.workspace),
        config: nonEmpty('config', values.config),
        stateDir: nonEmpty('state-dir', values['state-dir']),
      }),
    };
  }
  if (first === 'checkpoints' || first === 'rewind') return parseCheckpointsCommand(first, rest) ?? { command: 'help' };
  if (first === 'sessions') return parseSessionsCommand(rest) ?? { command: 'help' };

  if (first === 'show') {
    const { values, positionals } = parse(rest, showOptions);
    if (values.help) return { command: 'help' };
    const [sessionId, ...extra] = positionals;
    if (sessionId === undefined) throw new UsageError('zuno show needs a SESSION_ID (printed by zuno exec in session-started).');
    if (extra.length > 0) throw new UsageError(`zuno show takes one SESSION_ID (got also: ${extra.join(' ')}).`);
    return {
      command: 'show',
      sessionId,
      json: values.json ?? false,
      ...withoutUndefined({ workspace: nonEmpty('workspace', values.workspace), stateDir: nonEmpty('state-dir', values['state-dir']) }),
    };
  }

  throw new UsageError(`Unknown command "${first}". The commands are exec, show, memory and mcp.`);
  throw new UsageError(`Unknown command "${first}". The commands are exec, show, memory, checkpoints and rewind.`);
}
