/**
 * Test helpers for the editing tools: byte-exact snapshots of a directory tree, fixture copies,
 * a fault-injecting wrapper around the real host file system, and one way to invoke a tool as
 * the scheduler does (validate, then run) that tells "blocked" from "error".
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ToolError } from '../../../../src/core/errors';
import type { Host, HostFileSystem } from '../../../../src/core/host';
import type { Tool, ToolResult } from '../../../../src/core/tool';
import { checkCall, PolicyRefusal, type TestToolContext } from '../../../support/tool-context';

/**
 * Every entry under `root` by relative path: a file as its SHA-256, a directory, or a symlink
 * with its target. Two equal snapshots mean nothing changed, byte for byte, and nothing appeared.
 */
export function snapshotTree(root: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const walk = (directory: string, prefix: string): void => {
    for (const name of readdirSync(directory).sort()) {
      const path = join(directory, name);
      const relative = prefix ? `${prefix}/${name}` : name;
      const stats = lstatSync(path);
      if (stats.isSymbolicLink()) entries[relative] = `symlink -> ${readlinkSync(path)}`;
      else if (stats.isDirectory()) {
        entries[relative] = 'directory';
        walk(path, relative);
      } else entries[relative] = `file ${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
    }
  };
  if (existsSync(root)) walk(root, '');
  return entries;
}

/** Copies a fixture directory's contents into `target`; a missing fixture directory is empty. */
export function copyFixture(source: string, target: string): void {
  if (existsSync(source)) cpSync(source, target, { recursive: true, verbatimSymlinks: true });
}

export type FileSystemOperation = keyof HostFileSystem;

/**
 * The real host file system, except that `shouldFail` may make a mutating call throw, as a full
 * disk or a vanished directory would. Calls are counted per operation, from 1.
 */
export function withFaults(host: Host, shouldFail: (operation: FileSystemOperation, path: string, count: number) => boolean): Host {
  const counts = new Map<FileSystemOperation, number>();
  const check = (operation: FileSystemOperation, path: string): void => {
    const count = (counts.get(operation) ?? 0) + 1;
    counts.set(operation, count);
    if (shouldFail(operation, path, count)) {
      throw Object.assign(new Error(`ENOSPC: no space left on device, ${operation} '${path}'`), { code: 'ENOSPC' });
    }
  };
  const fs: HostFileSystem = {
    ...host.fs,
    async writeFileAtomic(path, data) {
      check('writeFileAtomic', path);
      return host.fs.writeFileAtomic(path, data);
    },
    async remove(path) {
      check('remove', path);
      return host.fs.remove(path);
    },
    async rename(from, to) {
      check('rename', from);
      return host.fs.rename(from, to);
    },
  };
  return { ...host, fs };
}

export type Invocation =
  | { readonly outcome: 'blocked'; readonly message: string }
  | { readonly outcome: 'error'; readonly message: string }
  | { readonly outcome: 'ok'; readonly result: ToolResult };

/** Validates the raw arguments, evaluates the policy, then runs: what the scheduler does, the user approving. */
export async function invoke(tool: Tool, raw: unknown, context: TestToolContext): Promise<Invocation> {
  const parsed = tool.parse(raw);
  if (!parsed.success) return { outcome: 'blocked', message: parsed.error };
  try {
    return { outcome: 'ok', result: await tool.run(parsed.args, await checkCall(tool, parsed.args, context)) };
  } catch (error) {
    if (error instanceof PolicyRefusal) return { outcome: 'blocked', message: error.message };
    if (error instanceof ToolError) return { outcome: 'error', message: error.message };
    throw error;
  }
}
