/**
 * Builds a ToolContext on the real node host, so tool tests go through the same host the CLI
 * uses: real files, real processes, the real rg.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig, type ZunoConfig, type ZunoConfigInput } from '../../src/core/config';
import type { ApprovalGateway, Host } from '../../src/core/host';
import { OutputCapture } from '../../src/core/output';
import { evaluatePermission, pathVisibility } from '../../src/core/policy';
import { completeDeclarations } from '../../src/core/declarations';
import { checkedPathsOf, type Tool, type ToolContext } from '../../src/core/tool';
import { createNodeHost } from '../../src/hosts/node/host';

export interface ToolContextOptions {
  readonly workspaceRoot: string;
  /** Raw config, validated like a config file; defaults apply. */
  readonly config?: ZunoConfigInput;
  /** Defaults to a node host whose state dir is `stateDir`. */
  readonly host?: Host;
  /** Where spill files go; defaults to `<workspaceRoot>/.zuno/state`, as in the CLI. */
  readonly stateDir?: string;
  readonly signal?: AbortSignal;
  readonly approvedEdits?: Readonly<Record<string, string>>;
  readonly callId?: string;
  /**
   * The tool the context is for, as the scheduler would know it: `visibility` is derived for it
   * (default read) and `authorize` applies its rules (default `test`).
   */
  readonly tool?: string;
  /** Replaces the recording of progress chunks (a test printing gigabytes should not keep them). */
  readonly progress?: (chunk: string) => void;
}

export interface TestToolContext extends ToolContext {
  /** Everything the tool sent to `progress`, in order. */
  readonly progressChunks: string[];
}

export const approveEverything: ApprovalGateway = { request: async () => ({ approved: true }) };

export function makeToolContext(options: ToolContextOptions): TestToolContext {
  const config: ZunoConfig = parseConfig(options.config ?? {});
  const stateDir = options.stateDir ?? join(options.workspaceRoot, '.zuno', 'state');
  const host = options.host ?? createNodeHost({ stateDir, approvals: approveEverything });
  const callId = options.callId ?? 'call-1';
  const progressChunks: string[] = [];
  return {
    host,
    config,
    workspaceRoot: options.workspaceRoot,
    // As the scheduler passes it on, so that the sandbox hides it (issue 12).
    ...(options.stateDir !== undefined ? { stateDir: options.stateDir } : {}),
    callId,
    sessionId: 'session-1',
    attempt: 1,
    signal: options.signal ?? new AbortController().signal,
    progress: options.progress ?? ((chunk) => progressChunks.push(chunk)),
    captureOutput: () =>
      new OutputCapture({ maxBytes: config.tool_output.max_bytes, maxLines: config.tool_output.max_lines }, () =>
        host.createSpill(`${callId}.txt`, config.tool_output.max_spill_bytes),
      ),
    // As the scheduler derives it; `tool` only matters for rules naming a tool other than read.
    visibility: pathVisibility({
      tool: options.tool ?? 'read',
      rules: config.permission.rules,
      workspaceRoot: realpathSync(options.workspaceRoot),
    }),
    ...(options.approvedEdits ? { approvedEdits: options.approvedEdits } : {}),
    // What the scheduler gives a running call, minus its declarations: tools tested here are read-only.
    authorize: async (subject) => {
      const decision = evaluatePermission({
        tool: options.tool ?? 'test',
        declarations: completeDeclarations({ effect: 'ReadOnly' }),
        subjects: [subject],
        permission: config.permission,
        workspaceRoot: options.workspaceRoot,
      });
      return { action: decision.action, reason: decision.reason, byNamingRule: decision.rule?.match !== undefined };
    },
    // A tool that needs checked paths gets them from `checkCall`, as the scheduler would give them.
    paths: new Map(),
    progressChunks,
  };
}

/** The policy refused the call: the scheduler would block it (`blocked: denied`) and never run it. */
export class PolicyRefusal extends Error {
  override readonly name = 'PolicyRefusal';
}

/**
 * What the scheduler does between validating a call and running it, for tests that run a tool
 * directly: resolve the call's subjects, evaluate the policy once on them, and hand the tool the
 * checked paths. A refused call throws a PolicyRefusal with the policy's reason; one the policy
 * asks about goes through, as if the user approved.
 */
export async function checkCall(tool: Tool, args: unknown, context: TestToolContext): Promise<TestToolContext> {
  const subjects = await tool.subjectsFor(args, context);
  const decision = evaluatePermission({
    tool: tool.name,
    declarations: tool.declarationsFor(args),
    subjects,
    permission: context.config.permission,
    workspaceRoot: realpathSync(context.workspaceRoot),
  });
  if (decision.action === 'deny') throw new PolicyRefusal(`Refused: ${decision.reason}.`);
  return { ...context, paths: checkedPathsOf(subjects) };
}

/** A fresh directory under the OS temp dir, symlinks resolved (macOS's /tmp is one). */
export function makeTempDir(prefix = 'zuno-test-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

export function removeDir(path: string): void {
  rmSync(path, { recursive: true, force: true });
}
