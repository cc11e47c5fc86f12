// Issue 9, black box: a new `zuno exec` run does not grow with the history in its state dir.
// The history is 40 sessions, 10 of them run through `zuno exec` and 30 written with the store's
// own API (100 calls of 8 KB each, 3,000 calls in all), so the test stays quick on a shared machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Store } from '../../../src/store/store';
import { callFinish, callStart } from '../../support/store-fixtures';
import { execArgs, runZuno, startZuno, temporaryWorkspace, useBuiltCli, useScriptedServers, workspaceStateDir } from './cli';

useBuiltCli();

const scripted = useScriptedServers();

/** Runs `zuno exec` and samples the child's peak resident memory (VmHWM) from /proc until it exits. */
async function execWithPeakMemory(args: readonly string[], cwd: string): Promise<{ code: number | null; peakKb: number; stderr: string }> {
  const child = startZuno(args, { cwd });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout?.resume();
  let peakKb = 0;
  const sample = (): void => {
    try {
      const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid ?? 0}/status`, 'utf8'));
      if (match) peakKb = Math.max(peakKb, Number(match[1]));
    } catch {
      // The process has exited between two samples.
    }
  };
  const timer = setInterval(sample, 5);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
  clearInterval(timer);
  return { code, peakKb, stderr };
}

test(
  'issue 9: with 40 stored sessions (3,000 calls of 8 KB) a new zuno exec run reads none of them and peaks at the memory of an empty state dir + 50 MB',
  { skip: process.platform !== 'linux' && 'reads /proc' },
  async () => {
    const server = await scripted(Array.from({ length: 12 }, (_, index) => ({ text: `answer ${index}` })));
    const empty = temporaryWorkspace({ 'a.txt': 'a\n' });
    const baseline = await execWithPeakMemory(execArgs(server.baseUrl, empty, 'hello'), empty);
    assert.equal(baseline.code, 0, baseline.stderr);

    const workspace = temporaryWorkspace({ 'a.txt': 'a\n' });
    for (let index = 0; index < 10; index++) {
      const run = await runZuno(execArgs(server.baseUrl, workspace, `run ${index}`), { cwd: workspace });
      assert.equal(run.code, 0, run.stderr);
    }
    const stateDir = workspaceStateDir(workspace);
    const store = await Store.open({ stateDir });
    for (let session = 0; session < 30; session++) {
      const id = `history-${session}`;
      store.createSession({ id, workspace });
      for (let call = 0; call < 100; call++) {
        await store.recordStart(callStart(id, `c${call}`, { turn: call }));
        await store.recordFinish(callFinish(id, `c${call}`, { output: `${call} ${'x'.repeat(8192)}` }));
      }
    }
    await store.close();
    const sessions = readdirSync(join(stateDir, 'sessions'));
    assert.equal(sessions.length, 40);
    // Every stored session's journal becomes garbage: a run that read any of them would fail.
    for (const name of sessions) writeFileSync(join(stateDir, 'sessions', name, 'journal.jsonl'), 'garbage, not a journal\n');

    const loaded = await execWithPeakMemory(execArgs(server.baseUrl, workspace, 'hello again'), workspace);
    assert.equal(loaded.code, 0, loaded.stderr);
    assert.ok(baseline.peakKb > 0 && loaded.peakKb > 0, 'the peaks were sampled');
    assert.ok(loaded.peakKb <= baseline.peakKb + 50 * 1024, `peak ${loaded.peakKb} kB with history, ${baseline.peakKb} kB without`);
  },
);
