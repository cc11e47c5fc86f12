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
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', fetch: 'readonly', performance: 'readonly', queueMicrotask: 'readonly', setImmediate: 'readonly' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
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
);
