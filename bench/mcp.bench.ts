/**
 * MCP call overhead (issue 11, "Bench: overhead of an MCP call through Zuno against a direct SDK
 * call to the same server, same run"). Both sides call server-everything's `echo` over stdio, one
 * process each, warmed up first:
 * - baseline: the SDK's `Client.callTool` directly;
 * - Zuno: one scheduler turn of `mcp__everything__echo` (trusted, so no approval): preflight with
 *   ajv validation, the policy, the durable start record (an in-memory ledger here), the lock,
 *   the in-flight cap, the call, output capping and persistence.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parseConfig } from '../src/core/config';
import { EventBus } from '../src/core/events';
import { McpToolSource } from '../src/core/mcp';
import { ToolRegistry } from '../src/core/registry';
import { Scheduler } from '../src/core/scheduler';
import { createNodeHost } from '../src/hosts/node/host';
import { NodeMcpClients } from '../src/hosts/node/mcp';
import { createMcpPinStore } from '../src/hosts/node/mcp-pins';
import { MemoryLedger } from '../test/support/memory-ledger';
import type { BenchResult } from './run';

const CALLS = 200;
const server = {
  command: process.execPath,
  args: [join(__dirname, '..', 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
};

/** Median milliseconds of `CALLS` sequential calls, after 20 to warm up. */
async function median(call: (index: number) => Promise<void>): Promise<number> {
  for (let index = 0; index < 20; index++) await call(index);
  const times: number[] = [];
  for (let index = 0; index < CALLS; index++) {
    const start = performance.now();
    await call(index);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

export default async function bench(): Promise<BenchResult[]> {
  const root = mkdtempSync(join(tmpdir(), 'zuno-mcp-bench-'));
  const workspaceRoot = join(root, 'workspace');
  const stateDir = join(root, 'state');
  mkdirSync(workspaceRoot);
  mkdirSync(stateDir);
  const direct = new Client({ name: 'bench', version: '0' });
  await direct.connect(new StdioClientTransport({ ...server, stderr: 'ignore' }));
  const config = parseConfig({ mcp: { servers: { everything: { ...server, trust: true } } } });
  const clients = new NodeMcpClients({
    servers: config.mcp.servers,
    workspaceRoot,
    childEnvironment: () => ({ PATH: process.env.PATH ?? '' }),
    referenceEnvironment: process.env,
    maxInFlight: config.concurrency.mcp_connections,
    clientVersion: 'bench',
  });
  try {
    const registry = new ToolRegistry([], [new McpToolSource({ clients, servers: config.mcp.servers, pins: createMcpPinStore(stateDir) })]);
    await registry.prepare(new AbortController().signal, () => undefined);
    const env = {
      host: createNodeHost({ stateDir, approvals: { request: async () => ({ approved: false }) } }),
      config,
      workspaceRoot,
      stateDir,
    };
    const scheduler = new Scheduler({ registry, ledger: new MemoryLedger(), events: new EventBus(), env });
    const signal = new AbortController().signal;

    const baseline = await median(async (index) => {
      await direct.callTool({ name: 'echo', arguments: { message: `m${index}` } });
    });
    const zuno = await median(async (index) => {
      const [result] = await scheduler.runTurn(
        'bench',
        [{ id: `c${index}`, name: 'mcp__everything__echo', arguments: JSON.stringify({ message: `m${index}` }) }],
        { signal },
      );
      if (result?.outcome.kind !== 'ok') throw new Error(`the call did not succeed: ${result?.output ?? 'no result'}`);
    });
    return [
      {
        name: 'MCP echo call through the scheduler',
        value: zuno,
        unit: 'ms',
        baseline: { name: 'direct SDK callTool', value: baseline },
        detail: `median of ${CALLS} sequential calls over stdio`,
      },
    ];
  } finally {
    await direct.close();
    await clients.close();
    rmSync(root, { recursive: true, force: true });
  }
}
