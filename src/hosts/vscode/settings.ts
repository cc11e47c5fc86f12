/**
 * VS Code settings ↔ the one config schema (SPEC §9: "One schema validates both"). No `vscode`
 * import: the extension reads the raw values through `inspect()` and hands them here, so the
 * mapping, the precedence and the error naming are tested in plain node.
 *
 * Naming: each config leaf `a.b_c` is the setting `zuno.a.bC` (camelCase per segment, as VS Code
 * settings are spelled). Values keep the config file's shape: the items of `zuno.permission.rules`
 * or `zuno.hooks.preTool` are written exactly as in `.zuno/config.json` (`timeout_ms`, …).
 *
 * The list of settings is derived from the schema itself, so a key added to `src/core/config.ts`
 * without a description here fails a test instead of silently missing from the editor.
 */
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { configSchema, parseConfig, type ZunoConfig } from '../../core/config';
import { ConfigError } from '../../core/errors';

export const SETTINGS_PREFIX = 'zuno';

/**
 * How a setting combines with the same key from a lower-precedence source.
 * - `replace`: the higher source wins outright.
 * - `by-key`: maps merge name by name, so one switch in settings does not drop the file's others.
 * - `concatenate`: lists add up. Used for rules and hooks, so clicking "Allow like this" (which
 *   writes a rule into settings) can never hide a `deny` rule of `.zuno/config.json`; deny beats
 *   allow whatever the order, so adding rules can only add asks and denies, never remove them.
 */
export type MergeRule = 'replace' | 'by-key' | 'concatenate';

/** VS Code's setting scopes; `machine` cannot be set by a workspace (it names a binary to run). */
export type SettingScope = 'application' | 'machine' | 'machine-overridable' | 'window' | 'resource';

interface SettingInfo {
  readonly description: string;
  /** Range of a bounded integer; a test proves the schema accepts exactly this range. */
  readonly minimum?: number;
  readonly maximum?: number;
  readonly merge?: MergeRule;
  readonly scope?: SettingScope;
}

/** Descriptions and ranges, keyed by the config path as it is written in `.zuno/config.json`. */
const SETTING_INFO: Readonly<Record<string, SettingInfo>> = {
  'concurrency.tool_calls': {
    description: 'How many non-exclusive tool calls of one model turn may run at once (SPEC C3). 1 makes them serial.',
    minimum: 1,
    maximum: 64,
  },
  'concurrency.delegations': {
    description: 'How many delegated child agents may run at once. 1 makes delegation serial.',
    minimum: 1,
    maximum: 64,
  },
  'concurrency.mcp_connections': {
    description:
      'How many MCP requests (tool calls, resource lists and reads) may be in flight at once, across all MCP servers; more wait their turn in order. Starting a server does not count.',
    minimum: 1,
    maximum: 64,
  },
  'concurrency.lsp_requests': { description: 'How many language-feature (lsp tool) requests may run at once.', minimum: 1, maximum: 64 },
  tools: {
    description:
      'Availability switches per tool name, e.g. `{"webfetch": false}` (SPEC A1). This controls which tools the model is offered, not what they may do: authorization is `zuno.permission.rules`. Merged name by name with `.zuno/config.json`. Edit with "Zuno: Toggle Tools…".',
    merge: 'by-key',
  },
  'tool_output.max_bytes': {
    description: 'Largest tool output the model sees, in bytes; the rest is cut from the middle and saved to a file (SPEC O1).',
    minimum: 1024,
    maximum: 10 * 1024 * 1024,
  },
  'tool_output.max_lines': {
    description: 'Most lines of tool output the model sees; the rest is cut from the middle and saved to a file (SPEC O1).',
    minimum: 10,
    maximum: 100_000,
  },
  'tool_output.max_spill_bytes': {
    description:
      "The most one call's spill file holds, in bytes; beyond it the file keeps its head and its tail, with a marker between. The call is not failed for it.",
    minimum: 1024 * 1024,
    maximum: 16 * 1024 * 1024 * 1024,
  },
  'permission.mode': {
    description:
      '`strict` (default): every side-effecting call needs a fresh approval unless an allow rule covers it. `auto-edit`: file edits inside the workspace, and updates to the plan, todos and goal, run without asking. `auto`: nothing asks; deny rules still apply.',
  },
  'permission.rules': {
    description:
      'Permission rules `{"tool": "shell", "match": "npm test", "action": "allow"}`; action is `allow`, `ask` or `deny`, and deny beats ask beats allow whatever the order. `match` is a glob over the path, command line or URL. Added to the rules of `.zuno/config.json`, never replacing them.',
    merge: 'concatenate',
  },
  'permission.protected': {
    description:
      'More paths whose writes always ask, in every mode, as globs relative to the workspace (e.g. `deploy/**`). Added to the built-in list (`.zuno`, `.vscode/settings.json`, `.vscode/tasks.json`, `.git`, `.envrc`, …), which cannot be shortened. A write goes through without asking only when an allow rule names the path. Added to the list of `.zuno/config.json`.',
    merge: 'concatenate',
  },
  'hooks.pre_tool': {
    description:
      'Commands run before a tool call, e.g. `{"command": "./check.sh", "tools": ["shell"], "timeout_ms": 10000}`. The validated call arrives as JSON on stdin; a failing hook blocks the call as denied. Added to the hooks of `.zuno/config.json`.',
    merge: 'concatenate',
  },
  'hooks.post_tool': {
    description:
      'Commands run after a tool call, with the result as JSON on stdin. Same shape as `zuno.hooks.preTool`. Added to the hooks of `.zuno/config.json`.',
    merge: 'concatenate',
  },
  'ripgrep.path': {
    description:
      'The ripgrep (14 or newer) executable for glob and grep. Empty: the one shipped with Zuno, then PATH. The environment variable ZUNO_RG_PATH wins over this. Machine scope: a workspace cannot choose which binary runs.',
    scope: 'machine',
  },
  'shell.env.include': {
    description:
      'Environment variables that commands, tasks and hooks inherit although their names look secret, as name globs, e.g. `["NPM_TOKEN"]`. By default every `*KEY*`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*` and `*CREDENTIAL*` variable (any case) and the model provider\'s key variable are dropped, so `env` in a command cannot print them.',
    merge: 'concatenate',
  },
  'shell.env.exclude': {
    description:
      'More environment variables to keep from commands, tasks and hooks, as name globs, e.g. `["AWS_*"]`. Beats `zuno.shell.env.include`.',
    merge: 'concatenate',
  },
  'shell.default_timeout_ms': {
    description:
      'How long a shell command may run when the model gives no timeout, in milliseconds. A timed-out command is killed and never re-run.',
    minimum: 1000,
    maximum: 24 * 3600_000,
  },
  'sandbox.mode': {
    description:
      "Where shell commands, background commands and tasks run (issue 12). `workspace-write`: the workspace is writable (not its .git, .zuno and .vscode), the rest of the disk read-only, credentials such as ~/.ssh and Zuno's state not there, /tmp private. `read-only`: only the private /tmp is writable. `off`: no sandbox, said once in a notice and in the status bar. Hooks always run outside it.",
  },
  'sandbox.network': { description: 'Let sandboxed commands use the network, loopback included. Off by default.' },
  'sandbox.writable': {
    description:
      'More writable places in `workspace-write`, e.g. `["~/.npm", "/var/cache/build", "~/.cache/*"]`: absolute paths, `~/` paths, or paths relative to the workspace, or globs of them, matched when each command starts. A glob never matches a folder holding the workspace\'s .git, Zuno\'s state or a credential, and follows no symlink. Paths that do not exist are left out.',
    merge: 'concatenate',
  },
  'sandbox.required': {
    description:
      'When the sandbox cannot be used (bwrap missing, user namespaces refused, Windows), block shell calls instead of running them unsandboxed.',
  },
  'sandbox.bwrap_path': {
    description: 'The bubblewrap (`bwrap`) executable. Empty: the one on PATH. Machine scope: a workspace cannot choose which binary runs.',
    scope: 'machine',
  },
  'sandbox.max_processes': {
    description: 'The most processes a sandboxed command may have at once, against fork bombs; 0 for no limit.',
    minimum: 0,
    maximum: 1_000_000,
  },
  'webfetch.max_bytes': { description: 'Largest response webfetch downloads, in bytes.', minimum: 1024, maximum: 50 * 1024 * 1024 },
  'webfetch.timeout_ms': { description: 'How long webfetch waits for a response, in milliseconds.', minimum: 1000, maximum: 600_000 },
  'web_search.provider': { description: 'The web search protocol. Without one, web_search is not offered.' },
  'web_search.url': { description: 'The search endpoint, e.g. `http://127.0.0.1:8888` for a SearXNG instance.' },
  'web_search.max_results': { description: 'Results kept per query.', minimum: 1, maximum: 50 },
  'retry.max_attempts': {
    description:
      'Attempts for replay-safe tools (read, grep, webfetch, …) after a transient failure, the first included. Side-effecting tools are never retried.',
    minimum: 1,
    maximum: 10,
  },
  'retry.base_delay_ms': {
    description: 'Backoff before the first retry of a replay-safe tool, in milliseconds; it doubles on each retry.',
    minimum: 0,
    maximum: 60_000,
  },
  'model.provider': {
    description:
      '`openai`: any OpenAI-compatible Chat Completions server (Ollama, LM Studio, vLLM, llama.cpp, OpenRouter, OpenAI). `anthropic`: Anthropic Messages. `vscode-lm`: a model from VS Code\'s Language Model API. Set with "Zuno: Select Model".',
  },
  'model.base_url': {
    description:
      "The server's base URL. The default is a local Ollama. API keys are stored per provider and server, so a key is never sent to a server it was not entered for.",
  },
  'model.name': { description: 'The model, e.g. `qwen2.5-coder:7b`, or the id of a `vscode-lm` model. Set with "Zuno: Select Model".' },
  'model.api_key_env': {
    description:
      'An environment variable to take the API key from on first use, when none is stored yet (ZUNO_API_KEY is always tried). The key is then kept in VS Code\'s SecretStorage only; set or replace it with "Zuno: Set API Key".',
  },
  'model.max_steps': {
    description: 'Most model turns in one run before Zuno stops and reports the step limit.',
    minimum: 1,
    maximum: 1000,
  },
  'model.idle_timeout_ms': {
    description:
      'How long a model stream may send no complete event (after the request, or since the last one) before Zuno abandons it and retries. Raise it for a local model that is slow to start.',
    minimum: 1000,
    maximum: 3_600_000,
  },
  'model.context_window': {
    description:
      "The model's context window in tokens. `0` (default): ask the server (`/v1/models`, Ollama's `/api/show`, or VS Code's language model), then a table of well-known models, then assume 32,768 and say that it is a guess. Set it when a local server loads the model with a smaller context than the model supports.",
    minimum: 0,
    maximum: 10_000_000,
  },
  'model.max_output_tokens': {
    description:
      'The most tokens one answer may take. `0` (default): the provider decides (8,192 for Anthropic, more when thinking needs it). Zuno keeps this much of the context window free.',
    minimum: 0,
    maximum: 1_000_000,
  },
  'model.reasoning_effort': {
    description:
      "How hard a reasoning model thinks: sent as `reasoning_effort` to OpenAI-compatible servers, and as an extended-thinking budget to Anthropic (low 2,048, medium 8,192, high 24,576 tokens). Unset: the model's default.",
  },
  'model.images': {
    description:
      'Whether the model takes images (for example gpt-4o or Claude). On: images pasted into the chat are sent to it (OpenAI-compatible `image_url` data URLs, Anthropic image blocks). Off (default): a message with an image is refused before anything is sent, naming this setting. VS Code language models are sent text only.',
  },
  'model.prices': {
    description:
      'Prices in US dollars per million tokens, by model name, for the cost shown next to the token counts: `{"gpt-4o": {"input": 2.5, "output": 10, "cached_input": 1.25}}` (also `cache_write`). Zuno ships no prices; a model without an entry shows tokens only.',
    merge: 'by-key',
  },
  'memory.enabled': { description: 'Offers the memory_propose tool.' },
  'checkpoints.enabled': {
    description:
      'Takes a checkpoint of the workspace\'s files before the first change of each message (needs git on PATH), so "Restore files to before this message" can put them back. Restoring covers files only, not effects outside the workspace (a pushed commit, a sent request).',
  },
  'history.max_sessions': {
    description:
      'Keep at most this many sessions of a workspace, the new one included; the least recently updated are deleted each time a session starts. 0 keeps all.',
  },
  'history.max_age_days': { description: 'Delete past sessions not updated for this many days, each time a session starts. 0 keeps all.' },
  'council.members': { description: 'Council members for council_run: `[{"name": "critic", "model": "…", "persona": "…"}]`.' },
  agents: {
    description:
      'Named agents for delegation: `{"reviewer": {"description": "…", "tools": ["read", "grep"], "prompt": "…", "max_steps": 25}}`. An agent\'s `tools` list replaces the default surface (SPEC A1). Merged name by name with `.zuno/config.json`.',
    merge: 'by-key',
  },
  'mcp.servers': {
    description:
      'MCP servers by name: `{"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}}` (stdio: `command`, `args`, `env`, `cwd`) or `{"url": "https://…/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}}` (Streamable HTTP, falling back to SSE). Also `enabled`, `trust` (honour the server\'s annotations), `tools` (`{"<tool>": {"enabled": false, "declarations": {"effect": "ReadOnly"}}}`), `timeout_ms`, `startup_timeout_ms`. Tools are offered as `mcp__<server>__<tool>` and ask before running unless declared or trusted. Merged name by name with `.zuno/config.json`.',
    merge: 'by-key',
  },
  'mcp.max_offered_tools': {
    description:
      'How many tools one model request may carry, built-in ones included. MCP tools beyond it (or beyond `zuno.mcp.maxOfferedSchemaTokens`) are not sent with every request: the model finds them with `mcp_tools`, which enables them for the session.',
    minimum: 1,
    maximum: 1000,
  },
  'mcp.max_offered_schema_tokens': {
    description:
      'How many tokens the tool definitions of one model request may take (four characters a token). MCP tools beyond it are found through `mcp_tools` instead.',
    minimum: 1000,
    maximum: 1_000_000,
  },
};

type JsonNode = Record<string, unknown>;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The JSON Schema of the config, the input side (what a person writes). */
function configJsonSchema(): JsonNode {
  return z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' });
}

export interface SettingDefinition {
  /** The full setting id, e.g. `zuno.concurrency.toolCalls`. */
  readonly key: string;
  /** The config path, e.g. `['concurrency', 'tool_calls']`. */
  readonly path: readonly string[];
  readonly merge: MergeRule;
  readonly info: SettingInfo;
  /** The config JSON Schema of this leaf (items and enums come from here). */
  readonly schema: JsonNode;
  /** The value the schema gives when nothing is set; `undefined` for optional leaves. */
  readonly defaultValue: unknown;
}

const camelCase = (segment: string): string => segment.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());

export const settingKeyFor = (path: readonly string[]): string => [SETTINGS_PREFIX, ...path.map(camelCase)].join('.');

function valueAt(root: unknown, path: readonly string[]): unknown {
  let current = root;
  for (const segment of path) {
    if (!isRecord(current)) return undefined;
    current = current[segment];
  }
  return current;
}

/** Groups (objects with fixed `properties`) are walked; everything else is one setting. */
function collectLeaves(node: JsonNode, path: readonly string[], into: { path: string[]; schema: JsonNode }[]): void {
  const properties = node.properties;
  if (isRecord(properties)) {
    for (const [name, child] of Object.entries(properties)) {
      if (isRecord(child)) collectLeaves(child, [...path, name], into);
    }
    return;
  }
  into.push({ path: [...path], schema: node });
}

let definitionsCache: readonly SettingDefinition[] | undefined;

/**
 * Every setting, one per config leaf, in schema order. A leaf without a description here still
 * works (a placeholder is used, so a new config key cannot break activation), and the settings
 * unit test fails until it is described.
 */
export function settingDefinitions(): readonly SettingDefinition[] {
  if (definitionsCache) return definitionsCache;
  const defaults = parseConfig({});
  const leaves: { path: string[]; schema: JsonNode }[] = [];
  collectLeaves(configJsonSchema(), [], leaves);
  definitionsCache = leaves.map(({ path, schema }) => {
    const info = SETTING_INFO[path.join('.')] ?? { description: `The \`${path.join('.')}\` key of .zuno/config.json.` };
    return { key: settingKeyFor(path), path, merge: info.merge ?? 'replace', info, schema, defaultValue: valueAt(defaults, path) };
  });
  return definitionsCache;
}

/** The config paths that have a description, for the test that keeps the table and the schema in step. */
export const describedConfigPaths = (): readonly string[] => Object.keys(SETTING_INFO);

/** Removes what VS Code's settings schema does not use, and types integers the zod JSON Schema leaves untyped. */
function manifestSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(manifestSchema);
  if (!isRecord(node)) return node;
  const out: JsonNode = {};
  for (const [name, value] of Object.entries(node)) {
    if (name === '$schema' || name === 'propertyNames' || name === 'format') continue;
    out[name] = manifestSchema(value);
  }
  if (out.type === undefined && typeof out.default === 'number' && out.properties === undefined) out.type = 'integer';
  return out;
}

/**
 * `contributes.configuration` for package.json, generated from the schema plus the table above.
 * `scripts/contribute-settings.ts` writes it; a unit test fails when package.json drifts.
 */
export function contributedConfiguration(): { title: string; properties: Record<string, JsonNode> } {
  const properties: Record<string, JsonNode> = {};
  settingDefinitions().forEach((definition, index) => {
    const schema = manifestSchema(definition.schema) as JsonNode;
    delete schema.default;
    const entry: JsonNode = { ...schema };
    if (entry.type === undefined) entry.type = 'integer';
    if (definition.info.minimum !== undefined) entry.minimum = definition.info.minimum;
    if (definition.info.maximum !== undefined) entry.maximum = definition.info.maximum;
    if (definition.defaultValue !== undefined) entry.default = definition.defaultValue;
    else if (entry.type === 'string') {
      // An optional text setting is "" when unset (see settingsToConfigInput); an enum must list it.
      entry.default = '';
      if (Array.isArray(entry.enum)) entry.enum = ['', ...(entry.enum as unknown[])];
    }
    entry.markdownDescription = definition.info.description;
    if (definition.info.scope) entry.scope = definition.info.scope;
    entry.order = index;
    properties[definition.key] = entry;
  });
  properties[STATE_DIR_SETTING] = {
    type: 'string',
    default: '',
    markdownDescription:
      "A folder to keep every workspace's Zuno state in (sessions, outputs), each in its own `workspaces/<name>-<hash>` folder. Empty: `$XDG_STATE_HOME/zuno` (`~/.local/state/zuno`) on Linux, `~/Library/Application Support/Zuno` on macOS, `%LOCALAPPDATA%\\Zuno` on Windows, where `zuno exec` looks too. Machine scope: a workspace cannot choose where its record is kept. Takes effect after a window reload.",
    scope: 'machine',
    order: settingDefinitions().length,
  };
  return { title: 'Zuno', properties };
}

/**
 * Where state is kept is the editor's business, not the workspace's: `zuno.stateDir` is no key of
 * the config schema (so `.zuno/config.json` cannot set it) and has machine scope (so workspace
 * settings cannot), and the extension reads only its User value.
 */
export const STATE_DIR_SETTING = `${SETTINGS_PREFIX}.stateDir`;

/** The User value of `zuno.stateDir` as a folder: undefined when empty, `~` expanded; a relative path is refused. */
export function stateRootSetting(value: unknown, home: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string')
    throw new ConfigError(`${STATE_DIR_SETTING} (User settings) must be a folder path (got ${JSON.stringify(value)}).`);
  const expanded = value === '~' || value.startsWith('~/') || value.startsWith('~\\') ? join(home, value.slice(1)) : value;
  if (!isAbsolute(expanded)) {
    throw new ConfigError(
      `${STATE_DIR_SETTING} (User settings) must be an absolute folder path, such as ~/zuno-state (got "${value}"). Fix it in Settings, or clear it for the default.`,
    );
  }
  return expanded;
}

/** One source of config values, lowest precedence first when several are given. */
export type ConfigLayer =
  | {
      readonly kind: 'file';
      /** Named in error messages, e.g. `/repo/.zuno/config.json`. */
      readonly source: string;
      /** The parsed JSON, in the config file's shape. */
      readonly raw: unknown;
    }
  | {
      readonly kind: 'settings';
      /** Named in error messages, e.g. `Workspace settings`. */
      readonly source: string;
      /** Explicitly set values by full setting id (`inspect()`'s globalValue and the like, never defaults). */
      readonly values: Readonly<Record<string, unknown>>;
    };

function setAt(root: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let current = root;
  path.forEach((segment, index) => {
    if (index === path.length - 1) {
      current[segment] = value;
      return;
    }
    const next = current[segment];
    if (isRecord(next)) current = next;
    else {
      const created: Record<string, unknown> = {};
      current[segment] = created;
      current = created;
    }
  });
}

/**
 * The raw config a settings layer stands for. An empty string for an optional text setting
 * means "not set": that is what the Settings editor leaves behind when a field is cleared.
 */
export function settingsToConfigInput(values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const definition of settingDefinitions()) {
    const value = values[definition.key];
    if (value === undefined || value === null) continue;
    if (value === '' && definition.defaultValue === undefined) continue;
    setAt(raw, definition.path, value);
  }
  return raw;
}

/** `['permission', 'rules', 0, 'action']` → `zuno.permission.rules[0].action`. */
function settingNameForIssue(path: readonly PropertyKey[]): string {
  const textPath = path.map(String);
  const definition = settingDefinitions().find((candidate) => candidate.path.every((segment, index) => textPath[index] === segment));
  if (!definition) return `${SETTINGS_PREFIX}.${textPath.join('.')}`;
  const rest = path.slice(definition.path.length).map((segment) => (typeof segment === 'number' ? `[${segment}]` : `.${String(segment)}`));
  return definition.key + rest.join('');
}

/** Validates one settings layer alone, so each problem names the setting and where it is set. */
function settingsProblems(source: string, raw: unknown): string[] {
  const result = configSchema.safeParse(raw);
  if (result.success) return [];
  return result.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => `${settingNameForIssue([...issue.path, key])} (${source}) is not a known field`).join('\n');
    }
    return `${settingNameForIssue(issue.path)} (${source}) ${issue.message}`;
  });
}

function fileProblems(source: string, raw: unknown): string[] {
  try {
    parseConfig(raw, source);
    return [];
  } catch (error) {
    if (error instanceof ConfigError)
      return error.message
        .split('\n')
        .slice(1)
        .map((line) => `${line} (${source})`);
    throw error;
  }
}

function mergeValue(rule: MergeRule, lower: unknown, higher: unknown): unknown {
  if (lower === undefined) return higher;
  if (rule === 'by-key' && isRecord(lower) && isRecord(higher)) return { ...lower, ...higher };
  if (rule === 'concatenate' && Array.isArray(lower) && Array.isArray(higher)) return [...(lower as unknown[]), ...(higher as unknown[])];
  return higher;
}

export type ResolvedConfig =
  | { readonly ok: true; readonly config: ZunoConfig }
  | {
      readonly ok: false;
      /** Every problem, one per line, each naming the key and where it is set. */
      readonly message: string;
    };

/**
 * Combines the layers, lowest precedence first. The extension passes, in this order:
 * `.zuno/config.json`, User settings, Workspace settings, Workspace Folder settings; schema
 * defaults sit below all of them. Every layer is validated on its own first, so an error names
 * the key as it is written in that source; an invalid layer makes the whole config invalid
 * rather than being skipped, because skipping a malformed `deny` rule would loosen permissions.
 */
export function resolveConfig(layers: readonly ConfigLayer[]): ResolvedConfig {
  const problems: string[] = [];
  const raws = layers.map((layer) => {
    if (layer.kind === 'file') {
      problems.push(...fileProblems(layer.source, layer.raw));
      return layer.raw;
    }
    const raw = settingsToConfigInput(layer.values);
    problems.push(...settingsProblems(layer.source, raw));
    return raw;
  });
  if (problems.length > 0) return { ok: false, message: `Invalid Zuno configuration:\n${problems.join('\n')}` };
  const merged: Record<string, unknown> = {};
  for (const definition of settingDefinitions()) {
    let value: unknown;
    for (const raw of raws) {
      const layerValue = valueAt(raw, definition.path);
      if (layerValue !== undefined) value = mergeValue(definition.merge, value, layerValue);
    }
    if (value !== undefined) setAt(merged, definition.path, value);
  }
  try {
    return { ok: true, config: parseConfig(merged, 'merged configuration') };
  } catch (error) {
    if (error instanceof ConfigError) return { ok: false, message: error.message };
    throw error;
  }
}

/** The setting id for a config path written with dots, e.g. `permission.rules` → `zuno.permission.rules`. */
export function settingKeyForConfigPath(configPath: string): string {
  return settingKeyFor(configPath.split('.'));
}
