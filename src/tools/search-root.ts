/**
 * Where glob and grep run rg. rg matches globs against paths relative to its working directory,
 * so it runs inside the folder searched: a pattern is then relative to `path`, as the model means
 * it. Results are shown relative to the workspace.
 */
import { basename, dirname, relative } from 'node:path';
import { ToolError } from '../core/errors';
import type { ToolContext } from '../core/tool';
import { checkedPath, isWithin } from './paths';
import { hiddenPathExclusions } from './ripgrep-run';
import { suggestNearNames, suggestionText } from './suggest';

export interface SearchRoot {
  /** The folder rg runs in. */
  readonly cwd: string;
  /** rg's path argument: the file when a single file is searched, else nothing. */
  readonly target?: string;
  /** `cwd` as shown to the model: relative to the workspace when inside it. */
  readonly displayBase: string;
  readonly isFile: boolean;
  /** rg flags leaving out what permission rules hide below `cwd` (issue 8 §5). */
  readonly exclusions: readonly string[];
}

export async function resolveSearchRoot(context: ToolContext, path: string | undefined): Promise<SearchRoot> {
  const resolved = checkedPath(context, path ?? '.');
  const stat = await context.host.fs.stat(resolved.real);
  if (!stat) {
    const suggestions = await suggestNearNames(context, resolved);
    throw new ToolError(
      `No such file or directory: ${path ?? '.'} (resolved to ${resolved.real}).${suggestionText(suggestions)} Use glob to find the right path.`,
    );
  }
  const isFile = stat.type !== 'directory';
  const cwd = isFile ? dirname(resolved.real) : resolved.real;
  const root = await context.host.fs.realpath(context.workspaceRoot);
  const displayBase = isWithin(root, cwd) ? relative(root, cwd) || '.' : cwd;
  return {
    cwd,
    displayBase,
    isFile,
    exclusions: hiddenPathExclusions(context, cwd),
    ...(isFile ? { target: basename(resolved.real) } : {}),
  };
}
