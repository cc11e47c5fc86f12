// A fresh process for bench/store.bench.ts: opens the store in STATE_DIR as a restarted editor or
// CLI would, runs the first session_search, then ROUNDS more and one for a word in every session, and prints the times, what the
// searches had to index, and the process's resident memory before and after, as JSON.
//   node --import tsx bench/store-search-child.ts STATE_DIR FIRST_QUERY ROUNDS
import { performance } from 'node:perf_hooks';
import { loadSqlJs } from '../src/store/sqljs';
import { Store } from '../src/store/store';

async function main(): Promise<void> {
  const [stateDir = '', firstQuery = '', rounds = '5'] = process.argv.slice(2);
  await loadSqlJs();
  const store = await Store.open({ stateDir });
  const openRssBytes = process.memoryUsage().rss;
  let indexed = 0;
  const onProgress = (): void => void indexed++;
  const begin = performance.now();
  const found = store.searchSessions(firstQuery, { limit: 5, onProgress }).map((hit) => hit.sessionId);
  const firstMs = performance.now() - begin;
  const laterMs: number[] = [];
  for (let round = 0; round < Number(rounds); round++) {
    const start = performance.now();
    store.searchSessions(`topic${round} lorem`, { limit: 5, onProgress });
    laterMs.push(performance.now() - start);
  }
  laterMs.sort((a, b) => a - b);
  // The worst case: a word in every session, equally often, so no session can be skipped or cut off.
  const everywhere = performance.now();
  store.searchSessions('lorem', { limit: 5, onProgress });
  const everywhereMs = performance.now() - everywhere;
  const rssBytes = process.memoryUsage().rss;
  await store.close();
  process.stdout.write(
    JSON.stringify({
      openRssBytes,
      firstMs,
      found,
      laterMedianMs: laterMs[Math.floor(laterMs.length / 2)],
      everywhereMs,
      indexed,
      rssBytes,
    }),
  );
}

void main();
