/**
 * The workspace's `.vscode/mcp.json` and the user's decisions on its servers (issue 11; the rules
 * are in src/core/mcp-workspace.ts). The decisions live in `<stateDir>/mcp-workspace-servers.json`,
 * which is the user's, outside the workspace by default (issue 9), so a repository cannot ship its
 * own approval; the file is replaced atomically.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ZunoConfig } from '../../core/config';
import {
  parseWorkspaceMcpFile,
  WORKSPACE_MCP_FILE,
  workspaceMcpStanding,
  type WorkspaceMcpDecision,
  type WorkspaceMcpDecisions,
  type WorkspaceMcpFile,
  type WorkspaceMcpStanding,
} from '../../core/mcp-workspace';

export const WORKSPACE_DECISIONS_FILE = 'mcp-workspace-servers.json';

/** The file of `workspaceRoot`, or undefined when there is none. */
export function readWorkspaceMcpFile(workspaceRoot: string): WorkspaceMcpFile | undefined {
  let text: string;
  try {
    text = readFileSync(join(workspaceRoot, WORKSPACE_MCP_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return {
      servers: [],
      inputs: [],
      problems: [`${WORKSPACE_MCP_FILE} cannot be read (${error instanceof Error ? error.message : String(error)}).`],
    };
  }
  return parseWorkspaceMcpFile(text, { workspaceFolder: workspaceRoot, userHome: homedir() });
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export interface WorkspaceMcpDecisionStore {
  readonly path: string;
  /** A file that cannot be read counts as no decision: every server asks again (fail closed). */
  load(): { decisions: WorkspaceMcpDecisions; problem?: string };
  /** Records one decision, keeping the others. */
  decide(server: string, decision: WorkspaceMcpDecision): void;
}

export function createWorkspaceMcpDecisionStore(stateDir: string): WorkspaceMcpDecisionStore {
  const path = join(stateDir, WORKSPACE_DECISIONS_FILE);
  const load = (): { decisions: WorkspaceMcpDecisions; problem?: string } => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { decisions: {} };
      return { decisions: {}, problem: `${path} cannot be read (${error instanceof Error ? error.message : String(error)})` };
    }
    try {
      const document: unknown = JSON.parse(text);
      if (!isRecord(document) || !isRecord(document.servers)) throw new Error('it has no "servers" object');
      const decisions: Record<string, WorkspaceMcpDecision> = {};
      for (const [server, entry] of Object.entries(document.servers)) {
        if (!isRecord(entry) || typeof entry.hash !== 'string' || typeof entry.approved !== 'boolean') continue;
        decisions[server] = { hash: entry.hash, approved: entry.approved, trust: entry.trust === true };
      }
      return { decisions };
    } catch (error) {
      return {
        decisions: {},
        problem: `${path} is not valid (${error instanceof Error ? error.message : String(error)}); every server of ${WORKSPACE_MCP_FILE} asks again`,
      };
    }
  };
  return {
    path,
    load,
    decide(server, decision) {
      const servers = { ...load().decisions, [server]: decision };
      const temporary = `${path}.${process.pid}.tmp`;
      const descriptor = openSync(temporary, 'w', 0o600);
      try {
        writeSync(descriptor, `${JSON.stringify({ version: 1, servers }, null, 2)}\n`);
        fsyncSync(descriptor);
      } finally {
        closeSync(descriptor);
      }
      renameSync(temporary, path);
    },
  };
}

export interface WorkspaceMcp {
  readonly file: WorkspaceMcpFile;
  readonly standing: WorkspaceMcpStanding;
  /** What could not be used, from the file and from the decisions. */
  readonly problems: readonly string[];
}

/** The file of the workspace against the user's decisions; undefined when the workspace has none. */
export function loadWorkspaceMcp(workspaceRoot: string, stateDir: string, config: ZunoConfig): WorkspaceMcp | undefined {
  const file = readWorkspaceMcpFile(workspaceRoot);
  if (!file) return undefined;
  const loaded = createWorkspaceMcpDecisionStore(stateDir).load();
  return {
    file,
    standing: workspaceMcpStanding(file, loaded.decisions, config.mcp.servers),
    problems: [...file.problems, ...(loaded.problem !== undefined ? [loaded.problem] : [])],
  };
}
