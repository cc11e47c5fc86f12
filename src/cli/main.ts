/**
 * `zuno exec` and `zuno show`: resolve the workspace, config, state dir and model from flags,
 * the config file and the environment (in that order), run the agent, and map the outcome to
 * the documented exit codes: 0 finished, 1 provider failure, 2 usage/config/startup error,
 * 130 interrupted.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseConfig, type ZunoConfig } from '../core/config';
import { environmentPolicy, type EnvironmentPolicy } from '../core/environment';
import { ConfigError, StartupError } from '../core/errors';
import type { ZunoEvent } from '../core/events';
import type { ApprovalGateway, QuestionGateway } from '../core/host';
import { createNodeHost } from '../hosts/node/host';
import { announceMigration, ensureStateDir, prepareStateDir, type MigrationResult } from '../store/relocate';
import { Store, type CallRow } from '../store/store';
import { ANTHROPIC_BASE_URL } from '../agent/anthropic';
import { isHttpUrl, parseCommandLine, UsageError, USAGE, type ExecCommand, type McpCommand, type MemoryCommand, type ShowCommand } from './args';
import { runMcpCommand, withApprovedWorkspaceServers } from './mcp-command';
import { formatTodos } from '../tools/todo';
import { fixedApprovals, noTerminalApprovals, terminalApprovals, terminalAskLine, terminalQuestions } from './prompts';
import { INSTRUCTIONS_NOTICE_PREFIX } from '../agent/project-context';
import { runAgent, SessionNotFoundError, type AgentRunResult } from '../agent/loop';
import type { ApiKeySource } from '../agent/provider';
import { createProvider, createRuntime, type ProviderSettings, type Runtime } from '../agent/runtime';
import { modelSource } from '../agent/delegation';
import { listCheckpoints, rewind } from './checkpoints-command';
import packageJson from '../../package.json';

export const EXIT_OK = 0;
/** A model provider failure, or a failure during the run. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERRUPTED = 130;
export const EXIT_TERMINATED = 143;

/** The process as the CLI sees it, passed in rather than read from globals. */
export interface CliProcess {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  /** Registers a handler for SIGINT/SIGTERM; returns a function that removes it. */
  readonly onSignal: (handler: (signal: 'SIGINT' | 'SIGTERM') => void) => () => void;
  /** Ends the process at once (a second interrupt). */
  readonly exit: (code: number) => never;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function readStdin(stream: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolvePrompt, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolvePrompt(Buffer.concat(chunks).toString('utf8')));
    stream.on('error', reject);
  });
}

export function resolveWorkspace(flag: string | undefined, cwd: string): string {
  const path = resolve(cwd, flag ?? '.');
  if (!existsSync(path) || !statSync(path).isDirectory()) {
    throw new StartupError(`The workspace ${path} is not a directory. Pass an existing directory with --workspace DIR.`);
  }
  // Tools check containment against real paths, so the root must be one too.
  return realpathSync(path);
}

interface LoadedConfig {
  readonly config: ZunoConfig;
  /** The file as written, to tell a value that was set from a default. */
  readonly raw: unknown;
}

function loadConfig(flag: string | undefined, workspace: string, cwd: string): LoadedConfig {
  const path = flag !== undefined ? resolve(cwd, flag) : join(workspace, '.zuno', 'config.json');
  if (!existsSync(path)) {
    if (flag !== undefined) throw new StartupError(`The config file ${path} does not exist. Check the path given with --config.`);
    return { config: parseConfig({}), raw: {} };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`Invalid config ${path}: it is not valid JSON (${errorMessage(error)}).`);
  }
  return { config: parseConfig(raw, `config ${path}`), raw };
}

/** `model.base_url` as written in the file, to tell a configured URL from the schema default. */
function configuredBaseUrl(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null || !('model' in raw)) return undefined;
  const model = raw.model;
  return typeof model === 'object' && model !== null && 'base_url' in model && typeof model.base_url === 'string' ? model.base_url : undefined;
}

/** Flags win, then the config file, then ZUNO_* variables, then the config default. */
function modelSettings(command: ExecCommand, loaded: LoadedConfig, env: CliProcess['env']): ProviderSettings {
  const provider = loaded.config.model.provider;
  // The schema's default base URL is a local OpenAI-compatible server; Anthropic has its own.
  const defaultBaseUrl = provider === 'anthropic' ? ANTHROPIC_BASE_URL : loaded.config.model.base_url;
  const baseUrl = command.baseUrl ?? configuredBaseUrl(loaded.raw) ?? env.ZUNO_BASE_URL ?? defaultBaseUrl;
  if (!isHttpUrl(baseUrl)) {
    throw new ConfigError(`The model base URL must be an http(s) URL such as http://127.0.0.1:11434/v1 (got "${baseUrl}"); check --base-url, model.base_url or ZUNO_BASE_URL.`);
  }
  const model = command.model ?? loaded.config.model.name ?? env.ZUNO_MODEL;
  const keyVariable = command.apiKeyEnv ?? loaded.config.model.api_key_env;
  const apiKey: ApiKeySource = keyVariable
    ? { key: env[keyVariable] || undefined, envVar: keyVariable }
    : { key: env.ZUNO_API_KEY || undefined, envVar: env.ZUNO_API_KEY ? 'ZUNO_API_KEY' : undefined };
  return { provider, baseUrl, model, apiKey, retry: loaded.config.retry, idleTimeoutMs: loaded.config.model.idle_timeout_ms };
}

/** Human-readable progress on stderr, for runs without --json; `told` are notices already written there. */
function progressPrinter(write: (text: string) => void, told: ReadonlySet<string> = new Set()): (event: ZunoEvent) => void {
  const clip = (text: string, max = 160): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
  let lastNotice = '';
  return (event) => {
    switch (event.type) {
      case 'session-started':
        write(`zuno: session ${event.session_id}${event.resumed ? ' (resumed)' : ''} in ${event.workspace ?? ''}\n`);
        break;
      case 'tool-call-requested':
        write(`→ ${event.tool} ${clip(event.arguments.replace(/\s+/g, ' '))}\n`);
        break;
      case 'dispatch-blocked':
        write(`  blocked (${event.category}): ${clip(event.reason, 400)}\n`);
        break;
      case 'tool-call-finished':
        write(`  ${event.tool} ${event.call_id}: ${event.outcome}${event.category ? ` (${event.category})` : ''}, ${event.duration_ms} ms${event.truncated ? ', output truncated' : ''}\n`);
        break;
      case 'recovery-notice':
        if (event.text !== lastNotice) write(`${event.text}\n`);
        lastNotice = event.text;
        break;
      case 'notice':
        if (!told.has(event.text)) write(`[${event.level}] ${event.text}\n`);
        break;
      case 'session-finished':
        // An error's message is printed once, by exec, in both output modes.
        if ((event.reason === 'step-limit' || event.reason === 'cancelled') && event.message) write(`zuno: ${event.message}\n`);
        break;
      default:
        break;
    }
  };
}

/** Adds up a run's usage events for the line printed when it ends. */
export class UsageTally {
  private requests = 0;
  private input = 0;
  private output = 0;
  private cached = 0;
  private estimated = false;
  private last: Extract<ZunoEvent, { type: 'usage' }> | undefined;

  add(event: ZunoEvent): void {
    if (event.type !== 'usage') return;
    this.requests++;
    this.input += event.input_tokens;
    this.output += event.output_tokens;
    this.cached += event.cached_tokens ?? 0;
    this.estimated ||= event.estimated === true;
    this.last = event;
  }

  /** E.g. `zuno: usage: 3 model requests, 4,210 input tokens (1,024 cached), 96 output; context 1,530 of 32,768 tokens (a guess)`. */
  line(): string | undefined {
    const last = this.last;
    if (!last) return undefined;
    const number = (value: number): string => value.toLocaleString('en-US');
    const cached = this.cached > 0 ? ` (${number(this.cached)} cached)` : '';
    const estimated = this.estimated ? ', estimated where the server reported none' : '';
    const window =
      last.context_window !== undefined
        ? `; context ${number(last.input_tokens + last.output_tokens)} of ${number(last.context_window)} tokens${last.context_window_source === 'default' ? ' (a guess; set model.context_window)' : ''}`
        : '';
    const requests = `${this.requests} model request${this.requests === 1 ? '' : 's'}`;
    return `zuno: usage: ${requests}, ${number(this.input)} input tokens${cached}, ${number(this.output)} output${estimated}${window}\n`;
  }
}

/**
 * `--state-dir`, else the per-user directory of this workspace (issue 9), which the editor finds
 * too. The first open moves an old `<workspace>/.zuno/state` there and says so on stderr.
 */
export async function stateDirFor(flag: string | undefined, workspace: string, io: CliProcess): Promise<{ stateDir: string; migration?: MigrationResult }> {
  const prepared = await prepareStateDir({ workspaceRoot: workspace, env: io.env, ...(flag !== undefined ? { explicit: resolve(io.cwd, flag) } : {}) });
  if (prepared.migration) {
    io.stderr.write(`zuno: ${prepared.migration.notice}\n`);
    if (prepared.migration.warning) io.stderr.write(`zuno: ${prepared.migration.warning}\n`);
  }
  return prepared;
}

async function exec(command: ExecCommand, io: CliProcess): Promise<number> {
  const workspace = resolveWorkspace(command.workspace, io.cwd);
  const loaded = loadConfig(command.config, workspace, io.cwd);
  const prepared = await stateDirFor(command.stateDir, workspace, io);
  const migration = prepared.migration;
  const stateDir = ensureStateDir(prepared.stateDir);
  const settings = modelSettings(command, loaded, io.env);
  const provider = createProvider(settings);
  const prompt = command.prompt === '-' ? (await readStdin(io.stdin)).trim() : command.prompt;
  if (prompt === '') throw new UsageError('The prompt is empty.');

  const controller = new AbortController();
  const interactive = Boolean(io.stdin.isTTY && io.stderr.isTTY) && command.prompt !== '-';
  const writeErr = (text: string): void => void io.stderr.write(text);
  const ask = terminalAskLine(io.stdin, io.stderr, () => controller.abort());
  const approvals: ApprovalGateway = command.approve
    ? fixedApprovals(command.approve)
    : interactive
      ? terminalApprovals(ask, writeErr)
      : noTerminalApprovals();
  const questions: QuestionGateway | undefined = interactive ? terminalQuestions(ask, writeErr) : undefined;
  // The variable the key came from (--api-key-env) is dropped from commands like the known ones.
  const childPolicy = (): EnvironmentPolicy => environmentPolicy(loaded.config, settings.apiKey.envVar !== undefined ? [settings.apiKey.envVar] : []);
  const host = createNodeHost({
    stateDir,
    approvals,
    ...(questions ? { questions } : {}),
    ...(loaded.config.ripgrep.path ? { ripgrepPath: loaded.config.ripgrep.path } : {}),
    environmentPolicy: childPolicy,
  });

  const runtime: Runtime = await createRuntime({
    // With the approved servers of .vscode/mcp.json; the others are named on stderr, not started (issue 11).
    config: withApprovedWorkspaceServers(loaded.config, workspace, stateDir, writeErr),
    workspaceRoot: workspace,
    stateDir,
    host,
    // Delegated agents and council members may name another model on the same server.
    models: modelSource(provider, (model) => createProvider({ ...settings, model })),
    environmentPolicy: childPolicy,
  });
  let interrupted: 'SIGINT' | 'SIGTERM' | undefined;
  const stopListening = io.onSignal((signal) => {
    if (interrupted) {
      // A second interrupt: the user does not want to wait for a clean stop.
      io.stderr.write('zuno: interrupted again, exiting without waiting.\n');
      io.exit(EXIT_INTERRUPTED);
    }
    interrupted = signal;
    controller.abort();
  });
  const print = command.json ? (event: ZunoEvent) => void io.stdout.write(`${JSON.stringify(event)}\n`) : progressPrinter(writeErr, new Set(migration ? [migration.notice, migration.warning ?? ''] : []));
  const stopPrinting = runtime.events.on(print);
  const usage = new UsageTally();
  const stopCounting = runtime.events.on((event) => usage.add(event));
  // The move is also told in the session itself (and to --json readers), once it has an id.
  const stopTelling = migration ? announceMigration(runtime.events, migration) : () => undefined;
  try {
    let result: AgentRunResult;
    try {
      result = await runAgent({
        store: runtime.store,
        provider,
        scheduler: runtime.scheduler,
        registry: runtime.registry,
        env: runtime.env,
        events: runtime.events,
        prompt,
        signal: controller.signal,
        ...(command.session !== undefined ? { sessionId: command.session } : {}),
      });
    } catch (error) {
      if (error instanceof SessionNotFoundError) throw error;
      io.stderr.write(`zuno: the run failed: ${errorMessage(error)}\n`);
      return EXIT_FAILURE;
    }
    if (!command.json && result.text) io.stdout.write(result.text.endsWith('\n') ? result.text : `${result.text}\n`);
    // On stderr in both modes: stdout stays the answer (text) or pure JSON lines, whose usage events carry the same counts.
    const usageLine = usage.line();
    if (usageLine) io.stderr.write(usageLine);
    if (result.reason === 'cancelled') return interrupted === 'SIGTERM' ? EXIT_TERMINATED : EXIT_INTERRUPTED;
    if (result.reason === 'error') {
      io.stderr.write(`zuno: ${result.error?.message ?? 'the run failed'}\n`);
      return EXIT_FAILURE;
    }
    return EXIT_OK;
  } finally {
    stopListening();
    stopPrinting();
    stopCounting();
    stopTelling();
    await runtime.close();
  }
}

function callJson(store: Store, call: CallRow): Record<string, unknown> {
  let parsedArguments: unknown = call.argumentsJson;
  try {
    parsedArguments = JSON.parse(call.argumentsJson);
  } catch {
    // Malformed arguments are shown as the model sent them.
  }
  return {
    call_id: call.callId,
    tool: call.tool,
    arguments: parsedArguments,
    effect: call.effect,
    replay: call.replay,
    concurrency: call.concurrency,
    outcome: call.status,
    category: call.category ?? null,
    attempt: call.attempt,
    started_at: call.startedAt,
    finished_at: call.finishedAt ?? null,
    duration_ms: call.durationMs ?? null,
    truncated: call.truncated,
    parent_call_id: call.parentCallId ?? null,
    output: call.output ?? null,
    attempts: store.callAttempts(call.sessionId, call.callId).map((attempt) => ({
      attempt: attempt.attempt,
      outcome: attempt.status,
      started_at: attempt.startedAt,
      finished_at: attempt.finishedAt ?? null,
    })),
  };
}

async function show(command: ShowCommand, io: CliProcess): Promise<number> {
  const workspace = resolveWorkspace(command.workspace, io.cwd);
  const { stateDir } = await stateDirFor(command.stateDir, workspace, io);
  const store = await Store.open({ stateDir, readOnly: true, onWarning: (message) => void io.stderr.write(`zuno: ${message}\n`) });
  try {
    const session = store.getSession(command.sessionId);
    if (!session) {
      throw new SessionNotFoundError(`There is no session "${command.sessionId}" in ${stateDir}. Pass the --state-dir (or --workspace) that holds it.`);
    }
    const calls = store.calls(session.id).map((call) => callJson(store, call));
    // What each run loaded into its system prompt, from the session-start notices (issue 10 item 3).
    const instructions = store
      .events(session.id)
      .flatMap((event) => (event.type === 'notice' && event.text.startsWith(INSTRUCTIONS_NOTICE_PREFIX) ? [event.text.slice(INSTRUCTIONS_NOTICE_PREFIX.length)] : []));
    if (command.json) {
      const document = {
        session: {
          id: session.id,
          workspace: session.workspace,
          title: session.title ?? null,
          status: session.status,
          created_at: session.createdAt,
          updated_at: session.updatedAt,
        },
        calls,
        instructions,
        work_state: { plan: store.getPlan(session.id) ?? null, todos: store.getTodos(session.id), goal: store.getGoal(session.id) ?? null },
        messages: store.messages(session.id),
        events: store.events(session.id),
      };
      io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    } else {
      io.stdout.write(`session ${session.id} (${session.status}) in ${session.workspace}\n`);
      for (const loaded of instructions) io.stdout.write(`instructions: ${loaded}\n`);
      for (const call of store.calls(session.id)) {
        const category = call.category ? ` (${call.category})` : '';
        io.stdout.write(`  ${call.callId}  ${call.tool}  ${call.status}${category}  attempt ${call.attempt}  ${new Date(call.startedAt).toISOString()}\n`);
      }
      const goal = store.getGoal(session.id);
      if (goal) io.stdout.write(`goal (${goal.status}): ${goal.text}\n`);
      const plan = store.getPlan(session.id);
      if (plan) io.stdout.write(`plan:\n${plan.replace(/^/gm, '  ')}\n`);
      const todos = store.getTodos(session.id);
      if (todos.length > 0) io.stdout.write(`todos:\n${formatTodos(todos).replace(/^/gm, '  ')}\n`);
    }
    return EXIT_OK;
  } finally {
    await store.close();
  }
}

/** `zuno memory`: the user's side of memory_propose. It writes, so it takes the state dir's lock. */
async function memory(command: MemoryCommand, io: CliProcess): Promise<number> {
  const workspace = resolveWorkspace(command.workspace, io.cwd);
  const { stateDir } = await stateDirFor(command.stateDir, workspace, io);
  const store = await Store.open({ stateDir, readOnly: command.action === 'list', onWarning: (message) => void io.stderr.write(`zuno: ${message}\n`) });
  try {
    if (command.action === 'list') {
      const memories = store.listMemories();
      if (command.json) io.stdout.write(`${JSON.stringify(memories, null, 2)}\n`);
      else if (memories.length === 0) io.stdout.write('No memories yet. With "memory": {"enabled": true}, the agent can propose some.\n');
      else for (const entry of memories) io.stdout.write(`${entry.id}  ${entry.status}  ${entry.text}\n`);
      return EXIT_OK;
    }
    const id = command.memoryId ?? '';
    if (command.action === 'accept') {
      const accepted = store.acceptMemory(id);
      io.stdout.write(command.json ? `${JSON.stringify(accepted)}\n` : `accepted ${accepted.id}: ${accepted.text}\n`);
    } else {
      store.deleteMemory(id);
      io.stdout.write(command.json ? `${JSON.stringify({ id, deleted: true })}\n` : `deleted ${id}\n`);
    }
    return EXIT_OK;
  } finally {
    await store.close();
  }
}

/** `zuno mcp`: src/cli/mcp-command.ts, with the workspace, config and state dir resolved as for exec. */
async function mcp(command: McpCommand, io: CliProcess): Promise<number> {
  const workspace = resolveWorkspace(command.workspace, io.cwd);
  const { config } = loadConfig(command.config, workspace, io.cwd);
  const { stateDir } = await stateDirFor(command.stateDir, workspace, io);
  return runMcpCommand({
    action: command.action,
    server: command.server,
    tool: command.tool,
    json: command.json,
    config,
    workspaceRoot: workspace,
    stateDir: ensureStateDir(stateDir),
    write: (text) => void io.stdout.write(text),
    warn: (text) => void io.stderr.write(text),
  });
}

/** Runs one command line and returns the exit code. Never throws. */
export async function runCli(io: CliProcess): Promise<number> {
  try {
    const command = parseCommandLine(io.argv);
    switch (command.command) {
      case 'help':
        io.stdout.write(`${USAGE}\n`);
        return EXIT_OK;
      case 'version':
        io.stdout.write(`zuno ${packageJson.version}\n`);
        return EXIT_OK;
      case 'exec':
        return await exec(command, io);
      case 'show':
        return await show(command, io);
      case 'memory':
        return await memory(command, io);
      case 'mcp':
        return await mcp(command, io);
      case 'checkpoints':
        return await listCheckpoints(command, io);
      case 'rewind':
        return await rewind(command, io);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`zuno: ${error.message}\n\n${USAGE}\n`);
      return EXIT_USAGE;
    }
    // Everything that fails before the model is asked (config, ripgrep, store, session lookup) is exit 2.
    io.stderr.write(`zuno: ${errorMessage(error)}\n`);
    return EXIT_USAGE;
  }
}
