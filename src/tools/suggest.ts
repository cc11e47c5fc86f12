/**
 * "Did you mean" for a path that does not exist: names in the nearest existing folder that are a
 * small edit away, and files with the same name elsewhere in the workspace (found with rg, which
 * skips ignored folders such as node_modules).
 */
import { basename, dirname, join, relative } from 'node:path';
import type { ToolContext } from '../core/tool';
import { isWithin, type ResolvedPath } from './paths';
import { runRipgrep, COMMON_RIPGREP_FLAGS, EXCLUDE_GIT_DIRECTORY, hiddenPathExclusions } from './ripgrep-run';

const MAX_SUGGESTIONS = 6;

/** Levenshtein distance, case-insensitive. */
export function editDistance(left: string, right: string): number {
  const a = left.toLowerCase();
  const b = right.toLowerCase();
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

const stem = (name: string): string => name.replace(/\.[^.]*$/, '').toLowerCase();

/** Whether `candidate` looks like a misspelling of `wanted`. */
function isNear(wanted: string, candidate: string): boolean {
  if (stem(wanted) === stem(candidate) && stem(wanted).length > 0) return true;
  return editDistance(wanted, candidate) <= Math.max(2, Math.floor(wanted.length / 4));
}

const escapeGlob = (text: string): string => text.replace(/[\\[\]{}*?!]/g, '\\$&');

async function nearestExistingDirectory(context: ToolContext, path: string): Promise<{ directory: string; missing: string } | undefined> {
  let missing = basename(path);
  for (let directory = dirname(path); ; directory = dirname(directory)) {
    const stat = await context.host.fs.stat(directory);
    if (stat?.type === 'directory') return { directory, missing };
    if (dirname(directory) === directory) return undefined;
    missing = basename(directory);
  }
}

/** Display forms of paths that may be what the model meant; empty when nothing is close. */
export async function suggestNearNames(context: ToolContext, resolved: ResolvedPath): Promise<string[]> {
  const root = await context.host.fs.realpath(context.workspaceRoot);
  const show = (path: string): string => (isWithin(root, path) ? relative(root, path) || '.' : path);
  // A suggestion must not name what permission rules hide (issue 8 §5).
  const visible = (path: string, type?: 'file'): boolean => !context.visibility.isHidden(path, type);
  const suggestions = new Set<string>();

  const nearest = await nearestExistingDirectory(context, resolved.real);
  if (nearest) {
    // An ancestor of a checked real path is real too: listed checked, so a swapped-in link shows nothing outside.
    const entries = await context.host.fs.readDirectoryChecked(nearest.directory).catch(() => []);
    entries
      .filter((entry) => isNear(nearest.missing, entry.name) && visible(join(nearest.directory, entry.name)))
      .map((entry) => ({ entry, distance: editDistance(nearest.missing, entry.name) }))
      .sort((left, right) => left.distance - right.distance || (left.entry.name < right.entry.name ? -1 : 1))
      .slice(0, MAX_SUGGESTIONS)
      .forEach(({ entry }) => suggestions.add(show(join(nearest.directory, entry.name)) + (entry.type === 'directory' ? '/' : '')));
  }

  const name = basename(resolved.real);
  if (name.length > 0 && suggestions.size < MAX_SUGGESTIONS) {
    const found: string[] = [];
    try {
      await runRipgrep(context, {
        args: [
          ...COMMON_RIPGREP_FLAGS,
          '--files',
          `--iglob=**/${escapeGlob(name)}`,
          EXCLUDE_GIT_DIRECTORY,
          ...hiddenPathExclusions(context, root),
        ],
        cwd: root,
        separator: '\n',
        onRecord: (record) => {
          if (record.text.length > 0 && visible(join(root, record.text), 'file')) found.push(record.text);
          return found.length < MAX_SUGGESTIONS;
        },
      });
    } catch {
      // Suggestions are a courtesy: only a cancel may interrupt the answer.
      context.signal.throwIfAborted();
    }
    for (const path of found.sort()) if (suggestions.size < MAX_SUGGESTIONS) suggestions.add(path);
  }
  return [...suggestions];
}

/** The sentence a "not found" error ends with. */
export function suggestionText(suggestions: readonly string[]): string {
  return suggestions.length > 0 ? ` Did you mean: ${suggestions.join(', ')}?` : '';
}
