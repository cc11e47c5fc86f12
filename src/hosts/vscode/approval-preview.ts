/**
 * What an approval card shows (issue 14 item 3): the call as the user thinks of it (a diff per
 * file, a command line, a URL, the todo list, an MCP tool's arguments as a table) and why Zuno
 * asks, in plain words. Built on the host, where the proposed file contents are, and sent to the
 * webview as data; the raw arguments stay under Details. No `vscode` import: unit-tested in node.
 */
import { structuredPatch } from 'diff';
import type { ApprovalRequest, FileChange } from '../../core/host';
import { FILE_WRITING_TOOLS, WORK_STATE_TOOLS } from '../../core/policy';
import type { ApprovalPreview, DiffHunk, DiffLine, FileDiffPreview } from '../../webview/protocol';

/** Diff lines drawn per approval card, all files together; Show diff has the rest. */
export const DIFF_LINE_BUDGET = 400;
/** Longest text drawn for one value (a plan, a table cell); the card is not a file viewer. */
const TEXT_LIMIT = 4_000;
const CONTEXT_LINES = 3;

const clip = (text: string, limit = TEXT_LIMIT): string => (text.length <= limit ? text : `${text.slice(0, limit - 1)}…`);

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

const stringField = (args: unknown, name: string): string | undefined => {
  if (!isRecord(args)) return undefined;
  const value = args[name];
  return typeof value === 'string' ? value : undefined;
};

/** One file's change as hunks of whole lines, drawing at most `budget` lines. */
export function fileDiff(change: FileChange, display: (path: string) => string, budget: number): FileDiffPreview {
  const before = change.before ?? '';
  const after = change.kind === 'delete' ? '' : (change.after ?? '');
  const patch = structuredPatch(change.path, change.movedTo ?? change.path, before, after, '', '', { context: CONTEXT_LINES });
  let added = 0;
  let removed = 0;
  let omittedLines = 0;
  let left = budget;
  const hunks: DiffHunk[] = [];
  for (const hunk of patch.hunks) {
    const lines: DiffLine[] = [];
    for (const line of hunk.lines) {
      const marker = line[0];
      // "\ No newline at end of file" says nothing a reader of the card needs.
      if (marker !== '+' && marker !== '-' && marker !== ' ') continue;
      if (marker === '+') added += 1;
      if (marker === '-') removed += 1;
      if (left <= 0) {
        omittedLines += 1;
        continue;
      }
      left -= 1;
      lines.push({ kind: marker === '+' ? 'add' : marker === '-' ? 'remove' : 'context', text: line.slice(1) });
    }
    if (lines.length > 0) hunks.push({ header: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, lines });
  }
  return {
    path: display(change.path),
    ...(change.movedTo !== undefined ? { movedTo: display(change.movedTo) } : {}),
    change: change.kind,
    added,
    removed,
    hunks,
    omittedLines,
  };
}

/** Splits `mcp__<server>__<tool>`; undefined for a built-in tool. */
function mcpName(tool: string): { server: string; tool: string } | undefined {
  const match = /^mcp__(.+?)__(.+)$/.exec(tool);
  return match?.[1] !== undefined && match[2] !== undefined ? { server: match[1], tool: match[2] } : undefined;
}

function tableRows(args: unknown): { name: string; value: string }[] {
  if (!isRecord(args)) return [];
  return Object.entries(args).map(([name, value]) => ({
    name,
    value: clip(typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value))),
  }));
}

function todoItems(list: unknown): { id: string; content?: string; status?: string }[] {
  if (!Array.isArray(list)) return [];
  return list.filter(isRecord).map((item) => {
    const content = typeof item.content === 'string' ? item.content : undefined;
    const status = typeof item.status === 'string' ? item.status : undefined;
    return {
      id: typeof item.id === 'string' ? item.id : '?',
      ...(content !== undefined ? { content: clip(content) } : {}),
      ...(status !== undefined ? { status } : {}),
    };
  });
}

/**
 * The readable form of a pending call, or undefined when the tool has none (the card then shows
 * the argument summary). Only arguments the scheduler already validated reach an approval, but a
 * field of an unexpected type still degrades to no preview rather than throwing.
 */
export function buildApprovalPreview(
  request: ApprovalRequest,
  display: (path: string) => string,
  workspaceRoot: string,
): ApprovalPreview | undefined {
  const args = request.arguments;
  const changes = request.changes ?? [];
  if (changes.length > 0) {
    let budget = DIFF_LINE_BUDGET;
    const files = changes.map((change) => {
      const preview = fileDiff(change, display, budget);
      budget = Math.max(0, budget - preview.hunks.reduce((sum, hunk) => sum + hunk.lines.length, 0));
      return preview;
    });
    return { kind: 'files', files };
  }
  switch (request.tool) {
    case 'shell': {
      const command = stringField(args, 'command');
      return command === undefined
        ? undefined
        : { kind: 'command', command: clip(command), cwd: workspaceRoot, background: isRecord(args) && args.background === true };
    }
    case 'webfetch': {
      const url = stringField(args, 'url');
      return url === undefined ? undefined : { kind: 'url', url: clip(url) };
    }
    case 'todo_update': {
      if (!isRecord(args)) return undefined;
      const replacesList = args.todos !== undefined;
      return { kind: 'todos', replacesList, items: todoItems(replacesList ? args.todos : args.changes) };
    }
    case 'plan_update': {
      const plan = stringField(args, 'plan');
      return plan === undefined ? undefined : { kind: 'text', label: 'New plan', text: clip(plan) };
    }
    case 'goal_update': {
      const text = stringField(args, 'text');
      const status = stringField(args, 'status');
      return text === undefined ? undefined : { kind: 'text', label: `Goal (${status ?? 'active'})`, text: clip(text) };
    }
    case 'task': {
      const goal = stringField(args, 'goal');
      const agent = stringField(args, 'agent');
      return goal === undefined
        ? undefined
        : { kind: 'text', label: `Task for ${agent === undefined ? 'a delegated agent' : `agent "${agent}"`}`, text: clip(goal) };
    }
  }
  const mcp = mcpName(request.tool);
  if (mcp !== undefined) return { kind: 'table', title: `${mcp.server} › ${mcp.tool}`, rows: tableRows(args) };
  return undefined;
}

const MODE_FALLBACK = /mode asks before every call with side effects/;
const ASK_RULE = /^the permission rule \{tool: "([^"]*)"(?:, match: "([^"]*)")?, action: "ask"\} asks for approval$/;

/** What kind of thing Zuno asks about, as the end of "Zuno asks before …". */
function askedAbout(tool: string): { what: string; skip: string } {
  if (tool === 'shell') return { what: 'running commands', skip: 'add a rule to skip this' };
  if (FILE_WRITING_TOOLS.has(tool)) return { what: 'changing files', skip: 'switch to auto-edit mode or add a rule to skip this' };
  if (WORK_STATE_TOOLS.has(tool)) return { what: 'updating the plan, todos or goal', skip: 'auto-edit mode skips this' };
  if (tool === 'webfetch') return { what: 'fetching web pages', skip: 'add a rule to skip this' };
  if (tool.startsWith('mcp__')) return { what: "calling an MCP server's tools", skip: 'add a rule to skip this' };
  return { what: 'calls that change something', skip: 'add a rule to skip this' };
}

const sentence = (text: string): string => {
  const trimmed = text.trim();
  if (trimmed === '') return trimmed;
  const capital = `${trimmed[0]?.toUpperCase() ?? ''}${trimmed.slice(1)}`;
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
};

/** Why the user is asked, in the words of someone using the editor rather than the policy's. */
export function plainReason(request: ApprovalRequest): string {
  const { reason, tool } = request;
  if (MODE_FALLBACK.test(reason)) {
    const about = askedAbout(tool);
    return `Zuno asks before ${about.what}; ${about.skip}.`;
  }
  if (reason.startsWith('delegation needs approval')) {
    return 'Zuno asks before handing work to another agent; each of its calls is checked again.';
  }
  const rule = ASK_RULE.exec(reason);
  if (rule !== null) {
    return rule[2] === undefined
      ? `A rule in your settings asks before every ${rule[1] ?? tool} call.`
      : `A rule in your settings asks before ${rule[1] ?? tool} calls matching "${rule[2]}".`;
  }
  return sentence(reason);
}
