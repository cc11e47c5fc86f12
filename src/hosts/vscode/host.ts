/**
 * The Host inside the editor. The extension host is Node, so files, processes, spill files and
 * ripgrep are the node host's own pieces; what the editor adds is where people come in:
 * approvals and questions in the chat view, every command mirrored to the Zuno terminal, and
 * the language servers' answers for the lsp tool.
 */
import type { EnvironmentPolicy } from '../../core/environment';
import type { ApprovalGateway, Host, LanguageFeatures, QuestionGateway } from '../../core/host';
import { createNodeHost } from '../node/host';
import type { MirroredProcessRunner } from './terminal-mirror';

export interface VscodeHostOptions {
  readonly stateDir: string;
  readonly approvals: ApprovalGateway;
  readonly questions: QuestionGateway;
  /** Config `ripgrep.path`; ZUNO_RG_PATH still wins. */
  readonly ripgrepPath?: string;
  /** The lsp tool's answers, from the editor's language servers. */
  readonly languageFeatures: LanguageFeatures;
  /** Wraps the node process runner so each command shows in the Zuno terminal. */
  readonly mirror: (runner: Host['processes']) => MirroredProcessRunner;
  /** What commands and hooks inherit, read from the live config at each spawn. */
  readonly environmentPolicy: () => EnvironmentPolicy;
}

export function createVscodeHost(options: VscodeHostOptions): Host {
  const node = createNodeHost({
    stateDir: options.stateDir,
    approvals: options.approvals,
    questions: options.questions,
    environmentPolicy: options.environmentPolicy,
    ...(options.ripgrepPath ? { ripgrepPath: options.ripgrepPath } : {}),
  });
  return { ...node, kind: 'vscode', processes: options.mirror(node.processes), languageFeatures: options.languageFeatures };
}
