// Builds the three bundles: the headless CLI, the extension host entry and the webview script.
// `npm install` runs this through `prepare`, so `node dist/cli.js` works right after install.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, existsSync, chmodSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

mkdirSync('dist', { recursive: true });
// sql.js loads its wasm at run time; ship it beside the bundles.
copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), 'dist/sql-wasm.wasm');
// The shell permission analysis loads tree-sitter and its bash grammar the same way
// (src/hosts/node/shell-parser.ts looks beside the bundle first).
for (const name of ['tree-sitter.wasm', 'tree-sitter-bash.wasm'])
  copyFileSync(require.resolve(`@vscode/tree-sitter-wasm/wasm/${name}`), `dist/${name}`);

// The editor's icon font for the chat view's badges (issue 14 item 5): its stylesheet and font go
// beside the webview bundle, under media/, the view's only resource root.
mkdirSync('media/dist', { recursive: true });
for (const name of ['codicon.css', 'codicon.ttf']) copyFileSync(require.resolve(`@vscode/codicons/dist/${name}`), `media/dist/${name}`);

const common = {
  bundle: true,
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  target: 'node20',
  // jsonc-parser's `main` is a UMD build whose requires esbuild cannot follow (the bundle then
  // fails at activation with "Cannot find module './impl/format'"); its ESM build bundles cleanly.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
};

const builds = [
  {
    ...common,
    entryPoints: ['src/cli.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    format: 'cjs',
    banner: { js: '#!/usr/bin/env node' },
  },
];
if (existsSync('src/extension.ts')) {
  builds.push({
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    external: ['vscode'],
  });
}
if (existsSync('media/main.ts')) {
  builds.push({
    ...common,
    entryPoints: ['media/main.ts'],
    // Under media/, so the webview's only resource root is media/.
    outfile: 'media/dist/webview.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  });
}

if (watch) {
  for (const options of builds) await (await esbuild.context(options)).watch();
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
  chmodSync('dist/cli.js', 0o755);
}
