// Lint rules. The layering rule here mirrors test/unit/architecture.test.ts:
// only the editor host, the webview glue and the extension entry may touch `vscode`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const editorOnly = {
  paths: [{ name: 'vscode', message: 'Only src/hosts/vscode, src/webview and src/extension.ts may import vscode.' }],
};
const nodeBuiltins = ['fs', 'fs/promises', 'child_process', 'node:fs', 'node:fs/promises', 'node:child_process', 'execa'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cache/**', 'media/dist/**', 'test-results/**', 'test/fixtures/**', 'samples/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', fetch: 'readonly', performance: 'readonly', queueMicrotask: 'readonly', setImmediate: 'readonly' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      // node:test's test() returns a promise the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] }],
      // Passing on what was caught (or an AbortSignal's reason) keeps the original error; wrapping it would lose it.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // The tool contract is async (subjects, run, hooks); implementations that happen not to await stay async by design.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', editorOnly],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: editorOnly.paths, patterns: [{ group: nodeBuiltins, message: 'src/core has no direct fs or process access: go through the Host interface.' }] }],
    },
  },
  {
    files: ['src/hosts/vscode/**/*.ts', 'src/webview/**/*.ts', 'src/extension.ts', 'test/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  { files: ['**/*.mjs', '**/*.js'], ...tseslint.configs.disableTypeChecked },
);
