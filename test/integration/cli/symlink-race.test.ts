// The symlink-swap race of issue 8 item 4, black-box: the built `zuno exec`, driven by a scripted
// model, keeps writing, patching and reading under `dir/` while a swapper process renames `dir`
// back and forth between the real folder and a symlink to `../outside`. Every approval would be
// refused (`--approve deny`); auto mode lets the calls inside the workspace run without one.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { realpathSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedOpenAI, toolResults, type ScriptedToolCall } from '../../support/scripted-openai';
import { eventsOf, execArgs, runZuno, useBuiltCli } from './cli';
import { OUTSIDE_ONLY, OUTSIDE_SECRET, plantRaceTree, snapshot, startSwapper } from '../../support/race-tree';

useBuiltCli();

const SWAPS = 2_000;
const DEADLINE_MS = 30_000;
const MAX_STEPS = 150;

test(
  '§9 E1 zuno exec: a symlink swapped in while calls run redirects no write, patch or read out of the workspace (issue 8 item 4)',
  { timeout: 120_000 },
  async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-cli-race-')));
    after(() => rmSync(base, { recursive: true, force: true }));
    const { workspace, outside } = plantRaceTree(base);
    const config = join(base, 'config.json');
    writeFileSync(config, JSON.stringify({ permission: { mode: 'auto' }, model: { max_steps: MAX_STEPS + 5 } }));
    const outsideBefore = snapshot(outside);

    const swapper = startSwapper(workspace, SWAPS, DEADLINE_MS);
    after(swapper.kill);

    // The model keeps calling for as long as the swapper swaps, then stops.
    let step = 0;
    const batch = (): ScriptedToolCall[] =>
      Array.from({ length: 4 }, (_, index) => [
        { id: `w${step}-${index}`, name: 'write', arguments: { path: `dir/w-${step}-${index}.txt`, content: `written ${step}\n` } },
        {
          id: `p${step}-${index}`,
          name: 'apply_patch',
          arguments: { patch: `*** Begin Patch\n*** Update File: dir/p.txt\n+appended ${step}-${index}\n*** End Patch` },
        },
        { id: `r${step}-${index}`, name: 'read', arguments: { path: 'dir/secret.txt' } },
        { id: `l${step}-${index}`, name: 'read', arguments: { path: 'dir' } },
      ]).flat();
    const server = await startScriptedOpenAI({
      script: () => (swapper.running() && ++step <= MAX_STEPS ? { toolCalls: batch() } : { text: 'Done.' }),
    });
    after(() => server.close());

    const run = await runZuno([...execArgs(server.baseUrl, workspace, '--config', config, '--approve', 'deny', 'keep editing dir')], {
      cwd: workspace,
    });
    assert.equal(run.code, 0, run.stderr);
    const { code, swaps } = await swapper.finished;
    assert.equal(code, 0, 'the swapper ended cleanly');
    assert.deepEqual(server.violations, []);

    // What the model was sent: never a byte or a name from outside.
    const sent = server.chatRequests().flatMap((request) => [...toolResults(request).values()]);
    assert.ok(sent.length >= 16, `the model got ${sent.length} results`);
    assert.deepEqual(
      sent.filter((text) => text.includes(OUTSIDE_SECRET) || text.includes(OUTSIDE_ONLY)),
      [],
    );
    assert.deepEqual(snapshot(outside), outsideBefore, 'nothing outside was created or changed');

    // Every call succeeded inside, or was refused with a clear reason: by the policy (resolved while
    // `dir` led outside), by the host (swapped after the check), or `dir` was missing mid-swap.
    const results = new Map(server.chatRequests().flatMap((request) => [...toolResults(request)]));
    const unclear = eventsOf(run.events, 'tool-call-finished').flatMap((event) => {
      const text = results.get(event.call_id) ?? '';
      if (event.outcome === 'ok') return [];
      if (event.outcome === 'blocked' && event.category === 'denied' && /outside the workspace/.test(text)) return [];
      if (
        event.outcome === 'error' &&
        /changed while the call ran \(a symlink now leads outside the workspace|does not exist|no such file/i.test(text)
      )
        return [];
      return [`${event.call_id}: ${event.outcome}: ${text.slice(0, 300)}`];
    });
    assert.deepEqual(unclear, []);
    const refused = eventsOf(run.events, 'tool-call-finished').filter((event) => event.outcome !== 'ok').length;
    assert.ok(refused > 0, 'some calls met the symlink: the race was real');
    assert.equal(swaps, SWAPS);
  },
);
