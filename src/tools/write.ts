/**
 * write: create a file, or deliberately replace a whole file (SPEC S1). The content lands exactly
 * as given (or as the user edited it in the diff preview); an atomic rename means no reader ever
 * sees half a file.
 */
import { createPatch } from 'diff';
import { z } from 'zod';
import type { Declarations } from '../core/declarations';
import { ToolError } from '../core/errors';
import type { FileChange } from '../core/host';
import { defineTool, type CallEnvironment } from '../core/tool';
import { checkedPath, pathSubject, resolveWorkspacePath } from './paths';

const DECLARATIONS: Declarations = { effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' };

const DESCRIPTION = `Create a new file, or deliberately replace the whole content of an existing one. For a change to part of an existing file, use apply_patch instead: it verifies the surrounding lines and leaves the rest of the file untouched.

The user may be asked to approve the change in a diff preview and may edit it there; the result then tells you exactly what the user changed, as a unified diff against your proposal. Returns whether the file was created or replaced, with its size in bytes and lines.`;

const parameters = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe(
      'File to write, relative to the workspace root; missing parent folders are created. Paths outside the workspace (symlinks included) are refused unless a permission rule names them.',
    ),
  content: z.string().describe('The complete new content, written exactly as given: line endings, final newline and all'),
});

const countLines = (text: string): number => (text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
const describe = (text: string): string => `${Buffer.byteLength(text)} bytes, ${countLines(text)} line${countLines(text) === 1 ? '' : 's'}`;

function lineEndings(text: string): 'CRLF' | 'LF' | 'none' {
  if (!text.includes('\n')) return 'none';
  return text.includes('\r\n') ? 'CRLF' : 'LF';
}

/** The current text of a file, if it is a file and decodes as UTF-8 text. `path` is real, so it is read checked. */
async function currentText(env: CallEnvironment, path: string): Promise<{ exists: boolean; text: string | undefined }> {
  const stat = await env.host.fs.stat(path);
  if (!stat) return { exists: false, text: undefined };
  if (stat.type === 'directory') throw new ToolError(`${path} is a folder. write creates or replaces files; choose a file path inside it.`);
  const bytes = await env.host.fs.readFileChecked(path);
  try {
    return { exists: true, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { exists: true, text: undefined };
  }
}

export const writeTool = defineTool({
  name: 'write',
  description: DESCRIPTION,
  parameters,
  declarations: DECLARATIONS,
  subjects: async (args, env) => [await pathSubject(env, args.path)],
  async preview(args, env): Promise<FileChange[]> {
    const resolved = await resolveWorkspacePath(env, args.path);
    const current = await currentText(env, resolved.real);
    return [
      {
        path: resolved.real,
        kind: current.exists ? 'update' : 'create',
        before: current.exists ? (current.text ?? '(binary content)') : undefined,
        after: args.content,
      },
    ];
  },
  async run(args, context) {
    const resolved = checkedPath(context, args.path);
    const current = await currentText(context, resolved.real);
    const edited = context.approvedEdits?.[resolved.real] ?? context.approvedEdits?.[resolved.absolute];
    const content = edited ?? args.content;
    await context.host.fs.writeFileAtomic(resolved.real, new TextEncoder().encode(content));

    const parts = [
      current.exists
        ? `Replaced ${resolved.display} (${describe(content)}; it had ${current.text === undefined ? 'binary content' : describe(current.text)}).`
        : `Created ${resolved.display} (${describe(content)}).`,
    ];
    if (current.text !== undefined) {
      const before = lineEndings(current.text);
      const after = lineEndings(content);
      if (before !== 'none' && after !== 'none' && before !== after) {
        parts.push(`Note: the old file used ${before} line endings and the new content uses ${after}, written as given.`);
      }
    }
    if (edited !== undefined && edited !== args.content) {
      const diff = createPatch(resolved.display, args.content, edited, 'your proposal', 'what the user approved and was written');
      parts.push(
        `The user edited your content in the diff preview before approving, and their version is what was written. ` +
          `Their changes, as a unified diff from your proposal:\n${diff}\nBuild on the written version, not on your proposal.`,
      );
    }
    return {
      output: parts.join('\n'),
      metadata: {
        path: resolved.real,
        created: !current.exists,
        bytes: Buffer.byteLength(content),
        userEdited: edited !== undefined && edited !== args.content,
      },
    };
  },
});
