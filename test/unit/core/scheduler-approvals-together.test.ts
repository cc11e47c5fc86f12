// Issue 14 batch approvals, E1/C2: a gateway that shows approvals together (the editor) is asked
// every approval of a turn, in model order, before any answer is awaited, so the user sees them
// all and can "Approve all N"; nothing runs until every answer is in, and the calls run and are
// recorded in model order whatever order the answers came in. A terminal gateway is asked one at
// a time, as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { EventBus } from '../../../src/core/events';
import type { ApprovalDecision, ApprovalGateway, ApprovalRequest } from '../../../src/core/host';
import { ToolRegistry } from '../../../src/core/registry';
import { Scheduler, type ToolCallRequest } from '../../../src/core/scheduler';
import { defineTool } from '../../../src/core/tool';
import { MemoryLedger } from '../../support/memory-ledger';
import { testEnvironment } from './fixtures';

/** Holds every request until the test answers it. */
class HeldApprovals implements ApprovalGateway {
  readonly asked: string[] = [];
  private readonly answers = new Map<string, (decision: ApprovalDecision) => void>();
  constructor(readonly showsTogether: boolean) {}
  request(request: ApprovalRequest): Promise<ApprovalDecision> {
    this.asked.push(request.callId);
    return new Promise((resolve) => this.answers.set(request.callId, resolve));
  }
  answer(callId: string, decision: ApprovalDecision): void {
    this.answers.get(callId)?.(decision);
  }
}

/** Waits until `count` approvals were asked (preflight reads the disk, so this takes a few turns of the loop). */
async function askedAtLeast(approvals: HeldApprovals, count: number): Promise<void> {
  while (approvals.asked.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Lets the scheduler go as far as it can without a new answer. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 100));

function harness(showsTogether: boolean) {
  const approvals = new HeldApprovals(showsTogether);
  const ran: string[] = [];
  const write = defineTool({
    name: 'write',
    description: 'records that it ran',
    parameters: z.object({ key: z.string() }),
    declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
    run: async ({ key }) => {
      ran.push(key);
      return { output: key };
    },
  });
  const env = testEnvironment({});
  const scheduler = new Scheduler({
    registry: new ToolRegistry([{ tool: write, defaultSurface: true }]),
    ledger: new MemoryLedger(),
    events: new EventBus(),
    env: { ...env, host: { ...env.host, approvals } },
  });
  const calls: ToolCallRequest[] = ['a', 'b', 'c'].map((key) => ({ id: key, name: 'write', arguments: JSON.stringify({ key }) }));
  const turn = scheduler.runTurn('s1', calls, { signal: new AbortController().signal });
  return { approvals, ran, turn };
}

test('issue 14 E1 C2: with a gateway that shows approvals together, all of a turn are asked before any answer, and the calls run in model order', async () => {
  const { approvals, ran, turn } = harness(true);
  await askedAtLeast(approvals, 3);
  assert.deepEqual(approvals.asked, ['a', 'b', 'c'], 'every approval is up at once, in model order');
  approvals.answer('c', { approved: true });
  approvals.answer('a', { approved: false, reason: 'not this one' });
  await settle();
  assert.deepEqual(ran, [], 'nothing runs while an answer is missing');
  approvals.answer('b', { approved: true });
  const results = await turn;
  assert.deepEqual(ran, ['b', 'c']);
  assert.deepEqual(
    results.map((result) => [result.callId, result.outcome.kind]),
    [
      ['a', 'blocked'],
      ['b', 'ok'],
      ['c', 'ok'],
    ],
  );
});

test('E1 C2: a terminal gateway (not showing approvals together) is still asked one at a time', async () => {
  const { approvals, turn } = harness(false);
  await askedAtLeast(approvals, 1);
  await settle();
  assert.deepEqual(approvals.asked, ['a'], 'b waits for the answer to a');
  approvals.answer('a', { approved: true });
  await askedAtLeast(approvals, 2);
  approvals.answer('b', { approved: true });
  await askedAtLeast(approvals, 3);
  approvals.answer('c', { approved: true });
  assert.equal((await turn).length, 3);
});
