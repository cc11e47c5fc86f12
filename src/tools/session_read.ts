/**
 * session_read: one past session's transcript, paged by message and capped like read (issue 9).
 * Inspection of the store: ReadOnly, Safe, ParallelSafe (SPEC R1, E3).
 */
import { z } from 'zod';
import { ToolError } from '../core/errors';
import { defineTool } from '../core/tool';
import type { TranscriptMessage } from '../core/transcript';
import { INSPECTION } from './work-state';
import { historyUnavailable, requireHistory } from './session_search';

const DEFAULT_LIMIT = 50;
/** A message longer than this is cut with a marker, like read's long lines. */
const MAX_MESSAGE_CHARS = 4000;
/** Room kept under `tool_output.max_bytes` for the closing note. */
const NOTE_BYTES = 512;

function render(index: number, message: TranscriptMessage): string {
  const clip = (text: string): string =>
    text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)} … [${text.length - MAX_MESSAGE_CHARS} more characters]` : text;
  switch (message.role) {
    case 'assistant': {
      const calls = (message.toolCalls ?? []).map((call) => `\n    → ${call.name} ${clip(call.arguments)} (call ${call.id})`).join('');
      return `[${index}] assistant: ${clip(message.content)}${calls}`;
    }
    case 'tool':
      return `[${index}] tool ${message.toolName} (call ${message.callId}): ${clip(message.content)}`;
    default:
      return `[${index}] ${message.role}: ${clip(message.content)}`;
  }
}

export const sessionReadTool = defineTool({
  name: 'session_read',
  description:
    'Read the transcript of one past session of this workspace (find its id with session_search): its messages in order, ' +
    'numbered from 1, with the tool calls and their results. Long messages are cut with a marker; the note at the end says which ' +
    'messages were shown, of how many, and the offset to continue from.',
  parameters: z.strictObject({
    session_id: z.string().trim().min(1).max(200).describe('The session id, as session_search shows it'),
    offset: z.number().int().min(1).optional().describe('The 1-based message to start at; default 1'),
    limit: z.number().int().min(1).max(1000).optional().describe(`How many messages to return; default ${DEFAULT_LIMIT}`),
  }),
  declarations: INSPECTION,
  unavailableReason: historyUnavailable,
  async run(args, context) {
    const session = requireHistory(context).readSession(args.session_id);
    if (!session) throw new ToolError(`There is no session "${args.session_id}" in this workspace. Find session ids with session_search.`);
    const total = session.messages.length;
    const offset = args.offset ?? 1;
    if (total > 0 && offset > total)
      throw new ToolError(
        `Session ${session.id} has ${total} messages; offset ${offset} is past the end. Use an offset from 1 to ${total}.`,
      );
    const maxBytes = context.config.tool_output.max_bytes - NOTE_BYTES;
    const lines: string[] = [];
    let bytes = 0;
    let last = offset - 1;
    for (const [index, message] of session.messages.slice(offset - 1, offset - 1 + (args.limit ?? DEFAULT_LIMIT)).entries()) {
      const line = render(offset + index, message);
      const size = Buffer.byteLength(line, 'utf8') + 1;
      if (bytes + size > maxBytes && lines.length > 0) break;
      lines.push(line);
      bytes += size;
      last = offset + index;
    }
    const header = `Session ${session.id}${session.title ? ` · ${session.title}` : ''} · ${session.status} · started ${new Date(session.createdAt).toISOString()} · last updated ${new Date(session.updatedAt).toISOString()}`;
    const note =
      total === 0
        ? '(the session has no messages)'
        : last < total
          ? `(messages ${offset}–${last} of ${total}; continue with offset ${last + 1})`
          : `(messages ${offset}–${last} of ${total}; end of session)`;
    return { output: [header, ...lines, note].join('\n'), metadata: { session_id: session.id, total, first: offset, last } };
  },
});
