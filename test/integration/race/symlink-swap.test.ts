// The symlink-swap race of issue 8 item 4, with real parts: a swapper process renames
// `ws/dir` back and forth between the real folder and a symlink to `../outside`, while write,
// apply_patch, read, grep and glob calls go through the real scheduler, tools and node host against
// `dir/...` and `dir`. Nothing outside may be created, changed, read or listed, whoever wins each race.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../../../src/core/config';
import { EventBus } from '../../../src/core/events';
import { ToolRegistry } from '../../../src/core/registry';
import { Scheduler, type ToolCallRequest, type ToolCallResult } from '../../../src/core/scheduler';
import { createNodeHost } from '../../../src/hosts/node/host';
import { applyPatchTool } from '../../../src/tools/apply_patch';
import { readTool } from '../../../src/tools/read';
import { writeTool } from '../../../src/tools/write';
import { globTool } from '../../../src/tools/glob';
import { grepTool } from '../../../src/tools/grep';
import { MemoryLedger } from '../../support/memory-ledger';
import { makeTempDir, removeDir } from '../../support/tool-context';
import { OUTSIDE_ONLY, OUTSIDE_SECRET, plantRaceTree, snapshot, startSwapper } from '../../support/race-tree';

const SWAPS = 10_000;
/** The swapper stops by itself at this deadline even on a starved machine. */
const DEADLINE_MS = 40_000;

/** Why a call's result is acceptable under the race, or undefined when it is not. */
function verdict(result: ToolCallResult): string | undefined {
  if (result.output.includes(OUTSIDE_SECRET) || result.output.includes(OUTSIDE_ONLY)) return undefined;
  if (result.outcome.kind === 'ok') return 'ok';
  // Resolved while `dir` led outside: the policy refused it before it ran.
  if (result.outcome.kind === 'blocked' && result.outcome.category === 'denied' && /outside the workspace/.test(result.output))
    return 'refused by the policy';
  if (result.outcome.kind !== 'error') return undefined;
  // Checked inside, then swapped before the host opened it.
  if (/changed while the call ran \(a symlink now leads outside the workspace.*nothing was (written|read)/.test(result.output))
    return 'refused by the host';
  // Caught in the instant between two renames, when `dir` does not exist at all.
  if (/does not exist|no such file|ENOENT/i.test(result.output)) return 'dir missing mid-swap';
  return undefined;
}

test(
  '§9 E1: a process swapping a folder for a symlink out of the workspace wins no write, patch, read, grep or glob: 10,000 swaps, 0 escapes (issue 8 item 4)',
  { timeout: 90_000 },
  async (t) => {
    const base = makeTempDir('zuno-race-');
    t.after(() => removeDir(base));
    const { workspace, outside } = plantRaceTree(base);
    const outsideBefore = snapshot(outside);

    const host = createNodeHost({
      stateDir: join(base, 'state'),
      approvals: { request: async () => ({ approved: false, reason: 'auto mode needs no approval here' }) },
    });
    const scheduler = new Scheduler({
      registry: new ToolRegistry([writeTool, applyPatchTool, readTool, grepTool, globTool].map((tool) => ({ tool, defaultSurface: true }))),
      ledger: new MemoryLedger(),
      events: new EventBus(),
      env: { host, config: parseConfig({ permission: { mode: 'auto' } }), workspaceRoot: workspace },
    });

    const swapper = startSwapper(workspace, SWAPS, DEADLINE_MS);
    t.after(swapper.kill);
    // The swapper's first rename, so calls start racing at once.
    while (swapper.running() && lstatSync(join(workspace, 'dir.link'), { throwIfNoEntry: false }) === undefined)
      await new Promise((resolve) => setTimeout(resolve, 5));

    const counts = new Map<string, number>();
    const unacceptable: string[] = [];
    for (let turn = 0; swapper.running(); turn++) {
      const calls: ToolCallRequest[] = [
        { id: `w${turn}`, name: 'write', arguments: JSON.stringify({ path: `dir/w-${turn}.txt`, content: `written ${turn}\n` }) },
        {
          id: `p${turn}`,
          name: 'apply_patch',
          arguments: JSON.stringify({ patch: `*** Begin Patch\n*** Update File: dir/p.txt\n+appended ${turn}\n*** End Patch` }),
        },
        { id: `r${turn}`, name: 'read', arguments: JSON.stringify({ path: 'dir/secret.txt' }) },
        { id: `l${turn}`, name: 'read', arguments: JSON.stringify({ path: 'dir' }) },
        // rg is started in the checked folder itself, not by its name (issue 8 item 4).
        { id: `g${turn}`, name: 'grep', arguments: JSON.stringify({ pattern: 'SECRET|inside', path: 'dir' }) },
        { id: `f${turn}`, name: 'glob', arguments: JSON.stringify({ pattern: '*', path: 'dir' }) },
      ];
      for (const result of await scheduler.runTurn('race', calls, { signal: new AbortController().signal })) {
        const why = verdict(result);
        if (why === undefined) unacceptable.push(`${result.tool} ${result.callId}: ${result.outcome.kind}: ${result.output.slice(0, 300)}`);
        const key = `${result.tool}: ${why ?? 'UNACCEPTABLE'}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
    const { code, swaps } = await swapper.finished;
    assert.equal(code, 0, 'the swapper ended cleanly');
    t.diagnostic(`${swaps} swaps; outcomes: ${JSON.stringify(Object.fromEntries([...counts].sort()))}`);

    assert.deepEqual(unacceptable, []);
    assert.deepEqual(snapshot(outside), outsideBefore, 'nothing outside was created or changed');
    assert.equal(swaps, SWAPS, 'every swap happened before the deadline');
    // The race was real: calls ran while `dir` kept changing, and some got through inside.
    const total = (suffix: string): number =>
      [...counts].filter(([key]) => key.endsWith(suffix)).reduce((sum, [, count]) => sum + count, 0);
    assert.ok(total(': ok') > 0, 'some calls succeeded inside');
    assert.ok(total(': refused by the policy') + total(': refused by the host') > 0, 'some calls met the symlink');
  },
);
