/**
 * apply_patch (SPEC S1): the default way a model edits source. A local, context-verified edit
 * in the envelope format models are widely trained on; every hunk is checked against the file
 * as it is at run time, and a multi-file patch lands whole or not at all.
 */
import { z } from 'zod';
import { ToolError } from '../core/errors';
import { defineTool, type CallEnvironment, type CallSubject, type ToolContext, type ToolResult } from '../core/tool';
import { pathSubject } from './paths';
import {
  applyUserEdits,
  commitChanges,
  previewOf,
  readExisting,
  previewPaths,
  runPaths,
  type PathSource,
  type PlannedChange,
} from './patch/changes';
import { NEW_FILE_FORMAT } from './patch/format';
import { applyHunks } from './patch/hunks';
import { parsePatch, PatchSyntaxError, type PatchOperation } from './patch/parser';
import { describeOutcome } from './patch/report';

const DESCRIPTION = `Edit files with a patch: add, delete, update and rename files in one call. This is the default way to change existing source; use write only to create a file or replace one whole.

The argument "patch" is the whole envelope, starting with "*** Begin Patch" and ending with "*** End Patch":

*** Begin Patch
*** Add File: path/new.txt
+every line of the new file, each starting with "+"
*** Delete File: path/old.txt
*** Update File: path/src.ts
*** Move to: path/renamed.ts        (optional, right after Update File: also rename the file)
@@ function or class signature      (optional: the hunk comes after the file line it names)
 context line, starting with one space
-removed line
+added line
*** End of File                     (optional: the hunk ends at the last line of the file)
*** End Patch

Rules:
- Paths are relative to the workspace (absolute paths only inside it). Add File refuses an existing file; Update, Delete and Move refuse a missing one; Move to refuses an existing destination. Each file may appear once per patch.
- Every hunk's context and "-" lines must match the file as it is now. Give about 3 unchanged context lines before and after each change. Matching is exact first, then ignoring trailing whitespace, then leading and trailing whitespace, then typographic quotes and dashes; matched context lines keep the file's own text.
- Hunks for one file go in file order; each is searched after the previous one. Without an @@ line a hunk must match exactly one place; with one, the nearest match after the named line is used. A hunk with only "+" lines inserts after its @@ line, or at the end of the file without one.
- All files or none: every hunk of every file is verified before anything is written; if one fails, nothing changes, and the error names the hunk and shows the closest region of the file with line numbers (or, when it is ambiguous, the candidate line numbers).
- Each file keeps its line endings (CRLF or LF; mixed endings become the majority), its UTF-8 BOM and whether it ends with a newline. New files get LF endings and a final newline.
- The user may edit your proposal before approving; the result then shows what they changed as a diff.

Returns one line per file (A added, M modified, D deleted, R renamed, with +added -removed line counts). Read a file again before patching it further.`;

const parameters = z.strictObject({
  patch: z
    .string()
    .describe('The whole patch, from "*** Begin Patch" to "*** End Patch".')
    // A malformed envelope is malformed arguments: it is blocked before anything runs (SPEC B1),
    // and the message names the patch line and what was expected there.
    .superRefine((patch, context) => {
      try {
        parsePatch(patch);
      } catch (error) {
        if (!(error instanceof PatchSyntaxError)) throw error;
        context.addIssue({ code: 'custom', message: error.message });
      }
    }),
});

type Arguments = z.output<typeof parameters>;

/** Where an operation came from, for errors: `Patch line 7 (Update File src/a.ts)`. */
function origin(operation: PatchOperation): string {
  const verb = { add: 'Add File', delete: 'Delete File', update: 'Update File' }[operation.kind];
  return `Patch line ${operation.patchLine} (${verb} ${operation.path})`;
}

async function planOperation(operation: PatchOperation, env: CallEnvironment, paths: PathSource): Promise<PlannedChange> {
  const { fs } = env.host;
  const path = await paths(operation.path);
  if (operation.kind === 'add') {
    if (await fs.lstat(path.real)) {
      throw new ToolError(
        `${origin(operation)}: ${path.display} already exists. Use Update File to change it, or write to replace it whole.`,
      );
    }
    const after = { format: NEW_FILE_FORMAT, lines: operation.lines, endsWithNewline: operation.lines.length > 0 };
    return { kind: 'create', path, after };
  }
  const before = await readExisting(fs, path).catch((error: unknown) => {
    throw error instanceof ToolError ? new ToolError(`${origin(operation)}: ${error.message}`) : error;
  });
  if (!before) {
    const remedy = operation.kind === 'delete' ? 'there is nothing to delete' : 'or use Add File to create it';
    throw new ToolError(`${origin(operation)}: ${path.display} does not exist. Check the path (glob finds files by name); ${remedy}.`);
  }
  if (operation.kind === 'delete') return { kind: 'delete', path, before };
  const after = applyHunks(before.text, operation.hunks, path.display);
  if (operation.moveTo === undefined) return { kind: 'update', path, before, after };
  const movedTo = await paths(operation.moveTo);
  if (movedTo.real === path.real) return { kind: 'update', path, before, after };
  if (await fs.lstat(movedTo.real)) {
    throw new ToolError(
      `${origin(operation)}: cannot move to ${movedTo.display}, which already exists. Choose another destination, or delete it in a separate patch first.`,
    );
  }
  return { kind: 'move', path, movedTo, before, after };
}

/** Two operations on one file would make "all or none" ambiguous; the model merges them instead. */
function duplicateProblem(changes: readonly PlannedChange[], operations: readonly PatchOperation[]): string | undefined {
  const seen = new Map<string, PatchOperation>();
  for (const [position, change] of changes.entries()) {
    const operation = operations[position];
    if (!operation) continue;
    const touched = change.kind === 'move' ? [change.path, change.movedTo] : [change.path];
    for (const path of touched) {
      const earlier = seen.get(path.real);
      if (earlier) {
        return `${origin(operation)}: ${path.display} is already touched by ${origin(earlier)}. Each file may appear once per patch: merge the hunks into one Update File section.`;
      }
      seen.set(path.real, operation);
    }
  }
  return undefined;
}

/**
 * Verifies the whole patch against the files as they are now and computes every new content.
 * Reads only: nothing touches the disk here, so a refusal leaves every file as it was.
 */
async function planPatch(patch: string, env: CallEnvironment, paths: PathSource): Promise<PlannedChange[]> {
  const operations = parsePatch(patch);
  const changes: PlannedChange[] = [];
  // Every file is verified even after one fails, so the model can repair all of them in one try.
  const problems: string[] = [];
  for (const operation of operations) {
    try {
      changes.push(await planOperation(operation, env, paths));
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      problems.push(error.message);
    }
  }
  // Positions line up only when every operation was planned.
  const duplicate = problems.length === 0 ? duplicateProblem(changes, operations) : undefined;
  if (duplicate) problems.push(duplicate);
  if (problems.length > 0) {
    throw new ToolError(
      `${problems.join('\n\n')}\n\nNo file was changed. Fix ${problems.length === 1 ? 'this' : 'these'} and send the whole patch again.`,
    );
  }
  return changes;
}

async function subjects(args: Arguments, env: CallEnvironment): Promise<CallSubject[]> {
  const paths = parsePatch(args.patch).flatMap((operation) =>
    operation.kind === 'update' && operation.moveTo !== undefined ? [operation.path, operation.moveTo] : [operation.path],
  );
  return Promise.all(paths.map((path) => pathSubject(env, path)));
}

async function run(args: Arguments, context: ToolContext): Promise<ToolResult> {
  // Planned again from disk at run time: a file that changed since the preview is verified as
  // it is now, and a result computed before approval is never written.
  const planned = await planPatch(args.patch, context, runPaths(context));
  const { changes, edits } = applyUserEdits(planned, context.approvedEdits);
  if (context.signal.aborted) throw new ToolError('Cancelled before anything was written; no file was changed.');
  const leftovers = await commitChanges(context.host.fs, changes);
  return describeOutcome(`Patch applied to ${changes.length} file${changes.length === 1 ? '' : 's'}:`, changes, edits, leftovers);
}

export const applyPatchTool = defineTool({
  name: 'apply_patch',
  description: DESCRIPTION,
  parameters,
  declarations: { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' },
  subjects,
  preview: async (args, env) => (await planPatch(args.patch, env, previewPaths(env))).map(previewOf),
  run,
});
