// The scheduler gives the policy the state dir with symlinks resolved, so a state dir reached
// through a link, or a write through a link into it, is still refused (issue 8 §3).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { EventBus } from '../../../src/core/events';
import { ToolRegistry } from '../../../src/core/registry';
import { Scheduler } from '../../../src/core/scheduler';
import { writeTool } from '../../../src/tools/write';
import { MemoryLedger } from '../../support/memory-ledger';
import { ScriptedApprovals, testEnvironment } from './fixtures';

test('issue 8 §3: a write into the state dir is blocked: denied even in auto mode with an allow-all rule, through symlinks either way', async () => {
  const approvals = new ScriptedApprovals(() => ({ approved: true }));
  const base = testEnvironment({ permission: { mode: 'auto', rules: [{ tool: '*', action: 'allow' }] } }, approvals);
  const real = join(base.workspaceRoot, '.zuno', 'state');
  mkdirSync(real, { recursive: true });
  // The runtime names the state dir through a link; the model writes through another one.
  symlinkSync(real, join(base.workspaceRoot, 'state-link'));
  symlinkSync(join(base.workspaceRoot, '.zuno'), join(base.workspaceRoot, 'innocent'));
  const env = { ...base, stateDir: join(base.workspaceRoot, 'state-link') };
  const scheduler = new Scheduler({
    registry: new ToolRegistry([{ tool: writeTool, defaultSurface: true }]),
    ledger: new MemoryLedger(),
    events: new EventBus(),
    env,
  });
  const write = (id: string, path: string) => ({ id, name: 'write', arguments: JSON.stringify({ path, content: 'forged\n' }) });
  const results = await scheduler.runTurn(
    's1',
    [write('direct', '.zuno/state/journal.jsonl'), write('linked', 'innocent/state/journal.jsonl'), write('fine', 'notes.txt')],
    {
      signal: new AbortController().signal,
    },
  );
  assert.deepEqual(
    results.map((result) => [result.callId, result.outcome]),
    [
      ['direct', { kind: 'blocked', category: 'denied' }],
      ['linked', { kind: 'blocked', category: 'denied' }],
      ['fine', { kind: 'ok' }],
    ],
  );
  assert.match(results[1]?.output ?? '', /inside Zuno's state dir/);
  assert.equal(existsSync(join(real, 'journal.jsonl')), false);
  assert.equal(approvals.requests.length, 0, 'refused outright, never asked');
});
