// Issue 9: session_search and session_read over a real store (R1: session search is Safe; E3:
// inspection gets no strict prompt). The search index is derived data kept off the write path.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Store } from '../../../src/store/store';
import { sessionSearchTool } from '../../../src/tools/session_search';
import { sessionReadTool } from '../../../src/tools/session_read';
import { makeToolContext } from '../../support/tool-context';
import { callFinish, callStart, temporaryDirectory } from '../../support/store-fixtures';
import type { ZunoConfigInput } from '../../../src/core/config';

async function storeWithHistory(
  context: TestContext,
  warnings: string[] = [],
): Promise<{ store: Store; stateDir: string; workspace: string }> {
  const workspace = temporaryDirectory(context, 'zuno-history-ws-');
  const stateDir = temporaryDirectory(context, 'zuno-history-state-');
  const store = await Store.open({ stateDir, onWarning: (message) => warnings.push(message) });
  context.after(() => store.close());
  store.createSession({ id: 'parser', workspace, title: 'fix the parser' });
  store.appendMessage('parser', { role: 'user', content: 'The tokenizer crashes on an empty file, please fix it' });
  store.appendMessage('parser', {
    role: 'assistant',
    content: '',
    toolCalls: [{ id: 'g1', name: 'grep', arguments: '{"pattern":"tokenize"}' }],
  });
  await store.recordStart(callStart('parser', 'g1', { tool: 'grep', argumentsJson: '{"pattern":"tokenize"}' }));
  await store.recordFinish(callFinish('parser', 'g1', { output: 'src/lexer.ts:12: export function tokenize(source: string)' }));
  store.appendMessage('parser', {
    role: 'tool',
    callId: 'g1',
    toolName: 'grep',
    content: 'src/lexer.ts:12: export function tokenize(source: string)',
  });
  store.appendMessage('parser', { role: 'assistant', content: 'Fixed: an empty file now yields no tokens.' });
  store.createSession({ id: 'docs', workspace, title: 'write the docs' });
  store.appendMessage('docs', { role: 'user', content: 'Write a README section about installation' });
  store.createSession({ id: 'session-1', workspace, title: 'the current session' });
  store.appendMessage('session-1', { role: 'user', content: 'where did we fix the tokenizer?' });
  return { store, stateDir, workspace };
}

function toolContext(store: Store, workspace: string, config: ZunoConfigInput = {}) {
  return { ...makeToolContext({ workspaceRoot: workspace, config }), history: store };
}

test('R1/E3 issue 9: session_search and session_read are ReadOnly, Safe and ParallelSafe, and unavailable where nothing is stored', () => {
  for (const tool of [sessionSearchTool, sessionReadTool]) {
    assert.deepEqual(tool.declarationsFor({}), { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' }, tool.name);
    assert.match(tool.unavailableReason?.(makeToolContext({ workspaceRoot: '/tmp' })) ?? '', /not stored here/);
  }
});

test('issue 9: session_search finds past sessions by words in prompts, answers and tool outputs, with ids, dates and excerpts; not the current one', async (context) => {
  const { store, workspace } = await storeWithHistory(context);
  const byPrompt = await sessionSearchTool.run({ query: 'tokenizer empty' }, toolContext(store, workspace));
  assert.match(byPrompt.output, /^1\. session parser · \d{4}-\d\d-\d\d \d\d:\d\d UTC · fix the parser · \d+ match/);
  assert.match(byPrompt.output, /prompt: The tokenizer crashes on an empty file/);
  assert.doesNotMatch(byPrompt.output, /session session-1/, 'the searching session is left out');
  assert.deepEqual(byPrompt.metadata?.['ids'], ['parser']);

  const byOutput = await sessionSearchTool.run({ query: 'LEXER.ts' }, toolContext(store, workspace));
  assert.match(byOutput.output, /output of call g1: grep \{"pattern":"tokenize"\} src\/lexer\.ts:12/);
  const byAnswer = await sessionSearchTool.run({ query: 'yields tokens' }, toolContext(store, workspace));
  assert.match(byAnswer.output, /answer: Fixed: an empty file now yields no tokens\./);

  const none = await sessionSearchTool.run({ query: 'kubernetes' }, toolContext(store, workspace));
  assert.equal(none.output, 'No past session contains all of: kubernetes. Try fewer or other words.');
  const syntax = await sessionSearchTool.run({ query: 'README" OR "x* NEAR/2 -installation' }, toolContext(store, workspace));
  assert.match(syntax.output, /No past session contains all of/, 'query syntax is read as plain words, all required');
});

test('issue 9: the search index catches up with new writes, forgets deleted sessions, and rebuilds itself when damaged', async (context) => {
  const warnings: string[] = [];
  const { store, stateDir, workspace } = await storeWithHistory(context, warnings);
  const search = async (query: string): Promise<unknown> =>
    (await sessionSearchTool.run({ query }, toolContext(store, workspace))).metadata?.['ids'];
  assert.deepEqual(await search('installation'), ['docs']);
  const parserIndex = join(stateDir, 'sessions', 'parser', 'search.sqlite');
  assert.ok(existsSync(parserIndex), 'each session keeps its index in its folder between searches');
  store.appendMessage('docs', { role: 'assistant', content: 'Added the installation section, and a note on the tokenizer.' });
  assert.deepEqual(await search('tokenizer'), ['docs', 'parser'], 'the new answer is found; as many matches as parser, and more recent');
  assert.deepEqual(await search('tokenizer empty'), ['parser'], 'every word must match');
  store.deleteSession('docs');
  assert.deepEqual(await search('tokenizer'), ['parser']);
  writeFileSync(parserIndex, 'not a database at all, but long enough to be read as one........................................');
  assert.deepEqual(await search('tokenizer'), ['parser']);
  assert.match(
    warnings.join('\n'),
    /The search index .*sessions\/parser\/search\.sqlite of session parser cannot be read .* it is rebuilt from the session/,
  );
});

test('issue 9: session_search says so while it indexes sessions written before the index existed, and not once they are indexed', async (context) => {
  const { store, stateDir, workspace } = await storeWithHistory(context);
  await store.close();
  for (const id of ['parser', 'docs']) {
    for (const file of ['search.sqlite', 'search.terms']) rmSync(join(stateDir, 'sessions', id, file));
  }
  const reopened = await Store.open({ stateDir });
  context.after(() => reopened.close());
  const first = toolContext(reopened, workspace);
  assert.deepEqual((await sessionSearchTool.run({ query: 'tokenizer' }, first)).metadata?.['ids'], ['parser']);
  // Of the two sessions that may match (the searching one is left out), the first indexed is reported.
  assert.deepEqual(first.progressChunks, ['Indexing past sessions for search: 1 indexed, 1 of 2 looked at\n']);
  const later = toolContext(reopened, workspace);
  await sessionSearchTool.run({ query: 'tokenizer' }, later);
  assert.deepEqual(later.progressChunks, []);
});

test('issue 9: a session whose files are damaged is left out of the search, named; the others are found', async (context) => {
  const warnings: string[] = [];
  const { store, stateDir, workspace } = await storeWithHistory(context, warnings);
  await store.close();
  writeFileSync(join(stateDir, 'sessions', 'docs', 'journal.jsonl'), 'garbage\n');
  const reopened = await Store.open({ stateDir, onWarning: (message) => warnings.push(message) });
  context.after(() => reopened.close());
  const result = await sessionSearchTool.run({ query: 'tokenizer' }, toolContext(reopened, workspace));
  assert.deepEqual(result.metadata?.['ids'], ['parser']);
  assert.match(
    warnings.join('\n'),
    /Session docs is left out of the search: The journal .*sessions\/docs\/journal\.jsonl is damaged at line 1/,
  );
});

test('issue 9: session_read shows a past transcript paged by message, capped like read, and names what to do for an unknown id', async (context) => {
  const { store, workspace } = await storeWithHistory(context);
  const first = await sessionReadTool.run({ session_id: 'parser', limit: 2 }, toolContext(store, workspace));
  const lines = first.output.split('\n');
  assert.match(lines[0] ?? '', /^Session parser · fix the parser · active · started \d{4}-/);
  assert.equal(lines[1], '[1] user: The tokenizer crashes on an empty file, please fix it');
  assert.equal(lines[2], '[2] assistant: ');
  assert.equal(lines[3], '    → grep {"pattern":"tokenize"} (call g1)');
  assert.equal(lines.at(-1), '(messages 1–2 of 4; continue with offset 3)');
  const rest = await sessionReadTool.run({ session_id: 'parser', offset: 3 }, toolContext(store, workspace));
  assert.match(rest.output, /\[3\] tool grep \(call g1\): src\/lexer\.ts:12/);
  assert.match(rest.output, /\(messages 3–4 of 4; end of session\)$/);

  store.createSession({ id: 'big', workspace });
  for (let index = 0; index < 20; index++) store.appendMessage('big', { role: 'user', content: `${index} ${'z'.repeat(3000)}` });
  const capped = await sessionReadTool.run({ session_id: 'big' }, toolContext(store, workspace, { tool_output: { max_bytes: 8192 } }));
  assert.ok(Buffer.byteLength(capped.output) <= 8192, `${Buffer.byteLength(capped.output)} bytes`);
  assert.match(capped.output, /\(messages 1–2 of 20; continue with offset 3\)$/);
  const long = await sessionReadTool.run({ session_id: 'big', offset: 20, limit: 1 }, toolContext(store, workspace));
  assert.equal(long.output.split('\n')[1], `[20] user: 19 ${'z'.repeat(3000)}`);

  await assert.rejects(
    sessionReadTool.run({ session_id: 'nope' }, toolContext(store, workspace)),
    /There is no session "nope" in this workspace\. Find session ids with session_search\./,
  );
  await assert.rejects(
    sessionReadTool.run({ session_id: 'parser', offset: 9 }, toolContext(store, workspace)),
    /has 4 messages; offset 9 is past the end/,
  );
});
