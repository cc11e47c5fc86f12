// Wrote test/fixtures/stores/0.1.0/: a small store in the format of Zuno 0.1.0 (the store
// before issue 9 moved it out of the workspace), through the store's own API. The generated files
// are committed, so that the migration tests read the bytes an old Zuno left on disk even after
// the store's format changed. Since issue 9 the store writes one folder per session, so recreating
// the fixture needs this script run against the 0.1.0 sources (git checkout of src/store first):
//   node --import tsx test/support/make-store-fixture.ts
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { CallFinish, CallStart } from '../../src/core/ledger';
import { Store } from '../../src/store/store';

export const FIXTURE_0_1_0 = join(__dirname, '..', 'fixtures', 'stores', '0.1.0');
/** The sessions in the fixture, with their calls in order. */
export const FIXTURE_SESSIONS = { 'session-alpha': ['call-1', 'call-2', 'call-3'], 'session-beta': ['call-1', 'call-2'] } as const;

async function main(): Promise<void> {
  rmSync(FIXTURE_0_1_0, { recursive: true, force: true });
  const store = await Store.open({ stateDir: FIXTURE_0_1_0 });
  // Fixed call times, so the tests can name them; sessions carry the time the fixture was made.
  let clock = Date.UTC(2026, 0, 15, 9, 0, 0);
  for (const [sessionId, callIds] of Object.entries(FIXTURE_SESSIONS)) {
    store.createSession({ id: sessionId, workspace: '/home/ada/project', title: `fixture ${sessionId}` });
    store.appendMessage(sessionId, { role: 'user', content: `list the files (${sessionId})` });
    for (const [position, callId] of callIds.entries()) {
      const start: CallStart = {
        sessionId,
        callId,
        turn: 1,
        position,
        tool: 'read',
        argumentsJson: JSON.stringify({ path: `file-${position}.txt` }),
        declarations: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' },
        attempt: 1,
        startedAt: (clock += 1000),
      };
      await store.recordStart(start);
      const finish: CallFinish = {
        sessionId,
        callId,
        outcome: 'ok',
        output: `contents of file-${position}.txt`,
        truncated: false,
        attempt: 1,
        finishedAt: (clock += 500),
        durationMs: 500,
      };
      await store.recordFinish(finish);
    }
    store.appendMessage(sessionId, { role: 'assistant', content: `done with ${sessionId}` });
    store.setSessionStatus(sessionId, 'done');
  }
  await store.close();
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
