// The symlink-swap race of issue 8 item 4, black-box: the built `zuno exec`, driven by a scripted
// model, keeps writing, patching and reading under `dir/` while a swapper process renames `dir`
// back and forth between the real folder and a symlink to `../outside`. Every approval would be
// refused (`--approve deny`); auto mode lets the calls inside the workspace run without one.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedOpenAI, toolResults, type ScriptedToolCall } from '../../support/scripted-openai';
import { eventsOf, execArgs, runZuno, useBuiltCli } from './cli';

useBuiltCli();

const SWAPS = 2_000;
const DEADLINE_MS = 30_000;
const MAX_STEPS = 150;
const OUTSIDE_SECRET = 'OUTSIDE-SECRET';

function snapshot(root: string, prefix = ''): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const name of readdirSync(join(root, prefix)).sort()) {
    const relative = join(prefix, name);
    if (lstatSync(join(root, relative)).isDirectory()) Object.assign(entries, { [relative]: 'directory' }, snapshot(root, relative));
    else entries[relative] = createHash('sha256').update(readFileSync(join(root, relative))).digest('hex');
  }
  return entries;
}

test('§9 E1 zuno exec: a symlink swapped in while calls run redirects no write, patch or read out of the workspace (issue 8 item 4)', { timeout: 120_000 }, async () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-cli-race-')));
  after(() => rmSync(base, { recursive: true, force: true }));
  const workspace = join(base, 'ws');
  const outside = join(base, 'outside');
  mkdirSync(join(workspace, 'dir'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(workspace, 'dir', 'secret.txt'), 'inside\n');
  writeFileSync(join(workspace, 'dir', 'p.txt'), 'alpha\n');
  writeFileSync(join(outside, 'secret.txt'), `${OUTSIDE_SECRET}\n`);
  writeFileSync(join(outside, 'p.txt'), 'alpha\n');
  writeFileSync(join(outside, 'outside-only.txt'), 'a name that must not be listed\n');
  const config = join(base, 'config.json');
  writeFileSync(config, JSON.stringify({ permission: { mode: 'auto' }, model: { max_steps: MAX_STEPS + 5 } }));
  const outsideBefore = snapshot(outside);

  const swapper = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '..', '..', 'support', 'symlink-swapper.ts'), workspace, String(SWAPS), String(DEADLINE_MS)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  after(() => swapper.kill('SIGKILL'));
  let swapping = true;
  let report = '';
  swapper.stdout.on('data', (chunk: Buffer) => (report += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => swapper.on('exit', (code) => resolve(code)));
  void exited.then(() => (swapping = false));

  // The model keeps calling for as long as the swapper swaps, then stops.
  let step = 0;
  const batch = (): ScriptedToolCall[] =>
    Array.from({ length: 4 }, (_, index) => [
      { id: `w${step}-${index}`, name: 'write', arguments: { path: `dir/w-${step}-${index}.txt`, content: `written ${step}\n` } },
      { id: `p${step}-${index}`, name: 'apply_patch', arguments: { patch: `*** Begin Patch\n*** Update File: dir/p.txt\n+appended ${step}-${index}\n*** End Patch` } },
      { id: `r${step}-${index}`, name: 'read', arguments: { path: 'dir/secret.txt' } },
      { id: `l${step}-${index}`, name: 'read', arguments: { path: 'dir' } },
    ]).flat();
  const server = await startScriptedOpenAI({
    script: () => (swapping && ++step <= MAX_STEPS ? { toolCalls: batch() } : { text: 'Done.' }),
  });
  after(() => server.close());

  const run = await runZuno([...execArgs(server.baseUrl, workspace, '--config', config, '--approve', 'deny', 'keep editing dir')], { cwd: workspace });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(await exited, 0, 'the swapper ended cleanly');
  assert.deepEqual(server.violations, []);

  // What the model was sent: never a byte or a name from outside.
  const sent = server.chatRequests().flatMap((request) => [...toolResults(request).values()]);
  assert.ok(sent.length >= 16, `the model got ${sent.length} results`);
  assert.deepEqual(sent.filter((text) => text.includes(OUTSIDE_SECRET) || text.includes('outside-only')), []);
  assert.deepEqual(snapshot(outside), outsideBefore, 'nothing outside was created or changed');

  // Every call succeeded inside, or was refused with a clear reason: by the policy (resolved while
  // `dir` led outside), by the host (swapped after the check), or `dir` was missing mid-swap.
  const results = new Map(server.chatRequests().flatMap((request) => [...toolResults(request)]));
  const unclear = eventsOf(run.events, 'tool-call-finished').flatMap((event) => {
    const text = results.get(event.call_id) ?? '';
    if (event.outcome === 'ok') return [];
    if (event.outcome === 'blocked' && event.category === 'denied' && /outside the workspace/.test(text)) return [];
    if (event.outcome === 'error' && /changed while the call ran \(a symlink now leads outside the workspace|does not exist|no such file/i.test(text)) return [];
    return [`${event.call_id}: ${event.outcome}: ${text.slice(0, 300)}`];
  });
  assert.deepEqual(unclear, []);
  const refused = eventsOf(run.events, 'tool-call-finished').filter((event) => event.outcome !== 'ok').length;
  assert.ok(refused > 0, 'some calls met the symlink: the race was real');
  const { swaps } = JSON.parse(report) as { swaps: number };
  assert.equal(swaps, SWAPS);
});
