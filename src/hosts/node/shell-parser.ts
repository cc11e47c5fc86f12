/**
 * Loads tree-sitter's bash grammar (WASM, from `@vscode/tree-sitter-wasm`) for the shell analysis
 * in `core/shell/analysis.ts`. Loading costs tens of milliseconds, so it happens on the first
 * shell call, once per process; the editor host runs on Node and shares this loader.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Language, Parser } from '@vscode/tree-sitter-wasm';
import { createShellAnalyzer, type ShellAnalyzer, type ShellParse } from '../../core/shell/analysis';

const PACKAGE = '@vscode/tree-sitter-wasm';
const GRAMMAR = 'tree-sitter-bash.wasm';

/** Beside the bundle in dist/ (esbuild.mjs copies the files there), else in the installed package. */
function wasmDirectory(): string {
  if (existsSync(join(__dirname, GRAMMAR))) return __dirname;
  // Unbundled (tests, tsx): the package's own wasm/ folder. Its `main` is wasm/tree-sitter.js.
  return dirname(require.resolve(PACKAGE));
}

async function load(): Promise<ShellParse> {
  const directory = wasmDirectory();
  try {
    await Parser.init({ locateFile: (file: string) => join(directory, file) });
    const bash = await Language.load(join(directory, GRAMMAR));
    const parser = new Parser();
    parser.setLanguage(bash);
    return (text) => parser.parse(text);
  } catch (error) {
    throw new Error(
      `The shell parser could not be loaded from ${directory} (${error instanceof Error ? error.message : String(error)}). ` +
        'Shell commands cannot be checked against permission rules without it; reinstall Zuno, or rebuild with `npm run build`.',
    );
  }
}

let loading: Promise<ShellParse> | undefined;

/** The process-wide bash parser, loaded on first use. A failed load is retried on the next call. */
export function loadBashParser(): Promise<ShellParse> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** The analyzer permission rules use, for this platform's shell (cmd.exe on Windows). */
export async function loadShellAnalyzer(): Promise<ShellAnalyzer> {
  return createShellAnalyzer(await loadBashParser(), { platform: process.platform === 'win32' ? 'win32' : 'posix' });
}
