// Lint rules. The layering rules come from src/layers.json, the table test/unit/architecture.test.ts
// also checks: a layer never imports one above it, and only the editor host, the webview glue and the
// extension entry may touch `vscode`.
import { readFileSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const editorOnly = {
  paths: [{ name: 'vscode', message: 'Only src/hosts/vscode, src/webview and src/extension.ts may import vscode.' }],
};
const nodeBuiltins = ['fs', 'fs/promises', 'child_process', 'node:fs', 'node:fs/promises', 'node:child_process', 'execa'];

// Who may import whom, from the table the architecture test also reads.
const { layers } = JSON.parse(readFileSync(new URL('./src/layers.json', import.meta.url), 'utf8'));
const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** One lint block per layer: an import whose path names a layer above it is an error. */
const layerBlocks = Object.entries(layers).map(([layer, allowed]) => {
  const above = Object.keys(layers).filter((other) => !allowed.includes(other));
  // A sibling under the same parent is reached as `../name` (hosts/node -> ../vscode).
  const names = above.flatMap((other) =>
    other.includes('/') ? [escapeRegex(other), `\\.\\./${escapeRegex(other.split('/').pop())}`] : [escapeRegex(other)],
  );
  const nested = Object.keys(layers).filter((other) => other !== layer && other.startsWith(`${layer}/`));
  return {
    files: [`src/${layer}/**/*.ts`],
    ignores: nested.map((other) => `src/${other}/**`),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...(layer === 'hosts/vscode' || layer === 'webview' ? [] : editorOnly.paths),
            ...(layer === 'core' || layer === 'tools'
              ? nodeBuiltins.map((name) => ({
                  name,
                  message: `src/${layer} has no direct fs or process access: go through the Host interface.`,
                }))
              : []),
          ],
          patterns:
            above.length === 0
              ? []
              : [
                  {
                    regex: `(^|/)(${names.join('|')})(/|$)`,
                    message: `src/${layer} may import only ${allowed.join(', ')} (src/layers.json).`,
                  },
                ],
        },
      ],
    },
  };
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cache/**', 'media/dist/**', 'test-results/**', 'test/fixtures/**', 'samples/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        fetch: 'readonly',
        performance: 'readonly',
        queueMicrotask: 'readonly',
        setImmediate: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      // node:test's test() returns a promise the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      // Passing on what was caught (or an AbortSignal's reason) keeps the original error; wrapping it would lose it.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // The tool contract is async (subjects, run, hooks); implementations that happen not to await stay async by design.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', editorOnly],
    },
  },
  ...layerBlocks,
  // The core is pure logic: it gets the environment through the Host, never from the process global.
  {
    files: ['src/core/**/*.ts'],
    rules: { 'no-restricted-globals': ['error', { name: 'process', message: 'src/core reads the environment through the Host.' }] },
  },
  { files: ['src/extension.ts', 'test/**/*.ts'], rules: { 'no-restricted-imports': 'off' } },
  { files: ['**/*.mjs', '**/*.js'], ...tseslint.configs.disableTypeChecked },
);
