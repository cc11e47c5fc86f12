// Copy on a message (issue 14 item 14): the Markdown source of what was said, from the transcript.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyableText } from '../../../media/message-copy';
import { Transcript } from '../../../media/transcript';
import { MENTIONED_FILES_HEADING } from '../../../src/webview/mentions';

test('issue 14 item 14: Copy takes the user text and the answer Markdown source; not a streaming answer or a tool card', () => {
  const transcript = new Transcript();
  const at = { ts: 1, session_id: 's1' };
  transcript.apply({ type: 'user-message', text: 'Why does **this** fail?', ...at });
  transcript.apply({ type: 'assistant-delta', text: 'Partly', ...at });
  const [user, streaming] = transcript.items;
  assert.ok(user && streaming);
  assert.equal(copyableText(user), 'Why does **this** fail?');
  assert.equal(copyableText(streaming), undefined, 'not while it streams');
  transcript.apply({ type: 'assistant-message', text: 'Fix:\n\n```js\nconst total = 42;\n```', ...at });
  transcript.apply({ type: 'tool-call-requested', call_id: 'c1', tool: 'read', arguments: '{"path":"a"}', ...at });
  const answer = transcript.items.find((item) => item.kind === 'assistant');
  const card = transcript.items.find((item) => item.kind === 'tool');
  assert.ok(answer && card);
  assert.equal(copyableText(answer), 'Fix:\n\n```js\nconst total = 42;\n```');
  assert.equal(copyableText(card), undefined);
});

test('issue 14 item 14: Copy on a message with @-mentions copies what the user typed, not the note the model was given', () => {
  const transcript = new Transcript();
  transcript.apply({
    type: 'user-message',
    text: `Fix @src/cart.js\n\n${MENTIONED_FILES_HEADING}\n- src/cart.js`,
    ts: 1,
    session_id: 's1',
  });
  const [user] = transcript.items;
  assert.ok(user);
  assert.equal(copyableText(user), 'Fix @src/cart.js');
});
