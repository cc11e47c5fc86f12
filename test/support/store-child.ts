// A separate process that uses a store, for the tests that need a real second process: a real
// kill -9 mid-call, a real lock holder, a real dead pid.
//   node --import tsx test/support/store-child.ts STATE_DIR MODE [SESSION_ID | WASM_PATH]
// Modes:
//   open-wasm   open the store with the wasm at WASM_PATH in this fresh process, print "opened"
//               and exit (sql.js loads once per process, so a damaged wasm needs a new one)
//   start-call  create SESSION_ID, record the start of call "call-1" (shell), print "started", then wait
//   hold        open the store, create SESSION_ID and write it (taking its lock), print "ready", then wait
//   write-loop  create SESSION_ID and append messages forever with a tiny compaction threshold,
//               printing "acked N" after each append returns
//   record-turns  create SESSION_ID and record calls (start + finish) forever in turns of five
//               with a pause after each turn, where the writer folds and writes zeros ahead of
//               its journal, printing "acked N" after each finish returns
import { Store } from '../../src/store/store';
import { callFinish, callStart, turnOutput } from './store-fixtures';

async function main(): Promise<void> {
  const [stateDir, mode, sessionId = 'session-1'] = process.argv.slice(2);
  if (stateDir === undefined || mode === undefined) throw new Error('usage: store-child.ts STATE_DIR MODE [SESSION_ID | WASM_PATH]');
  const say = (line: string): void => void process.stdout.write(`${line}\n`);
  if (mode === 'open-wasm') {
    await (await Store.open({ stateDir, wasmPath: sessionId })).close();
    say('opened');
    return;
  }
  if (mode === 'hold') {
    const store = await Store.open({ stateDir });
    store.createSession({ id: sessionId, workspace: '/workspace' });
    say('ready');
  } else if (mode === 'start-call') {
    const store = await Store.open({ stateDir });
    store.createSession({ id: sessionId, workspace: '/workspace' });
    await store.recordStart({
      sessionId,
      callId: 'call-1',
      turn: 1,
      position: 0,
      tool: 'shell',
      argumentsJson: JSON.stringify({ command: 'npm publish', timeout_ms: 600000 }),
      declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
      attempt: 1,
      startedAt: Date.now(),
    });
    say('started');
  } else if (mode === 'write-loop') {
    const store = await Store.open({ stateDir, compaction: { minJournalBytes: 2048, journalToSnapshotRatio: 0.05 } });
    if (!store.getSession(sessionId)) store.createSession({ id: sessionId, workspace: '/workspace' });
    for (let index = store.messages(sessionId).length + 1; ; index++) {
      store.appendMessage(sessionId, { role: 'user', content: `message ${index} ${'x'.repeat(index % 200)}` });
      say(`acked ${index}`);
      // Yield now and then so the queued "acked" lines reach the parent while writing goes on.
      if (index % 25 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  } else if (mode === 'record-turns') {
    const store = await Store.open({ stateDir, compaction: { minJournalBytes: 64 * 1024, journalToSnapshotRatio: 0.5 } });
    if (!store.getSession(sessionId)) store.createSession({ id: sessionId, workspace: '/workspace' });
    for (let index = store.calls(sessionId).length + 1; ; index++) {
      const callId = `call-${index}`;
      await store.recordStart(callStart(sessionId, callId, { turn: index }));
      await store.recordFinish(callFinish(sessionId, callId, { output: turnOutput(index) }));
      say(`acked ${index}`);
      if (index % 5 === 0) await new Promise((resolve) => setTimeout(resolve, 40));
    }
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  // Stay alive until killed; the parent decides when this process ends.
  setInterval(() => undefined, 1 << 30);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`);
  process.exit(1);
});
