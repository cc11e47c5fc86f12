// "Zuno: Add Selection to Chat" (issue 14 item 14): the reference and fenced block put into the composer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { selectionReference } from '../../../../src/hosts/vscode/selection-reference';

test('issue 14 item 14: a selection becomes path:L10-L20 and its text in a fence named after the language', () => {
  assert.equal(
    selectionReference({
      path: 'src/cart.js',
      startLine: 10,
      endLine: 11,
      text: 'const a = 1;\r\nconst b = 2;\n',
      languageId: 'javascript',
    }),
    'src/cart.js:L10-L11\n```javascript\nconst a = 1;\nconst b = 2;\n```',
  );
  assert.equal(
    selectionReference({ path: 'notes.txt', startLine: 3, endLine: 3, text: 'one line', languageId: 'plaintext' }),
    'notes.txt:L3\n```\none line\n```',
  );
});

test('issue 14 item 14: selected Markdown with its own fences cannot close the block early', () => {
  const text = 'Example:\n```js\nx()\n```';
  const reference = selectionReference({ path: 'README.md', startLine: 1, endLine: 4, text, languageId: 'markdown' });
  assert.equal(reference, `README.md:L1-L4\n\`\`\`\`markdown\n${text}\n\`\`\`\``);
});
