/**
 * memory_propose: proposes a fact worth remembering across sessions (SPEC S2). It exists only
 * when `memory.enabled` is set. A proposal changes persistent state, so it is SideEffecting and
 * asks in strict mode (E3); it only takes effect once the user accepts it (CLI `zuno memory`,
 * or the editor), and accepted memories are added to later sessions' context.
 */
import { z } from 'zod';
import { ToolError } from '../core/errors';
import { defineTool } from '../core/tool';
import { STATE_CHANGE } from './work-state';

export const memoryProposeTool = defineTool({
  name: 'memory_propose',
  description:
    'Propose one durable fact about this user or project to remember in future sessions (a convention, a preference, ' +
    'where something lives). Keep it to one or two sentences and never include secrets. The user reviews proposals; ' +
    'only accepted ones are remembered.',
  parameters: z.strictObject({ text: z.string().trim().min(1).max(2000).describe('The fact, self-contained.') }),
  declarations: STATE_CHANGE,
  subjects: async () => [{ kind: 'name', value: 'memory' }],
  unavailableReason: (env) =>
    env.config.memory.enabled && env.memories ? undefined : 'Memory is off. The user can turn it on with "memory": {"enabled": true}.',
  async run(args, context) {
    const memories = context.memories;
    if (!memories) throw new ToolError('Memory is off.');
    const memory = memories.proposeMemory(args.text, context.sessionId);
    return {
      output: `Proposed memory ${memory.id} (${memory.status}). The user decides whether to keep it.`,
      metadata: { id: memory.id, status: memory.status },
    };
  },
});
