// Issue 14 item 5: badges and row icons are codicons from @vscode/codicons, whose stylesheet and
// font the build ships beside the webview bundle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ICONS_USED } from '../../../media/presentation';

const require = createRequire(import.meta.url);

test('issue 14 item 5: every codicon the view draws exists in the icon font it ships', () => {
  const css = readFileSync(require.resolve('@vscode/codicons/dist/codicon.css'), 'utf8');
  assert.ok(ICONS_USED.length >= 10);
  const missing = ICONS_USED.filter((name) => !css.includes(`.codicon-${name}:before`));
  assert.deepEqual(missing, []);
  // The font is found next to the stylesheet: the build copies both into media/dist.
  assert.match(css, /src: url\("\.\/codicon\.ttf\?[0-9a-f]+"\) format\("truetype"\)/);
  const build = readFileSync(new URL('../../../esbuild.mjs', import.meta.url), 'utf8');
  assert.match(build, /\['codicon\.css', 'codicon\.ttf'\]/);
});
