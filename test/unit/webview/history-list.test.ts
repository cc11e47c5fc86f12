// Issue 14 item 10: which chats the history panel lists: tasks under their chat, search by title
// and by the store's full-text hits, and a delegated task opened on its own reads as a task.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { historyRows } from '../../../media/history-list';
import { Transcript } from '../../../media/transcript';
import { ViewModel } from '../../../media/view-model';
import type { SessionSummary } from '../../../src/webview/protocol';

const task = (id: string, parent: string, title: string, updatedAt: number): SessionSummary => ({
  id,
  title,
  updatedAt,
  parent: { sessionId: parent, callId: `call_${id}`, agent: 'general' },
});
const sessions: SessionSummary[] = [
  { id: 'old', title: 'Write the README', updatedAt: 10 },
  { id: 'new', title: 'Fix the cart', updatedAt: 30 },
  task('t2', 'new', 'Run the tests', 25),
  task('t1', 'new', 'Update CHANGELOG.md', 20),
  task('orphan', 'deleted-chat', 'Lint the code', 5),
];
const none = new Map<string, string | undefined>();
const shown = (rows: ReturnType<typeof historyRows>): string[] => rows.map((row) => `${'  '.repeat(row.depth)}${row.session.id}`);

test('issue 14 item 10: chats newest first, each with its delegated tasks under it in the order they ran; an orphaned task stands alone', () => {
  assert.deepEqual(shown(historyRows(sessions, '', none, 200)), ['new', '  t1', '  t2', 'old', 'orphan']);
  assert.deepEqual(shown(historyRows(sessions, '', none, 2)), ['new', '  t1']);
});

test('issue 14 item 10: search matches titles at once (all words, any case) and the store hits with their excerpt', () => {
  assert.deepEqual(shown(historyRows(sessions, 'readme', none, 200)), ['old']);
  assert.deepEqual(shown(historyRows(sessions, 'THE cart', none, 200)), ['new', '  t1', '  t2'], 'a matching chat keeps its tasks');
  // A task that matches brings its chat along, so it is still seen where it belongs.
  assert.deepEqual(shown(historyRows(sessions, 'changelog', none, 200)), ['new', '  t1']);
  const rows = historyRows(sessions, 'installation', new Map([['old', '…the installation steps…']]), 200);
  assert.deepEqual(shown(rows), ['old']);
  assert.equal(rows[0]?.excerpt, '…the installation steps…');
  assert.deepEqual(historyRows(sessions, 'nothing like it', none, 200), []);
});

test("issue 14 item 10: the view keeps the store's search answer and redraws the panel", () => {
  const model = new ViewModel();
  const before = model.chromeVersion;
  model.receive({ type: 'session-search', query: 'checkout', hits: [{ sessionId: 'new', excerpt: 'off by one in checkout.js' }] });
  assert.equal(model.sessionSearch?.query, 'checkout');
  assert.equal(model.sessionSearch?.hits.get('new'), 'off by one in checkout.js');
  assert.ok(model.chromeVersion > before);
});

test('issue 14 item 10: a delegated task opened from the history shows its goal as the brief, not as a message the user typed', () => {
  const model = new ViewModel();
  const event = (text: string) => ({ type: 'user-message' as const, text, ts: 1, session_id: 't1' });
  model.receive({
    type: 'snapshot',
    sessionId: 't1',
    events: [event('Update CHANGELOG.md with the fix'), event('A later message')],
    approvals: [],
    questions: [],
    status: { permissionMode: 'strict', modelLabel: 'm', running: false },
    delegated: { agent: 'general', parentSessionId: 'new' },
  });
  const [goal, later] = model.transcript.items;
  assert.ok(goal?.kind === 'user' && later?.kind === 'user');
  assert.deepEqual(goal.brief, { agent: 'general', parentSessionId: 'new' });
  assert.equal(later.brief, undefined, 'only the goal is the brief');
  const chat = new Transcript();
  chat.apply(event('typed by the user'));
  assert.equal(chat.items[0]?.kind === 'user' ? chat.items[0].brief : 'not a user item', undefined);
});
