/**
 * An MCP server asking the user (elicitation, form mode; issue 11) through Zuno's question UI,
 * the same UserMediated path as the `question` tool: first whether to answer at all, then one
 * question per field of the requested schema (enums and booleans as options, text and numbers
 * typed). The question says which server asks, since its words are the server's, not Zuno's.
 * Declining is `decline`; dismissing any question is `cancel`, as the MCP spec defines them.
 * Where no one can answer (a CLI without a terminal) the host declines with that reason.
 */
import type { QuestionAnswer, QuestionGateway } from './host';

export interface McpElicitation {
  readonly message: string;
  /** The form: `{type: "object", properties, required}` with flat primitive fields. */
  readonly requestedSchema: unknown;
}

export type McpElicitationResult =
  | { readonly action: 'accept'; readonly content: Readonly<Record<string, string | number | boolean | readonly string[]>> }
  | { readonly action: 'decline' | 'cancel' };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A choice as shown (title) and as sent (value). */
interface Choice {
  readonly title: string;
  readonly value: string;
}

/** The choices of an enum field, in each way the spec writes them: enum (+ legacy enumNames), oneOf/anyOf of const+title. */
function choicesOf(schema: Record<string, unknown>): Choice[] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map((value, index) => ({
      value: String(value),
      title: typeof names[index] === 'string' ? names[index] : String(value),
    }));
  }
  const variants = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (!variants) return undefined;
  const choices = variants
    .filter(isRecord)
    .map((variant) => ({ value: String(variant.const), title: typeof variant.title === 'string' ? variant.title : String(variant.const) }));
  return choices.length > 0 ? choices : undefined;
}

/** Options must be unique to map back; a repeated title gets its value added. */
function labelled(choices: readonly Choice[]): Choice[] {
  const seen = new Map<string, number>();
  for (const choice of choices) seen.set(choice.title, (seen.get(choice.title) ?? 0) + 1);
  return choices.map((choice) => ((seen.get(choice.title) ?? 0) > 1 ? { ...choice, title: `${choice.title} (${choice.value})` } : choice));
}

const SKIP = '(leave empty)';
const YES = 'yes';
const NO = 'no';
const ANSWER = 'Answer';
const DECLINE = 'Decline';
const MAX_TRIES = 3;

export interface ElicitationContext {
  readonly server: string;
  readonly callId: string;
  readonly sessionId: string;
  readonly questions: QuestionGateway;
  readonly signal: AbortSignal;
}

/** Asks the form's fields one by one; see the file comment. */
export async function elicitThroughQuestions(request: McpElicitation, context: ElicitationContext): Promise<McpElicitationResult> {
  const schema = isRecord(request.requestedSchema) ? request.requestedSchema : {};
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [],
  );
  const fields = Object.entries(properties).filter((entry): entry is [string, Record<string, unknown>] => isRecord(entry[1]));
  const ask = (question: string, options?: readonly string[], multiple?: boolean): Promise<QuestionAnswer> =>
    context.questions.ask(
      {
        callId: context.callId,
        sessionId: context.sessionId,
        question,
        ...(options ? { options, multiple: multiple === true, allowFreeText: false } : { allowFreeText: true }),
      },
      context.signal,
    );

  const wanted = fields.map(
    ([name, field]) => `${typeof field.title === 'string' ? field.title : name}${required.has(name) ? ' (required)' : ''}`,
  );
  const intro = `MCP server "${context.server}" asks you (these are the server's words, not Zuno's):\n\n${request.message}${wanted.length > 0 ? `\n\nIt wants: ${wanted.join(', ')}.` : ''}`;
  const gate = await ask(intro, [ANSWER, DECLINE]);
  if (!gate.answered) return { action: 'cancel' };
  if (gate.selected.includes(DECLINE) || !gate.selected.includes(ANSWER)) return { action: 'decline' };

  const content: Record<string, string | number | boolean | readonly string[]> = {};
  for (const [name, field] of fields) {
    const optional = !required.has(name);
    const title = typeof field.title === 'string' ? field.title : name;
    const about = `${title}${typeof field.description === 'string' ? `: ${field.description}` : ''}`;
    const defaultText = field.default !== undefined ? ` Default: ${JSON.stringify(field.default)}.` : '';
    const header = `MCP server "${context.server}" asks for ${about}.${defaultText}`;
    const single = choicesOf(field);
    const multiple = field.type === 'array' && isRecord(field.items) ? choicesOf(field.items) : undefined;
    if (single || multiple || field.type === 'boolean') {
      const choices = labelled(
        single ??
          multiple ?? [
            { title: YES, value: 'true' },
            { title: NO, value: 'false' },
          ],
      );
      const options = [...choices.map((choice) => choice.title), ...(optional ? [SKIP] : [])];
      const answer = await ask(header, options, multiple !== undefined);
      if (!answer.answered) return { action: 'cancel' };
      const picked = choices.filter((choice) => answer.selected.includes(choice.title)).map((choice) => choice.value);
      if (picked.length === 0) {
        if (optional) continue;
        return { action: 'cancel' };
      }
      content[name] = multiple ? picked : field.type === 'boolean' ? picked[0] === 'true' : (picked[0] ?? '');
      continue;
    }
    const numeric = field.type === 'number' || field.type === 'integer';
    let problem = '';
    let value: string | number | undefined;
    for (let attempt = 1; attempt <= MAX_TRIES && value === undefined; attempt++) {
      const hint = optional ? ' Leave it empty to skip.' : '';
      const answer = await ask(`${header}${hint}${problem}`);
      if (!answer.answered) return { action: 'cancel' };
      const text = (answer.text ?? '').trim();
      if (text === '') {
        if (optional) break;
        problem = ' An answer is required.';
        continue;
      }
      if (!numeric) value = text;
      else {
        const number = Number(text);
        if (!Number.isFinite(number) || (field.type === 'integer' && !Number.isInteger(number)))
          problem = ` "${text}" is not ${field.type === 'integer' ? 'a whole number' : 'a number'}.`;
        else if (typeof field.minimum === 'number' && number < field.minimum) problem = ` ${number} is below ${field.minimum}.`;
        else if (typeof field.maximum === 'number' && number > field.maximum) problem = ` ${number} is above ${field.maximum}.`;
        else value = number;
      }
    }
    if (value !== undefined) content[name] = value;
    else if (!optional) return { action: 'cancel' };
  }
  return { action: 'accept', content };
}
