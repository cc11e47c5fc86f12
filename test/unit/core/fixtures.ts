/**
 * Shared pieces for the core tests: a real node Host over a temporary state dir, with scripted
 * approvals (the one part a test cannot make real: a person's decision).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { parseConfig, type ZunoConfigInput } from '../../../src/core/config';
import type { ApprovalDecision, ApprovalGateway, ApprovalRequest, Host } from '../../../src/core/host';
import type { CallEnvironment } from '../../../src/core/tool';
import { createNodeHost } from '../../../src/hosts/node/host';

export class ScriptedApprovals implements ApprovalGateway {
  readonly requests: ApprovalRequest[] = [];

  constructor(
    private readonly decide: (request: ApprovalRequest, signal: AbortSignal) => ApprovalDecision | Promise<ApprovalDecision> = () => ({
      approved: true,
    }),
  ) {}

  async request(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    this.requests.push(request);
    return this.decide(request, signal);
  }
}

/** A fresh directory removed when the test file ends. */
export function temporaryDirectory(prefix = 'zuno-core-'): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

export interface TestEnvironment extends CallEnvironment {
  readonly host: Host;
  readonly approvals: ScriptedApprovals;
  readonly stateDir: string;
}

export function testEnvironment(config: ZunoConfigInput = {}, approvals = new ScriptedApprovals()): TestEnvironment {
  const root = temporaryDirectory();
  const workspaceRoot = join(root, 'workspace');
  const stateDir = join(root, 'state');
  mkdirSync(workspaceRoot);
  const host = createNodeHost({ stateDir, approvals });
  return { host, config: parseConfig(config), workspaceRoot, approvals, stateDir };
}
