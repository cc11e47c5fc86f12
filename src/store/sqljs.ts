/**
 * Loads sql.js (SQLite compiled to WebAssembly) once per process. The wasm file is found in
 * this order: an explicit path, `sql-wasm.wasm` beside the running bundle (the build copies it
 * to `dist/`), then the copy inside the installed `sql.js` package (tests and `tsx`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import type { SqlJsStatic } from 'sql.js';
import { StoreStartupError } from './errors';

const WASM_NAME = 'sql-wasm.wasm';

/** The candidate wasm paths, in the order they are tried. */
export function wasmCandidates(explicitPath?: string): string[] {
  if (explicitPath !== undefined) return [explicitPath];
  const candidates = [join(__dirname, WASM_NAME)];
  try {
    candidates.push(require.resolve(`sql.js/dist/${WASM_NAME}`));
  } catch {
    // Not installed as a package (a shipped bundle): the bundle's own copy is the only place.
  }
  return candidates;
}

/** Returns the first candidate that exists, or throws naming all of them. */
export function locateWasm(explicitPath?: string): string {
  const candidates = wasmCandidates(explicitPath);
  const found = candidates.find((path) => existsSync(path));
  if (found === undefined) {
    throw new StoreStartupError(
      `Cannot find the SQLite engine (${WASM_NAME}). Looked at: ${candidates.join(', ')}. ` +
        'Rebuild with `npm run build`, which copies it to dist/, or reinstall the sql.js package.',
    );
  }
  return found;
}

// sql.js initialises once per process and keeps that result, success or failure, whatever is
// passed to later calls; so the first load decides which wasm is used, and later calls share it.
let loading: Promise<SqlJsStatic> | undefined;

async function initialise(path: string): Promise<SqlJsStatic> {
  let wasmBinary: Uint8Array;
  try {
    wasmBinary = readFileSync(path);
  } catch (error) {
    throw new StoreStartupError(`Cannot read the SQLite engine at ${path}: ${(error as Error).message}`);
  }
  try {
    // The binary is handed over directly, so sql.js never guesses a path of its own.
    return await initSqlJs({ wasmBinary: Uint8Array.from(wasmBinary).buffer });
  } catch (error) {
    throw new StoreStartupError(`The SQLite engine at ${path} failed to load: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Initialises sql.js from the located wasm once per process. A wasm that cannot be found is reported every time. */
export async function loadSqlJs(explicitPath?: string): Promise<SqlJsStatic> {
  const path = locateWasm(explicitPath);
  loading ??= initialise(path);
  return loading;
}
