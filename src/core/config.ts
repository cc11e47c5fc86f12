/**
 * One schema for every config source (SPEC §9): the workspace/CLI JSON file and the editor's
 * `zuno.*` settings both validate here. Unknown keys and out-of-range values are rejected with
 * a message that names the key and the allowed range.
 */
import { z } from 'zod';
import { CONCURRENCIES, EFFECTS, REPLAYS } from './declarations';
import { ConfigError } from './errors';
import { globCostProblem, globProblem, type GlobKind } from './glob';
import { isGlobEntry, SANDBOX_MODES, splitGlob } from './sandbox';

function boundedInt(min: number, max: number, fallback: number) {
  return z
    .custom<number>((value) => Number.isInteger(value) && (value as number) >= min && (value as number) <= max, {
      error: (issue) => `must be an integer from ${min} to ${max} (got ${JSON.stringify(issue.input)})`,
    })
    .default(fallback);
}

const ruleAction = z.enum(['allow', 'ask', 'deny']);

function globSchema(kind: GlobKind) {
  return z
    .string()
    .min(1, { error: 'must be a glob, not empty' })
    .superRefine((pattern, context) => {
      const problem = globProblem(pattern, kind) ?? (kind === 'path' ? globCostProblem(pattern) : undefined);
      if (problem !== undefined)
        context.addIssue({ code: 'custom', message: `${JSON.stringify(pattern)} is not a valid glob: ${problem}` });
    });
}

/**
 * Glob strings in the rule dialect (src/core/glob.ts), checked when the config loads: a bad glob
 * is a config error naming its key, never a failure of every call it meets. Every config key
 * that holds globs uses one of these: `globPattern` for globs over paths (held to the path
 * wildcard limit), `textGlobPattern` for globs over names, commands or URLs.
 */
export const globPattern = globSchema('path');
export const textGlobPattern = globSchema('text');

/**
 * Tools whose subjects are never paths: their rules are text globs, matched in linear time, so
 * they may hold as many `*` and as many literal brackets as a command or URL needs. Every other
 * rule may meet a path, so its glob must be a valid path glob within the wildcard limit.
 */
const TEXT_SUBJECT_TOOLS: ReadonlySet<string> = new Set(['shell', 'webfetch', 'web_search']);

export const permissionRuleSchema = z
  .strictObject({
    /** A tool name, or `*` for every tool. */
    tool: z.string().min(1),
    /** A glob over the call's main subject: the path, the command line, or the URL. */
    match: z.string().min(1, { error: 'must be a glob, not empty' }).optional(),
    action: ruleAction,
    /**
     * `off`: the rule is about calls that ask to run outside the sandbox (shell `sandbox: "off"`,
     * issue 12). Only such a rule applies to them when it allows; without it they always ask.
     */
    sandbox: z.literal('off', { error: 'must be "off" (the rule then covers calls that run outside the sandbox), or left out' }).optional(),
  })
  .superRefine((rule, context) => {
    if (rule.sandbox !== undefined && rule.tool !== 'shell' && rule.tool !== '*') {
      context.addIssue({ code: 'custom', path: ['sandbox'], message: `only applies to the shell tool (this rule is for "${rule.tool}")` });
    }
    if (rule.match === undefined) return;
    const kind = TEXT_SUBJECT_TOOLS.has(rule.tool) ? 'text' : 'path';
    const invalid = globProblem(rule.match, kind);
    const costly = invalid === undefined && kind === 'path' ? globCostProblem(rule.match) : undefined;
    if (invalid !== undefined)
      context.addIssue({ code: 'custom', path: ['match'], message: `${JSON.stringify(rule.match)} is not a valid glob: ${invalid}` });
    if (costly !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['match'],
        message: `${JSON.stringify(rule.match)} is not a valid glob for the paths of tool "${rule.tool}": ${costly}`,
      });
    }
  });
export type PermissionRule = z.infer<typeof permissionRuleSchema>;

const dollars = z.number().nonnegative().finite();
const priceSchema = z.strictObject({ input: dollars, output: dollars, cached_input: dollars.optional(), cache_write: dollars.optional() });

export const REASONING_EFFORTS = ['low', 'medium', 'high'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export const PERMISSION_MODES = ['strict', 'auto-edit', 'auto'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

const hookSchema = z.strictObject({
  /** A shell command line; the validated call (or the result) arrives as JSON on stdin. */
  command: z.string().min(1),
  /** Only run for these tools; all tools when absent. */
  tools: z.array(z.string()).optional(),
  timeout_ms: boundedInt(100, 600_000, 10_000),
});
export type HookConfig = z.infer<typeof hookSchema>;

const agentSchema = z.strictObject({
  description: z.string().default(''),
  /** An exact allowlist that replaces the default surface (SPEC A1). */
  tools: z.array(z.string()).optional(),
  prompt: z.string().optional(),
  model: z.string().optional(),
  max_steps: boundedInt(1, 1000, 25),
});
export type AgentConfig = z.infer<typeof agentSchema>;

const councilMemberSchema = z.strictObject({
  name: z.string().min(1),
  model: z.string().optional(),
  persona: z.string().optional(),
});

/**
 * One MCP server (issue 11): stdio (`command`, `args`, `env`, `cwd`) or HTTP (`url`, `headers`).
 * Values of `env` and `headers` may be `${env:NAME}` references, so secrets stay in the
 * environment instead of a file the model can read.
 */
const mcpToolOverrideSchema = z.strictObject({
  /** false: the tool is not offered. */
  enabled: z.boolean().default(true),
  /** The user's declarations for this tool; they win over everything, annotations included. Omitted values are strictest (T2). */
  declarations: z
    .strictObject({ effect: z.enum(EFFECTS).optional(), replay: z.enum(REPLAYS).optional(), concurrency: z.enum(CONCURRENCIES).optional() })
    .optional(),
});

const mcpServerSchema = z
  .strictObject({
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    /** Relative to the workspace; the workspace when absent. */
    cwd: z.string().min(1).optional(),
    url: z.string().url().optional(),
    headers: z.record(z.string(), z.string()).default({}),
    enabled: z.boolean().default(true),
    /** Honour the server's tool annotations (readOnlyHint, idempotentHint). Untrusted annotations are shown, never obeyed. */
    trust: z.boolean().default(false),
    /** Per-tool overrides, by the server's own tool name. */
    tools: z.record(z.string(), mcpToolOverrideSchema).default({}),
    /** How long one request (a tool call, a resource read) may take before it is cancelled. */
    timeout_ms: boundedInt(1000, 24 * 3600_000, 60_000),
    /** How long starting the server (spawn or connect, handshake, tool list) may take. */
    startup_timeout_ms: boundedInt(1000, 600_000, 30_000),
  })
  .superRefine((server, context) => {
    const stdio = server.command !== undefined;
    const http = server.url !== undefined;
    if (stdio === http) {
      context.addIssue({ code: 'custom', message: 'needs exactly one of "command" (a stdio server) or "url" (an HTTP server)' });
      return;
    }
    const misplaced = stdio
      ? Object.keys(server.headers).length > 0
        ? ['headers']
        : []
      : [
          ...(server.args.length > 0 ? ['args'] : []),
          ...(Object.keys(server.env).length > 0 ? ['env'] : []),
          ...(server.cwd !== undefined ? ['cwd'] : []),
        ];
    for (const key of misplaced) {
      context.addIssue({
        code: 'custom',
        path: [key],
        message: `is for ${stdio ? 'HTTP servers (with "url")' : 'stdio servers (with "command")'} only`,
      });
    }
  });
export type McpServerConfig = z.infer<typeof mcpServerSchema>;

export const configSchema = z.strictObject({
  concurrency: z
    .strictObject({
      tool_calls: boundedInt(1, 64, 8),
      delegations: boundedInt(1, 64, 8),
      mcp_connections: boundedInt(1, 64, 8),
      lsp_requests: boundedInt(1, 64, 4),
    })
    .prefault({}),
  /** Availability switches per tool name (SPEC A1). Not authorization: see `permission`. */
  tools: z.record(z.string(), z.boolean()).default({}),
  tool_output: z
    .strictObject({
      max_bytes: boundedInt(1024, 10 * 1024 * 1024, 51_200),
      max_lines: boundedInt(10, 100_000, 2000),
      /** The most one call's spill file holds; beyond it the head and the tail are kept (issue 12). */
      max_spill_bytes: boundedInt(1024 * 1024, 16 * 1024 * 1024 * 1024, 256 * 1024 * 1024),
    })
    .prefault({}),
  permission: z
    .strictObject({
      mode: z.enum(PERMISSION_MODES).default('strict'),
      rules: z.array(permissionRuleSchema).default([]),
      /** Globs of more paths whose writes always ask, added to the built-in list (issue 8 §3). */
      protected: z.array(globPattern).default([]),
    })
    .prefault({}),
  hooks: z
    .strictObject({
      pre_tool: z.array(hookSchema).default([]),
      post_tool: z.array(hookSchema).default([]),
    })
    .prefault({}),
  ripgrep: z.strictObject({ path: z.string().min(1).optional() }).prefault({}),
  shell: z
    .strictObject({
      /** Generous by default: test suites take minutes, not seconds. */
      default_timeout_ms: boundedInt(1000, 24 * 3600_000, 600_000),
      /**
       * What commands and hooks inherit (core/environment.ts): secrets are dropped by default;
       * `include` passes named variables through on purpose, `exclude` drops more. Name globs.
       */
      env: z
        .strictObject({
          include: z.array(globPattern).default([]),
          exclude: z.array(globPattern).default([]),
        })
        .prefault({}),
    })
    .prefault({}),
  /** Where shell commands, background commands and tasks run (issue 12); hooks run outside it. */
  sandbox: z
    .strictObject({
      mode: z.enum(SANDBOX_MODES).default('workspace-write'),
      network: z.boolean().default(false),
      /**
       * More writable places in workspace-write: absolute paths, `~/` paths, or paths relative to
       * the workspace; or path globs of those, expanded against the disk when each command starts.
       */
      writable: z
        .array(
          z
            .string()
            .min(1, { error: 'must be a path or a glob, not empty' })
            .superRefine((entry, context) => {
              if (!isGlobEntry(entry)) return;
              const problem = globProblem(entry, 'path') ?? globCostProblem(entry);
              if (problem !== undefined)
                context.addIssue({ code: 'custom', message: `${JSON.stringify(entry)} is not a valid glob: ${problem}` });
              else if (['/', '', '~'].includes(splitGlob(entry).base))
                context.addIssue({
                  code: 'custom',
                  message: `${JSON.stringify(entry)} would match at the top of the disk, of the home folder or of the workspace (which is writable already); start the glob below a folder, e.g. ~/.cache/*`,
                });
            }),
        )
        .default([]),
      /** true: when the sandbox cannot be used, shell calls are blocked instead of running unsandboxed. */
      required: z.boolean().default(false),
      /** The bubblewrap executable; PATH when absent. */
      bwrap_path: z.string().min(1).optional(),
      /** The most processes a sandboxed command may have at once; 0 for no limit. */
      max_processes: boundedInt(0, 1_000_000, 4096),
    })
    .prefault({}),
  webfetch: z
    .strictObject({
      max_bytes: boundedInt(1024, 50 * 1024 * 1024, 5 * 1024 * 1024),
      timeout_ms: boundedInt(1000, 600_000, 30_000),
    })
    .prefault({}),
  web_search: z
    .strictObject({
      provider: z.enum(['searxng']).optional(),
      url: z.string().url().optional(),
      max_results: boundedInt(1, 50, 8),
    })
    .prefault({}),
  retry: z
    .strictObject({
      /** Attempts for Safe tools on transient failures, the first included. */
      max_attempts: boundedInt(1, 10, 3),
      base_delay_ms: boundedInt(0, 60_000, 250),
    })
    .prefault({}),
  model: z
    .strictObject({
      provider: z.enum(['openai', 'anthropic', 'vscode-lm']).default('openai'),
      base_url: z.string().url().default('http://127.0.0.1:11434/v1'),
      name: z.string().optional(),
      /** The environment variable holding the key (CLI). The editor keeps keys in SecretStorage. */
      api_key_env: z.string().optional(),
      max_steps: boundedInt(1, 1000, 50),
      /** A model stream that sends no complete event for this long is abandoned and retried (issue 10 item 6). */
      idle_timeout_ms: boundedInt(1000, 3_600_000, 120_000),
      /** The model's context window in tokens; 0 asks the server, then a table, then guesses 32k (issue 10 item 1). */
      context_window: boundedInt(0, 10_000_000, 0),
      /** The answer's token limit; 0 leaves it to the provider (Anthropic needs one: 8192 then) (issue 10 item 4). */
      max_output_tokens: boundedInt(0, 1_000_000, 0),
      /** How hard a reasoning model thinks: OpenAI's `reasoning_effort`, an Anthropic thinking budget. Unset: the model's default, no thinking for Claude. */
      reasoning_effort: z.enum(REASONING_EFFORTS).optional(),
      /** The model takes images (issue 14): pasted images are sent to it; without this they are refused before any request. */
      images: z.boolean().default(false),
      /** US dollars per million tokens, by model name, for the cost shown with usage (issue 10 item 7). */
      prices: z.record(z.string().min(1), priceSchema).default({}),
    })
    .prefault({}),
  memory: z.strictObject({ enabled: z.boolean().default(false) }).prefault({}),
  /** A restorable checkpoint of the work tree before each turn's first change (issue 13). */
  checkpoints: z.strictObject({ enabled: z.boolean().default(true) }).prefault({}),
  /** Retention of past sessions (issue 9); 0 keeps everything. Sessions beyond either limit are deleted when Zuno starts. */
  history: z
    .strictObject({
      max_sessions: boundedInt(0, 1_000_000, 0),
      max_age_days: boundedInt(0, 36_500, 0),
    })
    .prefault({}),
  council: z.strictObject({ members: z.array(councilMemberSchema).default([]) }).prefault({}),
  agents: z.record(z.string(), agentSchema).default({}),
  /** MCP servers by name (issue 11); their tools are offered as `mcp__<server>__<tool>`. */
  mcp: z
    .strictObject({
      servers: z.record(z.string().min(1), mcpServerSchema).default({}),
      /** Tools sent per request, built-in ones included; MCP tools beyond it are deferred to mcp_tools. */
      max_offered_tools: boundedInt(1, 1000, 64),
      /** Tokens of the tool definitions sent per request (four characters a token); MCP tools beyond it are deferred. */
      max_offered_schema_tokens: boundedInt(1000, 1_000_000, 20_000),
    })
    .prefault({}),
});

export type ZunoConfig = z.infer<typeof configSchema>;
export type ZunoConfigInput = z.input<typeof configSchema>;

/** `['permission', 'rules', 2, 'match']` → `permission.rules[2].match`. */
const configKey = (path: readonly PropertyKey[]): string =>
  path.map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : `${index === 0 ? '' : '.'}${String(segment)}`)).join('');

/** Validates raw config, throwing a ConfigError whose lines each name a key. */
export function parseConfig(raw: unknown, source = 'config'): ZunoConfig {
  const result = configSchema.safeParse(raw ?? {});
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => `${configKey([...issue.path, key])} is not a known setting`).join('\n');
    }
    const key = configKey(issue.path) || '(root)';
    return `${key} ${issue.message}`;
  });
  throw new ConfigError(`Invalid ${source}:\n${lines.join('\n')}`);
}

export const DEFAULT_CONFIG: ZunoConfig = parseConfig({});

/** One MCP server entry checked by the same schema as `mcp.servers.<name>` (a workspace's `.vscode/mcp.json`, issue 11). */
export function parseMcpServer(raw: unknown): { ok: true; server: McpServerConfig } | { ok: false; message: string } {
  const result = mcpServerSchema.safeParse(raw);
  if (result.success) return { ok: true, server: result.data };
  return { ok: false, message: result.error.issues.map((issue) => `${configKey(issue.path) || 'the entry'} ${issue.message}`).join('; ') };
}
