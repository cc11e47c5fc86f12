/**
 * `zuno exec`: the model from flags, the config file and the environment (in that order), the
 * approvals and questions from the terminal or --approve, one agent run, and its exit code.
 */
import { environmentPolicy, type EnvironmentPolicy } from '../core/environment';
import { ConfigError } from '../core/errors';
import type { ZunoEvent } from '../core/events';
import type { ApprovalGateway, QuestionGateway } from '../core/host';
import { createNodeHost } from '../hosts/node/host';
import { announceMigration, ensureStateDir } from '../store/relocate';
import { ANTHROPIC_BASE_URL } from '../agent/anthropic';
import { SessionNotFoundError, type AgentRunResult } from '../agent/loop';
import type { ApiKeySource } from '../agent/provider';
import { createProvider, createRuntime, modelTuning, type ProviderSettings, type Runtime } from '../agent/runtime';
import { modelSource } from '../agent/delegation';
import { isHttpUrl, UsageError, type ExecCommand } from './args';
import { withApprovedWorkspaceServers } from './mcp-command';
import { EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_TERMINATED, errorMessage, readStdin, type CliProcess } from './process';
import { fixedApprovals, noTerminalApprovals, terminalApprovals, terminalAskLine, terminalQuestions } from './prompts';
import { progressPrinter, UsageTally } from './progress';
import { loadConfig, resolveWorkspace, stateDirFor, type LoadedConfig } from './workspace';

/** `model.base_url` as written in the file, to tell a configured URL from the schema default. */
function configuredBaseUrl(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null || !('model' in raw)) return undefined;
  const model = raw.model;
  return typeof model === 'object' && model !== null && 'base_url' in model && typeof model.base_url === 'string'
    ? model.base_url
    : undefined;
}

/** Flags win, then the config file, then ZUNO_* variables, then the config default. */
function modelSettings(command: ExecCommand, loaded: LoadedConfig, env: CliProcess['env']): ProviderSettings {
  const provider = loaded.config.model.provider;
  // The schema's default base URL is a local OpenAI-compatible server; Anthropic has its own.
  const defaultBaseUrl = provider === 'anthropic' ? ANTHROPIC_BASE_URL : loaded.config.model.base_url;
  const baseUrl = command.baseUrl ?? configuredBaseUrl(loaded.raw) ?? env.ZUNO_BASE_URL ?? defaultBaseUrl;
  if (!isHttpUrl(baseUrl)) {
    throw new ConfigError(
      `The model base URL must be an http(s) URL such as http://127.0.0.1:11434/v1 (got "${baseUrl}"); check --base-url, model.base_url or ZUNO_BASE_URL.`,
    );
  }
  const model = command.model ?? loaded.config.model.name ?? env.ZUNO_MODEL;
  const keyVariable = command.apiKeyEnv ?? loaded.config.model.api_key_env;
  const apiKey: ApiKeySource = keyVariable
    ? { key: env[keyVariable] || undefined, envVar: keyVariable }
    : { key: env.ZUNO_API_KEY || undefined, envVar: env.ZUNO_API_KEY ? 'ZUNO_API_KEY' : undefined };
  return {
    provider,
    baseUrl,
    model,
    apiKey,
    retry: loaded.config.retry,
    idleTimeoutMs: loaded.config.model.idle_timeout_ms,
    ...modelTuning(loaded.config),
  };
}

export async function exec(command: ExecCommand, io: CliProcess): Promise<number> {
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
  const childPolicy = (): EnvironmentPolicy =>
    environmentPolicy(loaded.config, settings.apiKey.envVar !== undefined ? [settings.apiKey.envVar] : []);
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
  const print = command.json
    ? (event: ZunoEvent) => void io.stdout.write(`${JSON.stringify(event)}\n`)
    : progressPrinter(writeErr, new Set(migration ? [migration.notice, migration.warning ?? ''] : []));
  const stopPrinting = runtime.events.on(print);
  const usage = new UsageTally();
  const stopCounting = runtime.events.on((event) => usage.add(event));
  // The move is also told in the session itself (and to --json readers), once it has an id.
  const stopTelling = migration ? announceMigration(runtime.events, migration) : () => undefined;
  try {
    let result: AgentRunResult;
    try {
      result = await runtime.run({
        provider,
        prompt,
        signal: controller.signal,
        ...(command.session !== undefined ? { sessionId: command.session } : {}),
        ...(command.compact ? { compact: true } : {}),
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
