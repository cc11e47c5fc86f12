// When checkpoints are taken (issue 13): once per user turn, before its first side effect, through
// the real scheduler; a failing checkpoint never fails the turn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { TurnCheckpoints, type CheckpointPort, type PromptMark, type SnapshotKind } from '../../../src/core/checkpoints';
import type { Declarations } from '../../../src/core/declarations';
import { EventBus } from '../../../src/core/events';
import { ToolRegistry } from '../../../src/core/registry';
import { Scheduler, type ToolCallRequest } from '../../../src/core/scheduler';
import { defineTool, type Tool } from '../../../src/core/tool';
import { MemoryLedger } from '../../support/memory-ledger';
import { testEnvironment } from './fixtures';

/** Records snapshots and the tool runs in one log, so their order is visible. */
class RecordingPort implements CheckpointPort {
  constructor(
    readonly log: string[],
    private readonly fail = false,
  ) {}

  async snapshot(sessionId: string, kind: SnapshotKind, prompt: PromptMark | undefined): Promise<void> {
    this.log.push(`${kind}:${sessionId}${prompt ? `@${prompt.messageIndex}` : ''}`);
    if (this.fail) throw new Error('git is broken');
  }
}

function loggingTool(log: string[], name: string, declarations: Declarations): Tool {
  return defineTool({
    name,
    description: name,
    parameters: z.object({ key: z.string() }),
    declarations,
    run: async ({ key }) => {
      log.push(`run:${key}`);
      return { output: key };
    },
  });
}

const READ: Declarations = { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' };
const WRITE: Declarations = { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' };
const callOf = (id: string, name: string): ToolCallRequest => ({ id, name, arguments: JSON.stringify({ key: id }) });

function harness(fail = false) {
  const log: string[] = [];
  const checkpoints = new TurnCheckpoints(new RecordingPort(log, fail));
  const scheduler = new Scheduler({
    registry: new ToolRegistry(
      [loggingTool(log, 'look', READ), loggingTool(log, 'change', WRITE)].map((tool) => ({ tool, defaultSurface: true })),
    ),
    ledger: new MemoryLedger(),
    events: new EventBus(),
    env: testEnvironment(),
    checkpoints,
  });
  const signal = new AbortController().signal;
  return { log, checkpoints, scheduler, run: (calls: readonly ToolCallRequest[]) => scheduler.runTurn('s1', calls, { signal }) };
}

test('issue 13: one checkpoint per user turn, taken before its first side effect and not before reads', async () => {
  const { log, scheduler, run } = harness();
  scheduler.beginPrompt('s1');
  scheduler.checkpoints?.notePrompt('s1', { messageIndex: 4, text: 'change things' });
  await run([callOf('r1', 'look')]);
  assert.deepEqual(log, ['run:r1'], 'a read takes no checkpoint');
  await run([callOf('w1', 'change'), callOf('w2', 'change')]);
  await run([callOf('w3', 'change')]);
  assert.deepEqual(log, ['run:r1', 'turn:s1@4', 'run:w1', 'run:w2', 'run:w3']);
  await scheduler.checkpoints?.endPrompt('s1');
  assert.deepEqual(log.slice(5), ['after-turn:s1@4'], 'the end of a turn that changed things records what it left');

  scheduler.beginPrompt('s1');
  await run([callOf('w4', 'change')]);
  assert.deepEqual(log.slice(6), ['turn:s1', 'run:w4'], 'the next prompt takes its own checkpoint');
});

test('issue 13: a turn without side effects records nothing when it ends', async () => {
  const { log, scheduler, run } = harness();
  scheduler.beginPrompt('s1');
  await run([callOf('r1', 'look')]);
  await scheduler.checkpoints?.endPrompt('s1');
  assert.deepEqual(log, ['run:r1']);
});

test('issue 13: a checkpoint that fails does not fail the call', async () => {
  const { log, scheduler, run } = harness(true);
  scheduler.beginPrompt('s1');
  const [result] = await run([callOf('w1', 'change')]);
  assert.equal(result?.outcome.kind, 'ok');
  assert.deepEqual(log, ['turn:s1', 'run:w1']);
});

test("issue 13: a delegated child's first side effect takes its parent turn's checkpoint, once", async () => {
  const log: string[] = [];
  const checkpoints = new TurnCheckpoints(new RecordingPort(log));
  checkpoints.beginPrompt('parent');
  const child = checkpoints.forChildOf('parent');
  child.beginPrompt('child');
  await child.beforeSideEffect('child');
  await checkpoints.beforeSideEffect('parent');
  await child.endPrompt('child');
  assert.deepEqual(log, ['turn:parent']);
  await checkpoints.endPrompt('parent');
  assert.deepEqual(log, ['turn:parent', 'after-turn:parent']);
});
