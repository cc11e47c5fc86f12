/**
 * Workspace containment for file tools. A model-given path is resolved against the workspace
 * root, then every symlink in it is resolved, so a link that points out of the workspace counts
 * as outside. Tools report the real path as their subject (SPEC §9); the scheduler evaluates the
 * policy once on it and hands the tool the checked path (`ToolContext.paths`). A link that
 * changes after that cannot redirect the call: the host re-verifies the real path when it opens
 * it (issue 8 item 4).
 */
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { CallEnvironment, CallSubject, CheckedPath, ToolContext } from '../core/tool';

export type ResolvedPath = CheckedPath;

/** True when `candidate` is `root` or lies below it. Both must be absolute and normalized. */
export function isWithin(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

export async function resolveWorkspacePath(env: CallEnvironment, path: string): Promise<ResolvedPath> {
  const absolute = resolve(env.workspaceRoot, path);
  const [real, realRoot] = await Promise.all([env.host.fs.realpath(absolute), env.host.fs.realpath(env.workspaceRoot)]);
  const inside = isWithin(realRoot, real);
  const display = inside ? relative(realRoot, real) || '.' : real;
  return { argument: path, absolute, real, outsideWorkspace: !inside, display };
}

/** The permission subject of a file tool's path argument. */
export async function pathSubject(env: CallEnvironment, path: string): Promise<CallSubject> {
  const resolved = await resolveWorkspacePath(env, path);
  return { kind: 'path', value: resolved.real, outsideWorkspace: resolved.outsideWorkspace, resolved };
}

/**
 * The path argument `path` as the scheduler checked it. Every path a tool uses at run time must
 * be one of its subjects; a missing one is a bug in the tool, never something to resolve here.
 */
export function checkedPath(context: ToolContext, path: string): ResolvedPath {
  const checked = context.paths.get(path);
  if (!checked)
    throw new Error(
      `the path ${JSON.stringify(path)} was not among the call's subjects, so it was never checked; the tool must report every path it touches`,
    );
  return checked;
}

/** A path in the form messages use: relative to the workspace when inside it. */
export function displayJoin(base: string, child: string): string {
  return base === '.' ? child : join(base, child);
}
