// @-mentions in the composer (issue 14 item 14): the token at the caret, the text after choosing a
// file, and the syntax the host reads back on send.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { activeMention, insertMention } from '../../../media/mention-token';
import {
  LEFT_AS_TEXT_HEADING,
  MENTIONED_FILES_HEADING,
  mentionedPaths,
  mentionText,
  rankPaths,
  splitMentionNote,
} from '../../../src/webview/mentions';

test('issue 14 item 14: an @ at the start or after a space opens a mention up to the caret; an e-mail address does not', () => {
  assert.deepEqual(activeMention('@', 1), { start: 0, query: '' });
  assert.deepEqual(activeMention('look at @src/ca', 15), { start: 8, query: 'src/ca' });
  assert.deepEqual(activeMention('look at @src/ca and more', 15), { start: 8, query: 'src/ca' });
  assert.deepEqual(activeMention('(@read', 6), { start: 1, query: 'read' });
  assert.equal(activeMention('mail me@example.com', 19), undefined);
  assert.equal(activeMention('@src/cart.js then', 17), undefined, 'a space after the token closes it');
  assert.equal(activeMention('no mention', 10), undefined);
});

test('issue 14 item 14: choosing a file replaces the typed token with @path and a space, keeping the text around it', () => {
  const typed = 'fix @ca please';
  const mention = activeMention(typed, 7);
  assert.ok(mention);
  const chosen = insertMention(typed, mention, 'src/cart.js');
  assert.equal(chosen.text, 'fix @src/cart.js please');
  assert.equal(chosen.text.slice(0, chosen.caret), 'fix @src/cart.js ');
  const atEnd = insertMention('see @', { start: 4, query: '' }, 'README.md');
  assert.deepEqual(atEnd, { text: 'see @README.md ', caret: 15 });
  assert.equal(insertMention('@my', { start: 0, query: 'my' }, 'docs/my notes.md').text, '@"docs/my notes.md" ');
});

test('issue 14 item 14: the host reads back what the composer writes, without trailing punctuation or e-mail addresses', () => {
  const text = `Compare @src/cart.js, ${mentionText('docs/my notes.md')} and (@README.md). Mail me@example.com; @src/cart.js again.`;
  assert.deepEqual(mentionedPaths(text), ['src/cart.js', 'docs/my notes.md', 'README.md']);
  assert.deepEqual(mentionedPaths('no mentions here'), []);
  assert.deepEqual(mentionedPaths('@'), []);
});

test('issue 14 item 14: files are ranked by name prefix, then name, then path, then letters in order; others are left out', () => {
  const paths = [
    'src/cart.js',
    'test/cart.test.js',
    'src/checkout/cart-view.ts',
    'docs/shopping-cart.md',
    'src/util.js',
    'cartography/map.txt',
  ];
  assert.deepEqual(rankPaths(paths, 'cart'), [
    'src/cart.js',
    'test/cart.test.js',
    'src/checkout/cart-view.ts',
    'docs/shopping-cart.md',
    'cartography/map.txt',
  ]);
  assert.deepEqual(rankPaths(paths, 'SRC/UT'), ['src/util.js', 'src/checkout/cart-view.ts'], 'path match before letters in order');
  assert.deepEqual(rankPaths(paths, 'crtjs'), ['src/cart.js', 'test/cart.test.js']);
  assert.deepEqual(rankPaths(paths, 'zzz'), []);
  assert.equal(rankPaths(paths, '', 2).length, 2, 'capped');
});

test('issue 14 item 14: a sent message splits into what was typed and the note about its mentions', () => {
  const note = `${MENTIONED_FILES_HEADING}\n- src/cart.js\n${LEFT_AS_TEXT_HEADING}\n- @gone.md (not found; left as text)`;
  assert.deepEqual(splitMentionNote(`Fix @src/cart.js and @gone.md\n\n${note}`), { typed: 'Fix @src/cart.js and @gone.md', note });
  const onlyLeft = `${LEFT_AS_TEXT_HEADING}\n- @gone.md (not found; left as text)`;
  assert.deepEqual(splitMentionNote(`See @gone.md\n\n${onlyLeft}`), { typed: 'See @gone.md', note: onlyLeft });
  assert.deepEqual(splitMentionNote('plain text'), { typed: 'plain text' });
});
