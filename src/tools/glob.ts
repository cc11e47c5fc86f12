/**
 * glob: find files by name pattern with `rg --files` (SPEC S4).
 */
import { join } from 'node:path';
import { z } from 'zod';
import type { Declarations } from '../core/declarations';
import { ToolError } from '../core/errors';
import { defineTool } from '../core/tool';
import { displayJoin, pathSubject } from './paths';
import {
  comparePaths,
  COMMON_RIPGREP_FLAGS,
  EXCLUDE_GIT_DIRECTORY,
  pathGlobFilter,
  ripgrepFailure,
  runRipgrep,
  SmallestItems,
  withheldNote,
} from './ripgrep-run';
import { resolveSearchRoot } from './search-root';

const DECLARATIONS: Declarations = { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' };
const DEFAULT_LIMIT = 1000;

const DESCRIPTION = `Find files by name pattern. Use it to locate files before reading or editing them; to search inside files use grep instead.

Returns matching file paths relative to the workspace root, one per line, sorted by path, and how many matched in total. Files ignored by .gitignore, .ignore or .rgignore are skipped (even outside a git repository), the .git folder is skipped, other hidden files are included, and symlinks are not followed. Only files are listed, not folders.`;

const parameters = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .describe(
      'Glob, relative to `path`. `*` and `?` stay within one folder, `**` crosses folders, `{a,b}` and `[abc]` work, a leading `!` lists the files that do NOT match. Without a slash it matches file names at any depth: `*.ts` finds every TypeScript file, `src/**/*.test.ts` only those under src/.',
    ),
  path: z.string().min(1).optional().describe('Folder to search, relative to the workspace root; default the root'),
  limit: z.number().int().min(1).max(10_000).optional().describe(`How many paths to return; default ${DEFAULT_LIMIT}`),
});

export const globTool = defineTool({
  name: 'glob',
  description: DESCRIPTION,
  parameters,
  declarations: DECLARATIONS,
  subjects: async (args, env) => [await pathSubject(env, args.path ?? '.')],
  async run(args, context) {
    const root = await resolveSearchRoot(context, args.path);
    if (root.isFile) throw new ToolError(`${args.path ?? '.'} is a file, not a folder. glob searches folders; use read to see the file.`);
    const limit = args.limit ?? DEFAULT_LIMIT;
    const paths = new SmallestItems<string>(limit, comparePaths);
    const matches = pathGlobFilter(args.pattern);
    let hidden = 0;
    const run = await runRipgrep(context, {
      args: [...COMMON_RIPGREP_FLAGS, '--files', '--null', EXCLUDE_GIT_DIRECTORY, ...root.exclusions],
      cwd: root.cwd,
      separator: '\0',
      onRecord: (record) => {
        if (record.text.length === 0 || !matches(record.text)) return;
        if (context.visibility.isHidden(join(root.cwd, record.text), 'file')) hidden++;
        else paths.add(record.text);
      },
    });
    const withheld = withheldNote(hidden, 'matching file', root.exclusions.length > 0);
    const failure = ripgrepFailure(run, `Listing files matching ${JSON.stringify(args.pattern)}`);
    if (failure && paths.total === 0) throw failure;
    const where = root.displayBase === '.' ? 'the workspace' : root.displayBase;
    if (paths.total === 0) {
      return {
        output:
          `No files match ${JSON.stringify(args.pattern)} in ${where}. Files ignored by .gitignore are skipped, and a pattern ` +
          `with a slash must match the whole path below \`path\`: try "**/" before it, or a broader pattern.${withheld}`,
        metadata: { count: 0, hidden },
      };
    }
    const shown = paths.values().map((path) => displayJoin(root.displayBase, path));
    const more =
      paths.total > shown.length ? `\n[${paths.total - shown.length} more not shown: narrow the pattern or the path, or raise limit.]` : '';
    const errors = failure && run.stderr.length > 0 ? `\n[rg reported problems with some files: ${run.stderr}]` : '';
    return {
      output: `${paths.total} file${paths.total === 1 ? '' : 's'} match ${JSON.stringify(args.pattern)} in ${where}${paths.total > shown.length ? `; the first ${shown.length} by path` : ''}:\n${shown.join('\n')}${more}${withheld}${errors}`,
      metadata: { count: paths.total, shown: shown.length, hidden },
    };
  },
});
