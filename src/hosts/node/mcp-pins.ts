/**
 * The pinned MCP tool definitions (issue 11, rug-pull defence): `<stateDir>/mcp-pins.json`, a
 * small file of its own beside the store, replaced atomically (temp file, fsync, rename) so a
 * crash leaves the old pins or the new ones, never half.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { McpPinStore, McpPins, McpToolDefinition } from '../../core/mcp';

export const MCP_PINS_FILE = 'mcp-pins.json';
/** The approved definitions themselves, to show a diff when one changes. */
export const MCP_DEFINITIONS_FILE = 'mcp-pinned-definitions.json';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads the file's `servers`; anything else in it is a reason to fail closed, said in the error. */
function parsePins(text: string): McpPins {
  const document: unknown = JSON.parse(text);
  if (!isRecord(document) || !isRecord(document.servers)) throw new Error('it has no "servers" object');
  const pins: Record<string, Record<string, string>> = {};
  for (const [server, tools] of Object.entries(document.servers)) {
    if (!isRecord(tools)) throw new Error(`servers.${server} is not an object`);
    pins[server] = {};
    for (const [tool, hash] of Object.entries(tools)) {
      if (typeof hash !== 'string') throw new Error(`servers.${server}.${tool} is not a hash`);
      pins[server][tool] = hash;
    }
  }
  return pins;
}

/** Temp file, fsync, rename: a crash leaves the old file or the new one. */
function writeAtomically(path: string, document: unknown): void {
  const temporary = `${path}.${process.pid}.tmp`;
  const descriptor = openSync(temporary, 'w', 0o600);
  try {
    writeSync(descriptor, `${JSON.stringify(document, null, 2)}\n`);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  renameSync(temporary, path);
}

type Definitions = Record<string, Record<string, McpToolDefinition>>;

/** The kept definitions; a file that cannot be read keeps none (they only feed a diff, never a decision). */
function readDefinitions(path: string): Definitions {
  try {
    const document: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return isRecord(document) && isRecord(document.servers) ? (document.servers as Definitions) : {};
  } catch {
    return {};
  }
}

export function createMcpPinStore(stateDir: string): McpPinStore {
  const path = join(stateDir, MCP_PINS_FILE);
  const definitionsPath = join(stateDir, MCP_DEFINITIONS_FILE);
  return {
    path,
    async load() {
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
        throw error;
      }
      return parsePins(text);
    },
    async save(pins) {
      writeAtomically(path, { version: 1, servers: pins });
    },
    async loadDefinitions() {
      return readDefinitions(definitionsPath);
    },
    async saveDefinitions(server, definitions) {
      const all = readDefinitions(definitionsPath);
      all[server] = { ...all[server], ...Object.fromEntries(definitions.map((definition) => [definition.name, definition])) };
      writeAtomically(definitionsPath, { version: 1, servers: all });
    },
  };
}
