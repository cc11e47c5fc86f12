/**
 * session_search: finds past sessions of this workspace by words in their prompts, answers and
 * tool outputs (issue 9). Inspection of the store (SPEC R1 lists session search in the Safe set;
 * E3 exempts it from strict prompts): ReadOnly, Safe, ParallelSafe.
 */
import { z } from 'zod';
import { ToolError } from '../core/errors';
import type { CallEnvironment } from '../core/tool';
import { defineTool } from '../core/tool';
import type { SessionHistory } from '../core/history';
import { INSPECTION } from './work-state';

export const NO_HISTORY = 'Past sessions are not stored here, so they cannot be searched or read.';

export const historyUnavailable = (env: CallEnvironment): string | undefined => (env.history ? undefined : NO_HISTORY);

export function requireHistory(env: CallEnvironment): SessionHistory {
  if (!env.history) throw new ToolError(NO_HISTORY);
  return env.history;
}

const DEFAULT_LIMIT = 5;
/** Sessions indexed between two progress lines. */
const PROGRESS_EVERY = 25;

export const sessionSearchTool = defineTool({
  name: 'session_search',
  description:
    'Search the past sessions of this workspace for words in their prompts, answers and tool outputs. Every word must match ' +
    '(case does not matter; punctuation is ignored). Returns the best sessions first, each with its id, date, title and excerpts; ' +
    'read one whole with session_read.',
  parameters: z.strictObject({
    query: z.string().trim().min(1).max(500).describe('The words to look for'),
    limit: z.number().int().min(1).max(20).optional().describe(`How many sessions to return; default ${DEFAULT_LIMIT}`),
  }),
  declarations: INSPECTION,
  unavailableReason: historyUnavailable,
  async run(args, context) {
    const hits = requireHistory(context).searchSessions(args.query, {
      limit: args.limit ?? DEFAULT_LIMIT,
      excludeSessionId: context.sessionId,
      // Sessions from before the index existed are indexed once, by the first search that meets them: say so, not every one.
      onProgress: ({ scanned, total, indexed }) => {
        if (indexed === 1 || indexed % PROGRESS_EVERY === 0)
          context.progress(`Indexing past sessions for search: ${indexed} indexed, ${scanned} of ${total} looked at\n`);
      },
    });
    if (hits.length === 0) {
      return { output: `No past session contains all of: ${args.query}. Try fewer or other words.`, metadata: { sessions: 0 } };
    }
    const blocks = hits.map((hit, index) => {
      const header = `${index + 1}. session ${hit.sessionId} · ${new Date(hit.updatedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC${hit.title ? ` · ${hit.title}` : ''} · ${hit.score} match${hit.score === 1 ? '' : 'es'}`;
      const excerpts = hit.excerpts.map(
        (excerpt) => `   ${excerpt.kind === 'output' ? `output of call ${excerpt.ref}` : excerpt.kind}: ${excerpt.text}`,
      );
      return [header, ...excerpts].join('\n');
    });
    return { output: blocks.join('\n'), metadata: { sessions: hits.length, ids: hits.map((hit) => hit.sessionId) } };
  },
});
