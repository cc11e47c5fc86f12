// The rooms and who may enter (DEVELOPERS.md): only the editor host, the webview glue and the
// extension entry may import `vscode`; the core has no direct fs or process access either.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import layerTable from '../../src/layers.json';

const root = join(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts|cts)$/.test(name) ? [path] : [];
  });
}

const importsOf = (text: string): string[] =>
  [...text.matchAll(/(?:from\s+|import\s*\(\s*|require\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)].map((match) => match[1] ?? '');

const mayImportVscode = (path: string): boolean => /^src\/(hosts\/vscode\/|webview\/|extension\.ts$)/.test(path);

test('issue 15: only src/hosts/vscode, src/webview and src/extension.ts import vscode', () => {
  const offenders = sourceFiles(join(root, 'src'))
    .map((file) => relative(root, file).split('\\').join('/'))
    .filter((path) => !mayImportVscode(path))
    .filter((path) => importsOf(readFileSync(join(root, path), 'utf8')).includes('vscode'));
  assert.deepEqual(offenders, []);
});

test('issue 15: src/core reaches fs and processes only through the Host interface', () => {
  const forbidden = /^(node:)?(fs|fs\/promises|child_process|net|http|https)$|^execa$|^sql\.js$/;
  const offenders = sourceFiles(join(root, 'src', 'core')).flatMap((file) =>
    importsOf(readFileSync(file, 'utf8'))
      .filter((specifier) => forbidden.test(specifier))
      .map((specifier) => `${relative(root, file)} imports ${specifier}`),
  );
  assert.deepEqual(offenders, []);
});

test('issue 15: the import scanner sees every import form it is meant to catch', () => {
  // Guards the rule above against a scanner that silently matches nothing.
  const sample = `import * as vscode from 'vscode';\nconst fs = require("fs");\nimport('child_process');\nimport 'vscode';`;
  assert.deepEqual(importsOf(sample), ['vscode', 'fs', 'child_process', 'vscode']);
  assert.equal(mayImportVscode('src/hosts/vscode/host.ts'), true);
  assert.equal(mayImportVscode('src/core/tool.ts'), false);
});

test('issue 8 item 4: tools never import the policy: the scheduler decides permission once, and tools get checked paths', () => {
  const offenders = sourceFiles(join(root, 'src', 'tools'))
    .map((file) => relative(root, file).split('\\').join('/'))
    .filter((path) => importsOf(readFileSync(join(root, path), 'utf8')).some((specifier) => /(^|\/)core\/policy$/.test(specifier)));
  assert.deepEqual(offenders, []);
});

/** The rooms of src/ and which of them each may import (src/layers.json, shared with eslint.config.mjs). */
const LAYERS: Readonly<Record<string, readonly string[]>> = layerTable.layers;

/** The layer of a path under src/, or undefined for the entry points (cli.ts, extension.ts), which may import anything. */
function layerOf(path: string): string | undefined {
  const inside = path.replace(/^src\//, '');
  return Object.keys(LAYERS)
    .sort((a, b) => b.length - a.length)
    .find((layer) => inside === layer || inside.startsWith(`${layer}/`));
}

test('issue 8, DEVELOPERS.md rooms: every layer imports only the layers below it', () => {
  const offenders = sourceFiles(join(root, 'src')).flatMap((file) => {
    const path = relative(root, file).split('\\').join('/');
    const layer = layerOf(path);
    if (layer === undefined) return [];
    return importsOf(readFileSync(file, 'utf8'))
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) =>
        relative(root, join(dirname(file), specifier))
          .split('\\')
          .join('/'),
      )
      .filter((target) => {
        const targetLayer = layerOf(target);
        return targetLayer !== undefined && !(LAYERS[layer] ?? []).includes(targetLayer);
      })
      .map((target) => `${path} (${layer}) imports ${target}`);
  });
  assert.deepEqual(offenders, []);
  // The rule itself can fail: a store file importing the node host is caught.
  assert.equal(layerOf('src/hosts/node/fs.ts'), 'hosts/node');
  assert.equal((LAYERS.store ?? []).includes(layerOf('src/hosts/node/fs.ts') ?? ''), false);
});
