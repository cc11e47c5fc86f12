/**
 * "Zuno: Export Chat" (issue 14 item 14): a session's transcript as Markdown, built from its stored
 * events. Messages are kept whole (they are Markdown already); each tool call is one line saying
 * what it was about and how it ended, with a delegated task's calls nested under it. No `vscode`
 * import, so the format is unit-tested.
 */
import type { PermissionRule } from '../../core/config';
import type { ZunoEvent } from '../../core/events';

export interface ExportedChat {
  readonly sessionId: string;
  readonly title: string;
  readonly exportedAt: Date;
  readonly events: readonly ZunoEvent[];
}

/** Argument names that say what a call is about, most telling first. */
const SUBJECT_KEYS = ['command', 'path', 'file_path', 'pattern', 'url', 'query', 'goal', 'question', 'prompt', 'description'];
const SUBJECT_LIMIT = 120;

interface CallLine {
  readonly callId: string;
  readonly tool: string;
  readonly subject: string;
  parentCallId?: string;
  decision?: string;
  outcome?: string;
}

type Block = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'calls'; readonly calls: CallLine[] };

export function chatMarkdown(chat: ExportedChat): string {
  const blocks: Block[] = [];
  const calls = new Map<string, CallLine>();
  const heading = (title: string, text: string): void => {
    blocks.push({ kind: 'text', text: `## ${title}\n\n${text.trim()}` });
  };
  for (const event of chat.events) {
    switch (event.type) {
      case 'user-message':
        heading('You', event.text);
        break;
      case 'assistant-message':
        if (event.text.trim() !== '') heading('Zuno', event.text);
        break;
      case 'tool-call-requested': {
        const line: CallLine = { callId: event.call_id, tool: event.tool, subject: subjectOf(event.arguments) };
        calls.set(event.call_id, line);
        const last = blocks.at(-1);
        if (last?.kind === 'calls') last.calls.push(line);
        else blocks.push({ kind: 'calls', calls: [line] });
        break;
      }
      case 'tool-call-started': {
        const line = calls.get(event.call_id);
        if (line && event.parent_call_id !== undefined) line.parentCallId = event.parent_call_id;
        break;
      }
      case 'approval-resolved': {
        const line = calls.get(event.call_id);
        if (!line) break;
        const rule = event.added_rule ? `, added the rule "${ruleText(event.added_rule)}"` : '';
        line.decision = event.approved ? `approved${rule}` : `denied${event.reason ? ` ("${oneLine(event.reason)}")` : ''}`;
        break;
      }
      case 'dispatch-blocked': {
        const line = calls.get(event.call_id);
        if (line) line.outcome = `not run: ${event.category.replace(/_/g, ' ')} (${clip(oneLine(event.reason), SUBJECT_LIMIT)})`;
        break;
      }
      case 'tool-call-finished': {
        const line = calls.get(event.call_id);
        if (!line || line.outcome !== undefined) break;
        line.outcome = event.outcome + (event.exit_code !== undefined ? `, exit ${event.exit_code}` : '');
        break;
      }
      case 'session-finished':
        if (event.reason !== 'done')
          blocks.push({
            kind: 'text',
            text: `_The run stopped (${event.reason})${event.message ? `: ${oneLine(event.message).replace(/\.$/, '')}` : ''}._`,
          });
        break;
      case 'context-compacted':
        blocks.push({ kind: 'text', text: '_The context was compacted here; the messages above were summarised for the model._' });
        break;
      default:
        break;
    }
  }
  const header = `# ${oneLine(chat.title) || 'Zuno chat'}\n\nZuno session \`${chat.sessionId}\`, exported ${chat.exportedAt.toISOString()}.`;
  return `${[header, ...blocks.map((block) => (block.kind === 'text' ? block.text : callList(block.calls)))].join('\n\n')}\n`;
}

/** The calls of one stretch, a delegated task's calls under it when the task is in the same stretch. */
function callList(calls: readonly CallLine[]): string {
  const ids = new Set(calls.map((call) => call.callId));
  const nested = (call: CallLine): boolean => call.parentCallId !== undefined && ids.has(call.parentCallId);
  const lines: string[] = [];
  const emit = (call: CallLine, depth: number): void => {
    const parts = [call.decision, call.outcome ?? 'no outcome recorded'].filter((part) => part !== undefined);
    const subject = call.subject === '' ? '' : ` ${codeSpan(call.subject)}`;
    lines.push(`${'  '.repeat(depth)}- ${codeSpan(call.tool)}${subject}: ${parts.join('; ')}`);
    for (const child of calls) if (child.parentCallId === call.callId) emit(child, depth + 1);
  };
  for (const call of calls) if (!nested(call)) emit(call, 0);
  return lines.join('\n');
}

function subjectOf(raw: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return clip(oneLine(raw), SUBJECT_LIMIT);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return '';
  const args = parsed as Record<string, unknown>; // a plain object, checked above
  for (const key of SUBJECT_KEYS) {
    const value = args[key];
    if (typeof value === 'string' && value.trim() !== '') return clip(oneLine(value), SUBJECT_LIMIT);
  }
  // apply_patch and todo_update carry no single subject: the files or the count say enough.
  if (typeof args.patch === 'string') {
    const files = [...args.patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((match) => match[1] ?? '');
    return clip(files.join(', '), SUBJECT_LIMIT);
  }
  if (Array.isArray(args.todos)) return `${args.todos.length} todos`;
  if (Array.isArray(args.changes)) return `${args.changes.length} changes`;
  return '';
}

/** As the card names it (media/approval-format.ts). */
function ruleText(rule: PermissionRule): string {
  return rule.match === undefined ? `${rule.tool} (every call)` : `${rule.tool}: ${rule.match}`;
}

/** Inline code that survives backticks inside it. */
function codeSpan(text: string): string {
  const longestRun = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longestRun + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
