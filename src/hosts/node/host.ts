/**
 * The Host for the CLI and the tests: the real file system, real processes, a fetch that checks
 * the address it connects to, and spill files under the state dir.
 */
import { DEFAULT_ENVIRONMENT_POLICY, filterEnvironment, type EnvironmentPolicy } from '../../core/environment';
import type { ApprovalGateway, Host, HostFetch, QuestionGateway, RipgrepBinary } from '../../core/host';
import type { SandboxSupport } from '../../core/sandbox';
import { createCheckedFetch } from './fetch';
import { createNodeFileSystem } from './fs';
import { createProcessRunner } from './processes';
import { createSandboxSupport } from './sandbox';
import { resolveRipgrep } from './ripgrep';
import { loadShellAnalyzer } from './shell-parser';
import { createSpill } from './spill';
import { createNodeWorkspaceTasks } from './tasks';
import { lookup } from 'node:dns/promises';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

export interface NodeHostOptions {
  /** Where spill files go (`<stateDir>/outputs/`). */
  readonly stateDir: string;
  readonly approvals: ApprovalGateway;
  /** Absent without a person to answer; the question tool is then not offered. */
  readonly questions?: QuestionGateway;
  /** Config `ripgrep.path`; `ZUNO_RG_PATH` still wins over it. */
  readonly ripgrepPath?: string;
  /** The user-level Zuno folder (user skills); `~/.zuno` when absent. */
  readonly userDirectory?: string;
  /** The user's Zuno config folder (the user's AGENTS.md); from XDG_CONFIG_HOME, else `~/.config/zuno`, when absent. */
  readonly userConfigDirectory?: string;
  /** Replaces the checked fetch (tests); it then does no address check of its own. */
  readonly fetch?: HostFetch;
  /** Replaces the system resolver for webfetch's checks and connections (tests: a name answering differently each time). */
  readonly resolveAddresses?: (hostname: string) => Promise<readonly string[]>;
  /**
   * Which variables commands, tasks and hooks inherit; read at each spawn, so a config change
   * counts at once. The default policy (secrets dropped) when absent.
   */
  readonly environmentPolicy?: () => EnvironmentPolicy;
  /** Replaces sandbox detection (tests: a PATH without bwrap). */
  readonly sandbox?: SandboxSupport;
}

/** `$XDG_CONFIG_HOME/zuno`; the XDG spec says a relative value is to be ignored, so `~/.config/zuno` then. */
export function defaultUserConfigDirectory(environment: Readonly<Record<string, string | undefined>>): string {
  const configured = environment.XDG_CONFIG_HOME;
  return join(configured !== undefined && isAbsolute(configured) ? configured : join(homedir(), '.config'), 'zuno');
}

export function createNodeHost(options: NodeHostOptions): Host {
  let ripgrep: Promise<RipgrepBinary> | undefined;
  const policy = options.environmentPolicy ?? (() => DEFAULT_ENVIRONMENT_POLICY);
  const environment = (): Record<string, string> => filterEnvironment(process.env, policy());
  const sandbox = options.sandbox ?? createSandboxSupport();
  const processes = createProcessRunner({ environment, sandbox });
  const resolveAddresses =
    options.resolveAddresses ??
    (async (hostname: string) => (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address));
  return {
    kind: 'node',
    fs: createNodeFileSystem(),
    processes,
    tasks: createNodeWorkspaceTasks(processes, environment),
    userDirectory: options.userDirectory ?? join(homedir(), '.zuno'),
    userConfigDirectory: options.userConfigDirectory ?? defaultUserConfigDirectory(process.env),
    approvals: options.approvals,
    ...(options.questions ? { questions: options.questions } : {}),
    fetch: options.fetch ?? createCheckedFetch(resolveAddresses),
    resolveAddresses,
    createSpill: (name, maxBytes) => createSpill(options.stateDir, name, maxBytes),
    sandbox,
    // Resolved once per host: every grep would otherwise pay for `rg --version`.
    ripgrep: () =>
      (ripgrep ??= resolveRipgrep({
        env: process.env,
        ...(options.ripgrepPath ? { configuredPath: options.ripgrepPath } : {}),
      })),
    shellAnalyzer: loadShellAnalyzer,
  };
}
