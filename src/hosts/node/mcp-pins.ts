/**
 * The pinned MCP tool definitions (issue 11, rug-pull defence): `<stateDir>/mcp-pins.json`, a
 * small file of its own beside the store, replaced atomically (temp file, fsync, rename) so a
 * crash leaves the old pins or the new ones, never half.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { McpPinStore, McpPins } from '../../core/mcp';

export const MCP_PINS_FILE = 'mcp-pins.json';

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

export function createMcpPinStore(stateDir: string): McpPinStore {
  const path = join(stateDir, MCP_PINS_FILE);
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
      const temporary = `${path}.${process.pid}.tmp`;
      const descriptor = openSync(temporary, 'w', 0o600);
      try {
        writeSync(descriptor, `${JSON.stringify({ version: 1, servers: pins }, null, 2)}\n`);
        fsyncSync(descriptor);
      } finally {
        closeSync(descriptor);
      }
      renameSync(temporary, path);
    },
  };
}
