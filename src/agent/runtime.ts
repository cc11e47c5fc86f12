/**
 * Wiring shared by the CLI and the editor: store, host, registry, scheduler and event bus for
 * one workspace and state dir, plus the model provider chosen by config. The editor passes its
 * own Host (and its own provider for vscode.lm); everything else is the same code path.
 */
import type { McpServerConfig, ReasoningEffort, ZunoConfig } from '../core/config';
import { ConfigError } from '../core/errors';
import { EventBus, type ZunoEvent } from '../core/events';
import type { Host } from '../core/host';
import { ToolRegistry, type ToolRegistration } from '../core/registry';
import { AgentExclusivity, Scheduler } from '../core/scheduler';
import { BackgroundJobs } from '../core/background';
import { FairSharedLock } from '../core/lock';
import type { CallEnvironment } from '../core/tool';
import { environmentPolicy, filterEnvironment, type EnvironmentPolicy } from '../core/environment';
import { McpToolSource, type McpClients } from '../core/mcp';
import { NodeMcpClients, type McpInputSource } from '../hosts/node/mcp';
import { createMcpPinStore } from '../hosts/node/mcp-pins';
import { mcpReadTool, mcpResourcesTool } from '../tools/mcp_resources';
import { mcpToolsTool } from '../tools/mcp_tools';
import packageJson from '../../package.json';
import { Store } from '../store/store';
import { builtinToolRegistrations } from '../tools/index';
import { AnthropicProvider } from './anthropic';
import { OpenAIProvider } from './openai';
import type { ApiKeySource, ModelProvider } from './provider';
import { ChildAgents, type ModelSource } from './delegation';
import { ModelCouncil } from './council';
import { openCheckpoints, type RuntimeCheckpoints } from './checkpoints';
import { agentRunner, type AgentRequest, type AgentRunResult } from './loop';

export interface RuntimeOptions {
  readonly config: ZunoConfig;
  /** Absolute, symlinks resolved: tools check containment against it. */
  readonly workspaceRoot: string;
  readonly stateDir: string;
  readonly host: Host;
  /** The tools; the built-in set when absent. */
  readonly registrations?: readonly ToolRegistration[];
  /** Where sql-wasm.wasm is, when not beside the bundle. */
  readonly wasmPath?: string;
  /** Models for delegated agents and council members; without it `task` and `council_run` are unavailable. */
  readonly models?: ModelSource;
  /** Whether to take checkpoints, read at every turn (the editor's live setting); `config.checkpoints.enabled` when absent. */
  readonly checkpointsEnabled?: () => boolean;
  /** What stdio MCP servers inherit, as shell commands do; from the config when absent. */
  readonly environmentPolicy?: () => EnvironmentPolicy;
  /**
   * The MCP servers read live (the editor: settings plus approved `.vscode/mcp.json` servers);
   * MCP is then always wired, even with no server yet. `config.mcp.servers` when absent.
   */
  readonly mcpServers?: () => Readonly<Record<string, McpServerConfig>>;
  /** Where `${input:ID}` comes from (the editor's SecretStorage); the environment when absent. */
  readonly mcpInputs?: McpInputSource;
}

export interface Runtime {
  readonly config: ZunoConfig;
  readonly store: Store;
  readonly host: Host;
  readonly registry: ToolRegistry;
  readonly scheduler: Scheduler;
  readonly events: EventBus;
  readonly env: CallEnvironment;
  /** Background commands and delegations; killed when the runtime closes. */
  readonly background: BackgroundJobs;
  /**
   * A scheduler over another environment (the editor's, whose config is read live) with this
   * runtime's checkpoints and exclusivity, so no surface can run a turn without them.
   */
  schedulerFor(env: CallEnvironment): Scheduler;
  /** Checkpoints before each turn's first side effect, and the shadow repository rewinds use (issue 13). */
  readonly checkpoints: RuntimeCheckpoints;
  /** The MCP servers of `mcp.servers` (issue 11), started lazily; absent when none is configured. Stopped when the runtime closes. */
  readonly mcp?: McpClients;
  /** Runs the agent loop once against this runtime's store, scheduler, registry, environment and events. */
  run(request: AgentRequest): Promise<AgentRunResult>;
  /** Stops persisting events and closes the store (flushing it). */
  close(): Promise<void>;
}

/**
 * Streaming fragments are not persisted: the assistant message and the call row hold the full
 * text, and a row per token would make the store grow with the answer's length.
 */
const TRANSIENT_EVENTS: ReadonlySet<ZunoEvent['type']> = new Set(['assistant-delta', 'tool-call-output']);

/**
 * Checks ripgrep first (SPEC S4: a missing or old rg is a startup error, reported before any
 * model request), then opens the store, which takes the state dir's one-writer lock.
 */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { config, host, workspaceRoot } = options;
  await host.ripgrep();
  // history.max_sessions / max_age_days (issue 9): applied as each session is created, so it counts the new one.
  const store = await Store.open({
    stateDir: options.stateDir,
    retention: config.history,
    ...(options.wasmPath ? { wasmPath: options.wasmPath } : {}),
  });
  const events = new EventBus();
  const stopPersisting = events.on((event) => {
    if (!TRANSIENT_EVENTS.has(event.type)) store.recordEvent(event);
  });
  // Before each user turn's first side effect (issue 13); git is probed once here.
  const checkpoints = await openCheckpoints({
    stateDir: options.stateDir,
    workspaceRoot,
    events,
    enabled: options.checkpointsEnabled ?? (() => config.checkpoints.enabled),
    // Checkpoints follow their sessions' retention: a session gone from the store takes its checkpoints with it.
    kept: (sessionId) => store.getSession(sessionId) !== undefined,
  });
  const background = new BackgroundJobs({ host });
  // One runtime-wide mutex keeps the Exclusive calls of sibling agents apart (delegation).
  const exclusivity = new AgentExclusivity();
  const mcpServers = options.mcpServers ?? config.mcp.servers;
  const mcp = options.mcpServers !== undefined || Object.keys(config.mcp.servers).length > 0 ? createMcpClients(options) : undefined;
  const registry: ToolRegistry = new ToolRegistry(
    [
      ...(options.registrations ?? builtinToolRegistrations()),
      ...(mcp
        ? [
            { tool: mcpResourcesTool(mcp), defaultSurface: true },
            { tool: mcpReadTool(mcp), defaultSurface: true },
            { tool: mcpToolsTool((): ToolRegistry => registry), defaultSurface: true },
          ]
        : []),
    ],
    mcp ? [new McpToolSource({ clients: mcp, servers: mcpServers, pins: createMcpPinStore(options.stateDir) })] : [],
  );
  const base: CallEnvironment = {
    host,
    config,
    workspaceRoot,
    stateDir: options.stateDir,
    background,
    workState: store,
    history: store,
    ...(config.memory.enabled ? { memories: store } : {}),
  };
  const env: CallEnvironment = options.models
    ? {
        ...base,
        delegation: new ChildAgents({
          store,
          registry,
          events,
          env: base,
          models: options.models,
          slots: new FairSharedLock(config.concurrency.delegations),
          exclusivity,
          checkpoints: checkpoints.recorder,
        }),
        ...(config.council.members.length > 0
          ? {
              council: new ModelCouncil({
                members: config.council.members,
                models: options.models,
                concurrency: config.concurrency.delegations,
              }),
            }
          : {}),
      }
    : base;
  const schedulerFor = (over: CallEnvironment): Scheduler =>
    new Scheduler({ registry, ledger: store, events, env: over, exclusivity, checkpoints: checkpoints.recorder });
  const scheduler = schedulerFor(env);
  return {
    config,
    store,
    host,
    registry,
    scheduler,
    schedulerFor,
    events,
    env,
    background,
    checkpoints,
    ...(mcp ? { mcp } : {}),
    run: agentRunner({ store, scheduler, registry, env, events }),
    async close() {
      await background.dispose();
      await mcp?.close();
      checkpoints.close();
      stopPersisting();
      await store.close();
    },
  };
}

/** The SDK clients of `mcp.servers`; a stdio server inherits what shell commands inherit. */
export function createMcpClients(
  options: Pick<RuntimeOptions, 'config' | 'workspaceRoot' | 'environmentPolicy' | 'mcpServers' | 'mcpInputs'>,
): NodeMcpClients {
  const policy = options.environmentPolicy ?? (() => environmentPolicy(options.config));
  return new NodeMcpClients({
    servers: options.mcpServers ?? options.config.mcp.servers,
    ...(options.mcpInputs ? { inputs: options.mcpInputs } : {}),
    workspaceRoot: options.workspaceRoot,
    childEnvironment: () => filterEnvironment(process.env, policy()),
    referenceEnvironment: process.env,
    maxInFlight: options.config.concurrency.mcp_connections,
    clientVersion: packageJson.version,
  });
}

export interface ProviderSettings {
  readonly provider: ZunoConfig['model']['provider'];
  readonly baseUrl: string;
  readonly model: string | undefined;
  readonly apiKey: ApiKeySource;
  readonly retry: ZunoConfig['retry'];
  /** model.idle_timeout_ms; the provider's default when absent. */
  readonly idleTimeoutMs?: number;
  /** model.max_output_tokens, when not 0. */
  readonly maxOutputTokens?: number;
  readonly reasoningEffort?: ReasoningEffort;
  readonly fetch?: typeof fetch;
}

/** The answer-shaping settings of `model` (issue 10 item 4), with 0 and unset left out. */
export function modelTuning(config: ZunoConfig): Pick<ProviderSettings, 'maxOutputTokens' | 'reasoningEffort'> {
  const { max_output_tokens: maxOutputTokens, reasoning_effort: reasoningEffort } = config.model;
  return { ...(maxOutputTokens > 0 ? { maxOutputTokens } : {}), ...(reasoningEffort !== undefined ? { reasoningEffort } : {}) };
}

/** The HTTP provider for `model.provider`. vscode.lm lives in the editor host, which brings its own. */
export function createProvider(settings: ProviderSettings): ModelProvider {
  if (settings.provider === 'vscode-lm') {
    throw new ConfigError(
      'model.provider "vscode-lm" works only inside VS Code. For zuno exec, set model.provider to "openai" or "anthropic".',
    );
  }
  if (!settings.model) {
    throw new ConfigError('No model is set: pass --model NAME, set model.name in the config file, or set ZUNO_MODEL.');
  }
  const options = {
    baseUrl: settings.baseUrl,
    model: settings.model,
    apiKey: settings.apiKey,
    // A model request has no side effects: it is retried like a Safe tool.
    retry: { attempts: settings.retry.max_attempts, baseDelayMs: settings.retry.base_delay_ms },
    ...(settings.idleTimeoutMs !== undefined ? { idleTimeoutMs: settings.idleTimeoutMs } : {}),
    ...(settings.maxOutputTokens !== undefined ? { maxOutputTokens: settings.maxOutputTokens } : {}),
    ...(settings.reasoningEffort !== undefined ? { reasoningEffort: settings.reasoningEffort } : {}),
    ...(settings.fetch ? { fetch: settings.fetch } : {}),
  };
  return settings.provider === 'anthropic' ? new AnthropicProvider(options) : new OpenAIProvider(options);
}
