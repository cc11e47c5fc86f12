/**
 * council_run: ask the configured council one question (SPEC S2, E1 Delegating). Offered only
 * when `council.members` is not empty. Members answer without tools (see src/agent/council.ts),
 * so the call has no effect on the workspace; it is still Delegating, because it hands work to
 * other models, which strict mode asks about. ParallelSafe: it only makes model requests.
 */
import { z } from 'zod';
import type { Declarations } from '../core/declarations';
import { ToolError } from '../core/errors';
import { defineTool, type CallEnvironment } from '../core/tool';

const DECLARATIONS: Declarations = { effect: 'Delegating', replay: 'Never', concurrency: 'ParallelSafe' };

const NOT_CONFIGURED =
  'No council is configured. The user can add members to "council.members" in .zuno/config.json (or the zuno.council.members setting), ' +
  'e.g. [{"name": "critic", "persona": "You look for flaws and risks."}, {"name": "second-opinion", "model": "another-model"}]. Until then, decide yourself.';
const NOT_CONNECTED = 'The council cannot be reached from here: this host has no model connection for it. Decide yourself.';

const DESCRIPTION = `Ask the configured council of advisers one question, and get each member's answer plus a synthesis that combines them. Use it for judgement calls where a second opinion helps: a design choice, a risky change, a review of a plan.

Members are asked in parallel. A member that fails is reported, and the others still count.`;

const parameters = z.strictObject({
  question: z
    .string()
    .trim()
    .min(1)
    .max(50_000)
    .describe(
      'Self-contained, with the facts the members need: they do not see your conversation or the workspace and have no tools, so paste the relevant code or plan in',
    ),
});

function councilUnavailable(env: CallEnvironment): string | undefined {
  if (env.config.council.members.length === 0) return NOT_CONFIGURED;
  return env.council ? undefined : NOT_CONNECTED;
}

export const councilRunTool = defineTool({
  name: 'council_run',
  description: DESCRIPTION,
  parameters,
  declarations: DECLARATIONS,
  unavailableReason: councilUnavailable,
  async run(args, context) {
    const unavailable = councilUnavailable(context);
    if (unavailable !== undefined || !context.council) throw new ToolError(unavailable ?? NOT_CONNECTED);
    const verdict = await context.council.convene(args.question, context.signal);
    const sections = verdict.members.map((member) => {
      const who = `## ${member.name}${member.model !== undefined ? ` (${member.model})` : ''}`;
      return member.answer !== undefined ? `${who}\n${member.answer}` : `${who}\nFAILED: ${member.error ?? 'unknown error'}`;
    });
    const answered = verdict.members.filter((member) => member.answer !== undefined).length;
    const synthesis =
      verdict.synthesis !== undefined
        ? `## Synthesis\n${verdict.synthesis}`
        : `## Synthesis\nNot available (${verdict.synthesisError ?? 'unknown error'}).${answered > 0 ? ' Weigh the answers above yourself.' : ''}`;
    const heading = `The council answered: ${answered} of ${verdict.members.length} member${verdict.members.length === 1 ? '' : 's'}.`;
    const metadata = { members: verdict.members.length, answered, synthesized: verdict.synthesis !== undefined };
    if (answered === 0) {
      return {
        status: 'error',
        output: `${heading} Every member failed, so there is no advice; decide yourself, or try again if the failures look temporary.\n\n${sections.join('\n\n')}`,
        metadata,
      };
    }
    return { output: `${heading}\n\n${sections.join('\n\n')}\n\n${synthesis}`, metadata };
  },
});
