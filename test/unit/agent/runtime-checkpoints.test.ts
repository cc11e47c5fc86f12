// Checkpoints in every surface's runtime (issue 13): a scheduler made over another environment
// (the editor's live config) takes the turn's checkpoint like the CLI's, and the enabled switch is
// read at every turn. Real runtime, real store, real git, a scripted OpenAI server.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { openCheckpoints } from '../../../src/agent/checkpoints';
import { agentRunner } from '../../../src/agent/loop';
import { OpenAIProvider } from '../../../src/agent/openai';
import { createRuntime } from '../../../src/agent/runtime';
import { parseConfig } from '../../../src/core/config';
import { EventBus, type ZunoEvent } from '../../../src/core/events';
import { defineTool } from '../../../src/core/tool';
import { createNodeHost } from '../../../src/hosts/node/host';
import { startScriptedOpenAI } from '../../support/scripted-openai';

/** A side effect the scheduler must checkpoint before: it writes a file in the workspace. */
const touchTool = (workspace: string) =>
  defineTool({
    name: 'touch',
    description: 'Writes a file.',
    parameters: z.strictObject({ name: z.string() }),
    declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
    run: async (args) => {
      writeFileSync(join(workspace, args.name), 'touched\n');
      return { output: 'ok' };
    },
  });

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

test('issue 13: a scheduler made for the editor environment takes the checkpoint before the first side effect, and checkpoints.enabled off (read at every turn) takes none', async () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-rt-cp-')));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const workspace = join(root, 'workspace');
  const stateDir = join(root, 'state');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'existing.txt'), 'before\n');
  const turn = (name: string) => [
    { toolCalls: [{ id: `call-${name}`, name: 'touch', arguments: { name } }] },
    { text: `Touched ${name}.` },
  ];
  const server = await startScriptedOpenAI({ script: [...turn('one.txt'), ...turn('two.txt')] });
  cleanups.push(() => server.close());
  const provider = new OpenAIProvider({
    baseUrl: server.baseUrl,
    model: 'scripted-model',
    apiKey: { key: undefined, envVar: undefined },
    retry: { attempts: 1, baseDelayMs: 1 },
  });
  let enabled = true;
  const runtime = await createRuntime({
    config: parseConfig({}),
    workspaceRoot: workspace,
    stateDir,
    host: createNodeHost({ stateDir, approvals: { request: async () => ({ approved: true }) } }),
    registrations: [{ tool: touchTool(workspace), defaultSurface: true }],
    checkpointsEnabled: () => enabled,
  });
  cleanups.push(() => runtime.close());
  // As the editor does: its own environment (a live config getter) and a scheduler made for it.
  const env = { ...runtime.env };
  const runEditorAgent = agentRunner({
    store: runtime.store,
    scheduler: runtime.schedulerFor(env),
    registry: runtime.registry,
    env,
    events: runtime.events,
  });
  const run = async (prompt: string, sessionId?: string): Promise<{ sessionId: string; events: ZunoEvent[] }> => {
    const events: ZunoEvent[] = [];
    const stop = runtime.events.on((event) => events.push(event));
    try {
      const result = await runEditorAgent({
        provider,
        prompt,
        signal: new AbortController().signal,
        ...(sessionId ? { sessionId } : {}),
      });
      return { sessionId: result.sessionId, events };
    } finally {
      stop();
    }
  };

  const first = await run('touch one');
  const created = first.events.filter((event) => event.type === 'checkpoint-created');
  assert.deepEqual(
    created.map((event) => [event.checkpoint_id, event.message_index]),
    [['cp-1', 0]],
  );
  const order = first.events.map((event) => event.type).filter((type) => type === 'checkpoint-created' || type === 'tool-call-started');
  assert.deepEqual(order, ['checkpoint-created', 'tool-call-started'], 'the checkpoint comes before the side effect');
  assert.equal(runtime.checkpoints.off(), undefined);

  enabled = false;
  const second = await run('touch two', first.sessionId);
  assert.deepEqual(
    second.events.filter((event) => event.type === 'checkpoint-created'),
    [],
    'no checkpoint while they are turned off',
  );
  assert.match(runtime.checkpoints.off() ?? '', /checkpoints\.enabled is false/);
  const shadow = runtime.checkpoints.shadow;
  assert.ok(shadow);
  assert.deepEqual(
    (await shadow.records()).map((record) => record.kind),
    ['turn', 'after-turn'],
    'git was not run for the turn taken with checkpoints off',
  );
});

test('issue 13: without git on PATH checkpoints are off: the runtime says why (for the editor status line), and the first change of each session tells it once, the turn going on', async () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-rt-nogit-')));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const events = new EventBus();
  const seen: ZunoEvent[] = [];
  events.on((event) => seen.push(event));
  const checkpoints = await openCheckpoints({
    stateDir: join(root, 'state'),
    workspaceRoot: root,
    events,
    enabled: () => true,
    git: 'git-that-does-not-exist',
  });
  cleanups.push(() => checkpoints.close());
  assert.equal(checkpoints.shadow, undefined);
  assert.match(checkpoints.off() ?? '', /Checkpoints are off: "git-that-does-not-exist" could not be run .*Install git/);
  for (const turn of [1, 2]) {
    checkpoints.recorder.beginPrompt('s1');
    await checkpoints.recorder.beforeSideEffect('s1');
    await checkpoints.recorder.endPrompt('s1');
    assert.equal(
      seen.filter((event) => event.type === 'notice' && event.level === 'warning').length,
      1,
      `turn ${turn}: told once per session`,
    );
  }
});
