// A fresh process for bench/store.bench.ts: opens the store in STATE_DIR and starts a new session
// ROUNDS times, then prints the median time and the process's resident memory as JSON.
//   node --import tsx bench/store-open-child.ts STATE_DIR ROUNDS
import { performance } from 'node:perf_hooks';
import { loadSqlJs } from '../src/store/sqljs';
import { Store } from '../src/store/store';

async function main(): Promise<void> {
  const [stateDir = '', rounds = '10'] = process.argv.slice(2);
  await loadSqlJs();
  const times: number[] = [];
  for (let round = 0; round < Number(rounds); round++) {
    const begin = performance.now();
    const store = await Store.open({ stateDir });
    const id = `new-${process.pid}-${round}`;
    store.createSession({ id, workspace: '/w', title: 'a new session' });
    store.appendMessage(id, { role: 'user', content: 'hello' });
    await store.flush();
    times.push(performance.now() - begin);
    await store.close();
  }
  times.sort((a, b) => a - b);
  process.stdout.write(JSON.stringify({ medianMs: times[Math.floor(times.length / 2)], rssBytes: process.memoryUsage().rss }));
}

void main();
