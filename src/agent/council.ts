/**
 * The council behind `council_run` (SPEC S2): several models or personas answer one question,
 * then the session's model combines their answers.
 *
 * Members answer; they do not act. Each gets the question alone, with no tools: a council is
 * for judgement (a design choice, a review, a second opinion), and a member with tools would be
 * a delegated agent with effects of its own, which is what `task` is for. So a council run
 * changes nothing, whatever its members say.
 *
 * At most `concurrency.delegations` members are asked at once, per council run. The limit is
 * not the runtime's delegation semaphore on purpose: a delegated child may convene a council
 * while it holds one of those slots, and with `delegations: 1` it would wait for itself.
 *
 * A member that fails is reported with its error, and the others still count.
 */
import type { ZunoConfig } from '../core/config';
import type { CouncilMemberAnswer, Council, CouncilVerdict } from '../core/delegation';
import { FairSharedLock } from '../core/lock';
import type { ModelSource } from './delegation';

type Member = ZunoConfig['council']['members'][number];

export interface ModelCouncilOptions {
  readonly members: readonly Member[];
  readonly models: ModelSource;
  /** Members asked at once: `concurrency.delegations`. */
  readonly concurrency: number;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function memberSystemPrompt(member: Member): string {
  const frame =
    `You are "${member.name}", one member of a council asked for its view. Answer the question directly, from your own ` +
    'knowledge and perspective. You have no tools and cannot look at files or run anything: say what you would need to ' +
    "know where that matters. Be concise; another model will combine your answer with the other members' answers.";
  return member.persona ? `${frame}\n\nYour persona:\n${member.persona}` : frame;
}

const SYNTHESIS_SYSTEM =
  'You combine the answers of a council of advisers into one answer for the agent that asked. Say where they agree, ' +
  'where they disagree and which view is better supported, and give a clear recommendation. Do not invent views no member gave.';

function synthesisPrompt(question: string, answers: readonly CouncilMemberAnswer[]): string {
  const parts = answers.map((member) =>
    member.answer !== undefined
      ? `## ${member.name}\n${member.answer}`
      : `## ${member.name}\n(no answer: ${member.error ?? 'unknown error'})`,
  );
  return `The question put to the council:\n${question}\n\nThe members' answers:\n\n${parts.join('\n\n')}`;
}

export class ModelCouncil implements Council {
  constructor(private readonly options: ModelCouncilOptions) {}

  async convene(question: string, signal: AbortSignal): Promise<CouncilVerdict> {
    const limit = new FairSharedLock(this.options.concurrency);
    const members = await Promise.all(this.options.members.map((member) => this.ask(member, question, limit, signal)));
    signal.throwIfAborted();
    if (!members.some((member) => member.answer !== undefined)) {
      return { members, synthesisError: 'no member answered, so there is nothing to combine' };
    }
    try {
      const provider = await this.options.models.forModel(undefined);
      const response = await provider.stream(
        { system: SYNTHESIS_SYSTEM, messages: [{ role: 'user', content: synthesisPrompt(question, members) }], tools: [], signal },
        () => undefined,
      );
      const synthesis = response.text.trim();
      return synthesis === '' ? { members, synthesisError: 'the model gave an empty synthesis' } : { members, synthesis };
    } catch (error) {
      signal.throwIfAborted();
      return { members, synthesisError: messageOf(error) };
    }
  }

  private async ask(member: Member, question: string, limit: FairSharedLock, signal: AbortSignal): Promise<CouncilMemberAnswer> {
    const identity = { name: member.name, ...(member.model !== undefined ? { model: member.model } : {}) };
    let release: () => void;
    try {
      release = await limit.acquire('shared', signal);
    } catch {
      return { ...identity, error: 'cancelled before it was asked' };
    }
    try {
      const provider = await this.options.models.forModel(member.model);
      const response = await provider.stream(
        { system: memberSystemPrompt(member), messages: [{ role: 'user', content: question }], tools: [], signal },
        () => undefined,
      );
      const answer = response.text.trim();
      return answer === '' ? { ...identity, error: 'gave an empty answer' } : { ...identity, answer };
    } catch (error) {
      return { ...identity, error: messageOf(error) };
    } finally {
      release();
    }
  }
}
