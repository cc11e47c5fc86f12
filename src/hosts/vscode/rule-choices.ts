/**
 * "Allow like this" with choices (issue 14 item 4): the exact call, or a wider pattern where one
 * makes sense (`npm test *` for a shell line, `src/**` for a file, the site for a URL). The host
 * builds the list and the view only sends back an index, so a webview can never write a rule of
 * its own making. Each choice is shown as the rule itself, and the card names the one added.
 */
import { isAbsolute, posix, relative } from 'node:path';
import type { PermissionRule } from '../../core/config';
import type { ApprovalRequest } from '../../core/host';
import { FILE_WRITING_TOOLS } from '../../core/policy';
import type { RuleChoice } from '../../webview/protocol';

/** A glob that matches exactly `text`: the rule glob dialect escapes with a backslash (src/core/glob.ts). */
export function escapeGlob(text: string): string {
  return text.replace(/[\\*?[\]{}]/g, '\\$&');
}

/**
 * "Allow like this": a rule allowing this tool on exactly this subject. A file path inside the
 * workspace is written relative to it, so the rule reads naturally in settings; the policy
 * tries globs against both forms (src/core/policy.ts).
 */
export function allowRuleFor(request: ApprovalRequest, workspaceRoot: string): PermissionRule {
  if (request.subject === undefined) return { tool: request.tool, action: 'allow' };
  let subject = request.subject;
  if (FILE_WRITING_TOOLS.has(request.tool) && isAbsolute(subject)) {
    const inside = relative(workspaceRoot, subject);
    if (inside !== '' && !inside.startsWith('..') && !isAbsolute(inside)) subject = inside.split('\\').join('/');
  }
  return { tool: request.tool, match: escapeGlob(subject), action: 'allow', ...sandboxOff(request) };
}

/** A call outside the sandbox is covered only by a rule that says so (issue 12): every choice keeps what was approved. */
function sandboxOff(request: ApprovalRequest): { sandbox?: 'off' } {
  const args = request.arguments;
  return typeof args === 'object' && args !== null && 'sandbox' in args && args.sandbox === 'off' ? { sandbox: 'off' } : {};
}

/** A word that reads as a subcommand (`test` in `npm test`, `status` in `git status`), not a flag or a path. */
const SUBCOMMAND = /^[A-Za-z][\w:-]*$/;

/**
 * The command with any arguments: its program, and its subcommand when it has one. The policy
 * still checks every command of a line against the rule, so a pattern never covers `&&` or `;`.
 */
function commandPattern(line: string): { prefix: string; pattern: string } | undefined {
  const words = line.trim().split(/\s+/);
  const program = words[0];
  if (program === undefined || program === '' || !/^[\w./@+-]+$/.test(program)) return undefined;
  const second = words[1];
  const prefix = second !== undefined && SUBCOMMAND.test(second) ? `${program} ${second}` : program;
  return { prefix, pattern: `${escapeGlob(prefix)} *` };
}

/** The choices, the exact one first. Labels say what the rule lets through, in words. */
export function ruleChoices(request: ApprovalRequest, workspaceRoot: string): RuleChoice[] {
  const exact = allowRuleFor(request, workspaceRoot);
  const exactLabel = exact.match === undefined ? `every ${request.tool} call` : 'exactly this';
  const choices: RuleChoice[] = [{ label: exactLabel, rule: exact }];
  const wider = widerRule(request, exact);
  if (wider !== undefined && wider.rule.match !== exact.match) choices.push(wider);
  return choices;
}

function widerRule(request: ApprovalRequest, exact: PermissionRule): RuleChoice | undefined {
  const subject = request.subject;
  if (subject === undefined || exact.match === undefined) return undefined;
  if (request.tool === 'shell') {
    const command = commandPattern(subject);
    return command === undefined
      ? undefined
      : {
          label: `${command.prefix} with any arguments`,
          rule: { tool: 'shell', match: command.pattern, action: 'allow', ...sandboxOff(request) },
        };
  }
  if (FILE_WRITING_TOOLS.has(request.tool)) {
    // `exact.match` is workspace-relative when the file is inside; a file at the root gets no
    // wider choice, since "every file" is what auto-edit mode is for.
    const folder = posix.dirname(exact.match);
    if (folder === '.' || folder === '/' || posix.isAbsolute(folder)) return undefined;
    return { label: `any file under ${folder}/`, rule: { tool: request.tool, match: `${folder}/**`, action: 'allow' } };
  }
  if (request.tool === 'webfetch') {
    let origin: string;
    try {
      origin = new URL(subject).origin;
    } catch {
      return undefined;
    }
    if (origin === 'null') return undefined;
    return { label: `any page on ${origin}`, rule: { tool: 'webfetch', match: `${escapeGlob(origin)}/*`, action: 'allow' } };
  }
  return undefined;
}
