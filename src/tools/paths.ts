/**
 * Workspace containment for file tools. A model-given path is resolved against the workspace
 * root, then every symlink in it is resolved, so a link that points out of the workspace counts
 * as outside. Tools report the real path as their subject (SPEC §9); the policy denies paths
 * outside the workspace unless a rule names them. Resolution happens again at run time, because
 * a link can change between approval and execution.
 */
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Declarations } from '../core/declarations';
import { ToolError } from '../core/errors';
import { evaluatePermission } from '../core/policy';
import type { CallEnvironment, CallSubject, ToolContext } from '../core/tool';

export interface ResolvedPath {
  /** The path as given, made absolute against the workspace root; symlinks not resolved. */
  readonly absolute: string;
  /** Every symlink resolved: where the file is, or where a new file would land. */
  readonly real: string;
  readonly outsideWorkspace: boolean;
  /** For messages: relative to the workspace when inside it, else the real path. */
  readonly display: string;
}

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
  return { absolute, real, outsideWorkspace: !inside, display };
}

/** The permission subject of a file tool's path argument. */
export async function pathSubject(env: CallEnvironment, path: string): Promise<CallSubject> {
  const resolved = await resolveWorkspacePath(env, path);
  return { kind: 'path', value: resolved.real, outsideWorkspace: resolved.outsideWorkspace };
}

/**
 * Resolves a path again when the call runs, and refuses it if it now lies outside the workspace
 * and no permission rule names it: a symlink may have changed since the call was approved.
 */
export async function resolveForRun(context: ToolContext, tool: string, declarations: Declarations, path: string): Promise<ResolvedPath> {
  const resolved = await resolveWorkspacePath(context, path);
  if (!resolved.outsideWorkspace || (await ruleNamesOutsidePath(context, tool, declarations, resolved.real))) return resolved;
  const through = resolved.real === resolved.absolute ? '' : ` (through a symlink, ${path} leads to ${resolved.real})`;
  throw new ToolError(
    `${resolved.real} is outside the workspace ${context.workspaceRoot}${through}. ${tool} works only inside the workspace ` +
      `unless a permission rule names the path, for example {"tool": "${tool}", "match": "${resolved.real}", "action": "allow"}. ` +
      'Use a path inside the workspace, or ask the user to add such a rule.',
  );
}

/** True when a permission rule lets `tool` reach `realPath` although it lies outside the workspace. */
export async function ruleNamesOutsidePath(env: CallEnvironment, tool: string, declarations: Declarations, realPath: string): Promise<boolean> {
  const decision = evaluatePermission({
    tool,
    declarations,
    subjects: [{ kind: 'path', value: realPath, outsideWorkspace: true }],
    permission: env.config.permission,
    workspaceRoot: await env.host.fs.realpath(env.workspaceRoot),
  });
  return decision.action !== 'deny';
}

/** A path in the form messages use: relative to the workspace when inside it. */
export function displayJoin(base: string, child: string): string {
  return base === '.' ? child : join(base, child);
}
