// Issue 14 item 10: the chat view's history, over a real store in a temp dir: search by what was
// said, rename (stored), delete (the store's delete, tasks with their chat), tasks nested by parent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { delegatedSessionTitle, parseDelegatedSessionTitle } from '../../../../src/core/delegation';
import { ChatHistory, SEARCH_LIMIT, sessionSummary } from '../../../../src/hosts/vscode/chat-history';
import { Store } from '../../../../src/store/store';
import type { ToWebview } from '../../../../src/webview/protocol';
import { parseFromWebview } from '../../../../src/webview/protocol';
import { temporaryDirectory } from '../../../support/store-fixtures';

type Context = Parameters<typeof temporaryDirectory>[0];

async function historyOver(context: Context, options: { running?: string; shown?: string } = {}) {
  const stateDir = temporaryDirectory(context);
  const store = await Store.open({ stateDir });
  context.after(() => store.close());
  const chat = (id: string, title: string, prompt: string): void => {
    store.createSession({ id, workspace: '/w', title });
    store.appendMessage(id, { role: 'user', content: prompt });
  };
  chat('parent', 'Fix the cart', 'The cart total is off by one in checkout.js');
  chat(
    'child',
    delegatedSessionTitle({ parentSessionId: 'parent', parentCallId: 'call_8_0', agent: 'general', goal: 'Update CHANGELOG.md' }),
    'Update CHANGELOG.md with the cart fix',
  );
  chat('other', 'Write the README', 'Describe the installation steps');
  const posted: ToWebview[] = [];
  let closed = 0;
  const history = new ChatHistory({
    list: () => store.listSessions(),
    backend: {
      search: (query) =>
        store
          .searchSessions(query, { limit: SEARCH_LIMIT })
          .map((hit) => ({ sessionId: hit.sessionId, excerpt: hit.excerpts[0]?.text ?? '' })),
      rename: (sessionId, title) => store.renameSession(sessionId, title),
      delete: (sessionId) => store.deleteSession(sessionId),
    },
    post: (message) => posted.push(message),
    shownSession: () => options.shown,
    runningSession: () => options.running,
    closeShown: () => closed++,
  });
  return { stateDir, store, history, posted, closed: () => closed };
}

const lastSessions = (posted: readonly ToWebview[]) => {
  const last = posted.filter((message) => message.type === 'sessions').at(-1);
  assert.ok(last?.type === 'sessions', 'a session list was posted');
  return last.sessions;
};

test('issue 14 item 10: a delegated task is listed by its goal, linked to its chat, not as "task call_8_0 of session …"', async (context) => {
  const { history, posted } = await historyOver(context);
  history.handle({ type: 'list-sessions' });
  const child = lastSessions(posted).find((session) => session.id === 'child');
  assert.deepEqual(child, {
    id: 'child',
    title: 'Update CHANGELOG.md',
    updatedAt: child?.updatedAt,
    parent: { sessionId: 'parent', callId: 'call_8_0', agent: 'general' },
  });
  assert.equal(lastSessions(posted).find((session) => session.id === 'parent')?.parent, undefined);
  // The title the delegation writes is the one read back; a chat named like it by hand is not mistaken when it does not match.
  assert.equal(parseDelegatedSessionTitle('task about the cart'), undefined);
  assert.equal(sessionSummary({ id: 'x', updatedAt: 1 }).title, '(untitled chat)');
});

test('issue 14 item 10: search finds a chat by what was said in it (the store index), with an excerpt', async (context) => {
  const { history, posted } = await historyOver(context);
  history.handle({ type: 'search-sessions', query: 'checkout' });
  const answer = posted.at(-1);
  assert.ok(answer?.type === 'session-search');
  assert.equal(answer.query, 'checkout');
  assert.deepEqual(
    answer.hits.map((hit) => hit.sessionId),
    ['parent'],
  );
  assert.match(answer.hits[0]?.excerpt ?? '', /off by one in checkout\.js/);
  history.handle({ type: 'search-sessions', query: '   ' });
  const blank = posted.at(-1);
  assert.ok(blank?.type === 'session-search' && blank.hits.length === 0, 'a blank query searches nothing');
});

test('issue 14 item 10: rename stores the title (it survives reopening the store); a task cannot be renamed out of its chat', async (context) => {
  const { history, posted, stateDir, store } = await historyOver(context);
  history.handle({ type: 'rename-session', sessionId: 'parent', title: 'Cart off-by-one' });
  assert.equal(lastSessions(posted).find((session) => session.id === 'parent')?.title, 'Cart off-by-one');
  assert.throws(() => history.handle({ type: 'rename-session', sessionId: 'child', title: 'Mine' }), /delegated task .* cannot be renamed/);
  assert.throws(() => history.handle({ type: 'rename-session', sessionId: 'gone', title: 'x' }), /no chat gone/);
  assert.throws(() => store.renameSession('parent', '  '), /must not be empty/);
  await store.close();
  const reopened = await Store.open({ stateDir, readOnly: true });
  context.after(() => reopened.close());
  assert.equal(reopened.getSession('parent')?.title, 'Cart off-by-one');
  // The view's message is validated: an empty title never reaches the store.
  assert.equal(parseFromWebview({ type: 'rename-session', sessionId: 'parent', title: '   ' }).ok, false);
});

test('issue 14 item 10: delete removes the chat and its delegated tasks from disk; the chat shown is closed', async (context) => {
  const { history, posted, stateDir, closed } = await historyOver(context, { shown: 'child' });
  history.handle({ type: 'delete-session', sessionId: 'parent' });
  assert.deepEqual(
    lastSessions(posted).map((session) => session.id),
    ['other'],
  );
  assert.equal(existsSync(join(stateDir, 'sessions', 'parent')), false);
  assert.equal(existsSync(join(stateDir, 'sessions', 'child')), false);
  assert.equal(closed(), 1, 'the task shown was deleted with its chat: the view starts a new chat');
});

test('issue 14 item 10: a chat Zuno works in (or one of its tasks) is not deleted', async (context) => {
  const { history, stateDir } = await historyOver(context, { running: 'child' });
  assert.throws(() => history.handle({ type: 'delete-session', sessionId: 'parent' }), /Zuno is working in this chat\. Press Stop first/);
  assert.ok(existsSync(join(stateDir, 'sessions', 'parent')));
  assert.ok(existsSync(join(stateDir, 'sessions', 'child')));
});
