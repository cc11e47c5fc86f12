/**
 * The permission policy (SPEC E1–E3, §9): one pure function from a call to allow, ask or deny.
 *
 * Order of evaluation, each step final:
 * 1. A deny rule that matches: deny. Deny beats ask beats allow, whatever the order of the rules.
 * 2. A path outside the workspace: deny, unless an allow or ask rule names it explicitly (a rule
 *    with a `match` glob that matches it); a bare rule never reaches outside the workspace.
 * 3. An ask rule that matches: ask.
 * 4. A command line the shell analysis is uncertain about (`\r`, too long or deep, a computed
 *    command name, an unparseable part), while deny or ask rules exist for the tool: those rules
 *    cannot vouch that it is free of what they forbid, so it is denied in auto mode and asked
 *    otherwise, with the reason (issue 8 item 7).
 * 5. Every subject covered by allow rules: allow. A pattern only vouches for a plain command line
 *    (see core/shell/analysis.ts), each of whose commands an allow rule covers as written; any
 *    other line falls through to step 6 (in strict mode: asked, and the reason says why the
 *    rule did not apply).
 * 6. Otherwise the effect class and the mode decide (E1).
 *
 * A rule with a `match` glob matches a call when the glob matches one of its subjects (for ask and
 * deny), or covers every subject (for allow). A rule without `match` matches every call of its
 * tool. Paths are tried both as the absolute real path and relative to the workspace. A deny or
 * ask glob hits a command line when it matches any form of any command anywhere in it.
 */
import type { PermissionMode, PermissionRule } from './config';
import type { Declarations } from './declarations';
import { matchGlob } from './glob';
import { MAX_LINE_LENGTH, type ShellAnalysis, type ShellAnalyzer } from './shell/analysis';
import type { CallSubject } from './tool';

export type PermissionAction = 'allow' | 'ask' | 'deny';

export interface PermissionDecision {
  readonly action: PermissionAction;
  /** Shown to the user when asked, and to the model when denied. */
  readonly reason: string;
  /** The rule that decided, when one did. */
  readonly rule?: PermissionRule;
}

export interface PermissionQuery {
  readonly tool: string;
  readonly declarations: Declarations;
  readonly subjects: readonly CallSubject[];
  readonly permission: { readonly mode: PermissionMode; readonly rules: readonly PermissionRule[] };
  /** Lets path globs be written relative to the workspace. */
  readonly workspaceRoot: string;
  /**
   * Reads command subjects. The scheduler loads it from the host when a call has one; without
   * it a command line is treated as one nothing can be sure about.
   */
  readonly shell?: ShellAnalyzer;
}

/** Tools whose only effect is writing files, which `auto-edit` lets through inside the workspace. */
export const FILE_WRITING_TOOLS: ReadonlySet<string> = new Set(['write', 'apply_patch', 'edit']);

const describeRule = (rule: PermissionRule): string =>
  `permission rule {tool: "${rule.tool}"${rule.match === undefined ? '' : `, match: "${rule.match}"`}, action: "${rule.action}"}`;

const slashes = (path: string): string => path.replace(/\\/g, '/');

/** The forms of a path a glob is tried against: absolute, and relative to the workspace when inside it. */
function pathForms(path: string, workspaceRoot: string): string[] {
  const absolute = slashes(path);
  const root = slashes(workspaceRoot).replace(/\/+$/, '');
  if (absolute === root) return [absolute, '.'];
  if (root.length > 0 && absolute.startsWith(`${root}/`)) return [absolute, absolute.slice(root.length + 1)];
  return [absolute];
}

/** Each command subject's analysis, computed once per evaluation. */
type Analyses = ReadonlyMap<CallSubject, ShellAnalysis>;

const UNANALYSED: ShellAnalysis = {
  notPlain: 'no shell analyzer was available to read it',
  screened: [],
  uncertain: 'no shell analyzer was available to read it',
  work: 0,
};

function analyseCommands(query: PermissionQuery): Analyses {
  const analyses = new Map<CallSubject, ShellAnalysis>();
  for (const subject of query.subjects) {
    if (subject.kind === 'command') analyses.set(subject, query.shell?.analyze(subject.value) ?? UNANALYSED);
  }
  return analyses;
}

/** The texts a deny or ask glob may hit: for a command line, the whole line and every form of every command in it. */
function textsToScreen(subject: CallSubject, workspaceRoot: string, analyses: Analyses): string[] {
  if (subject.kind === 'path') return pathForms(subject.value, workspaceRoot);
  if (subject.kind === 'command') {
    // Above the analysed length the whole line is not globbed either: a glob over 100 KB can take seconds.
    const whole = subject.value.length <= MAX_LINE_LENGTH ? [subject.value.trim()] : [];
    return [...whole, ...(analyses.get(subject)?.screened ?? [])];
  }
  return [subject.value];
}

function globMatches(glob: string, subject: CallSubject, texts: readonly string[]): boolean {
  const kind = subject.kind === 'path' ? 'path' : 'text';
  return texts.some((text) => matchGlob(glob, text, kind));
}

const appliesToTool = (rule: PermissionRule, tool: string): boolean => rule.tool === '*' || rule.tool === tool;

/** The first ask/deny rule that hits any subject (or, without `match`, the call itself). */
function findScreeningRule(rules: readonly PermissionRule[], subjects: readonly CallSubject[], workspaceRoot: string, analyses: Analyses): PermissionRule | undefined {
  return rules.find((rule) => {
    const glob = rule.match;
    if (glob === undefined) return true;
    return subjects.some((subject) => globMatches(glob, subject, textsToScreen(subject, workspaceRoot, analyses)));
  });
}

type Coverage = { covered: true; rule: PermissionRule } | { covered: false; askReason?: string; rule?: PermissionRule };

/** Whether allow rules with globs cover one subject. A command line must be plain, with each of its commands covered. */
function coverSubject(rules: readonly PermissionRule[], subject: CallSubject, workspaceRoot: string, analyses: Analyses): Coverage {
  const globbed = rules.filter((rule): rule is PermissionRule & { match: string } => rule.match !== undefined);
  if (subject.kind !== 'command') {
    const texts = subject.kind === 'path' ? pathForms(subject.value, workspaceRoot) : [subject.value];
    const rule = globbed.find((candidate) => globMatches(candidate.match, subject, texts));
    return rule ? { covered: true, rule } : { covered: false };
  }
  if (globbed.length === 0) return { covered: false };
  const analysis = analyses.get(subject) ?? UNANALYSED;
  if (analysis.plain === undefined) {
    return { covered: false, askReason: `no allow rule can approve this command line by pattern, because ${analysis.notPlain ?? 'it could not be analysed'}` };
  }
  let first: PermissionRule | undefined;
  for (const [index, command] of analysis.plain.entries()) {
    const written = analysis.plainWritten?.[index] ?? command;
    const rule = globbed.find((candidate) => matchGlob(candidate.match, command, 'text') || matchGlob(candidate.match, written, 'text'));
    if (rule === undefined) return { covered: false, askReason: `no allow rule covers the command "${command}"` };
    first ??= rule;
  }
  return first ? { covered: true, rule: first } : { covered: false };
}

/** The deny or ask rule an uncertain command line defeats, with why the line is uncertain. */
function uncertainLine(rules: readonly PermissionRule[], subjects: readonly CallSubject[], analyses: Analyses): { rule: PermissionRule; why: string } | undefined {
  const rule = rules.find((candidate) => candidate.action !== 'allow');
  if (rule === undefined) return undefined;
  for (const subject of subjects) {
    const why = analyses.get(subject)?.uncertain;
    if (why !== undefined) return { rule, why };
  }
  return undefined;
}

function fallback(query: PermissionQuery): PermissionDecision {
  const { effect } = query.declarations;
  const mode = query.permission.mode;
  switch (effect) {
    case 'ReadOnly':
      return { action: 'allow', reason: 'a read-only call needs no approval' };
    case 'UserMediated':
      return { action: 'allow', reason: 'the call asks the user directly, so it is not an approval surface' };
    case 'Delegating':
      return mode === 'auto'
        ? { action: 'allow', reason: 'delegation is allowed in auto mode; each child call is evaluated on its own' }
        : { action: 'ask', reason: `delegation needs approval in ${mode} mode; each child call is evaluated on its own as well` };
    case 'SideEffecting': {
      if (mode === 'auto') return { action: 'allow', reason: 'auto mode allows side effects inside the workspace' };
      const writesInside =
        FILE_WRITING_TOOLS.has(query.tool) &&
        query.subjects.length > 0 &&
        query.subjects.every((subject) => subject.kind === 'path' && subject.outsideWorkspace !== true);
      if (mode === 'auto-edit' && writesInside) return { action: 'allow', reason: 'auto-edit mode allows file edits inside the workspace' };
      return {
        action: 'ask',
        reason: `${mode} mode asks before every call with side effects, and no allow rule covers this one`,
      };
    }
  }
}

/** Decides whether a call may run, must be approved by the user first, or is refused. */
export function evaluatePermission(query: PermissionQuery): PermissionDecision {
  const rules = query.permission.rules.filter((rule) => appliesToTool(rule, query.tool));
  const { subjects, workspaceRoot } = query;
  const analyses = analyseCommands(query);

  const deny = findScreeningRule(
    rules.filter((rule) => rule.action === 'deny'),
    subjects,
    workspaceRoot,
    analyses,
  );
  if (deny) return { action: 'deny', reason: `refused by the ${describeRule(deny)}`, rule: deny };

  // Outside the workspace only an explicit glob counts; its action (allow or ask) then applies.
  const outsideAllowedBy = new Map<CallSubject, PermissionRule>();
  for (const subject of subjects) {
    if (subject.kind !== 'path' || subject.outsideWorkspace !== true) continue;
    const explicit = rules.filter(
      (rule) => rule.match !== undefined && rule.action !== 'deny' && matchGlob(rule.match, slashes(subject.value), 'path'),
    );
    const ask = explicit.find((rule) => rule.action === 'ask');
    if (ask) return { action: 'ask', reason: `the ${describeRule(ask)} asks for ${subject.value}, outside the workspace`, rule: ask };
    const allow = explicit[0];
    if (!allow) {
      return {
        action: 'deny',
        reason: `${subject.value} is outside the workspace (${workspaceRoot}); only a permission rule whose match names that path can allow it`,
      };
    }
    outsideAllowedBy.set(subject, allow);
  }

  const ask = findScreeningRule(
    rules.filter((rule) => rule.action === 'ask'),
    subjects,
    workspaceRoot,
    analyses,
  );
  if (ask) return { action: 'ask', reason: `the ${describeRule(ask)} asks for approval`, rule: ask };

  const uncertain = uncertainLine(rules, subjects, analyses);
  if (uncertain) {
    const reason = `the command line cannot be fully analysed (${uncertain.why}), so the ${describeRule(uncertain.rule)} cannot be checked against it`;
    return query.permission.mode === 'auto'
      ? { action: 'deny', reason: `${reason}; write the command without that construct`, rule: uncertain.rule }
      : { action: 'ask', reason, rule: uncertain.rule };
  }

  const allows = rules.filter((rule) => rule.action === 'allow');
  const bare = allows.find((rule) => rule.match === undefined);
  // A bare allow covers everything left: paths outside the workspace were settled above.
  if (bare) return { action: 'allow', reason: `allowed by the ${describeRule(bare)}`, rule: bare };
  if (subjects.length > 0 && allows.length > 0) {
    let deciding: PermissionRule | undefined;
    let covered = true;
    for (const subject of subjects) {
      const outsideRule = outsideAllowedBy.get(subject);
      const coverage: Coverage = outsideRule ? { covered: true, rule: outsideRule } : coverSubject(allows, subject, workspaceRoot, analyses);
      if (coverage.covered) {
        deciding ??= coverage.rule;
        continue;
      }
      covered = false;
      // The rule cannot vouch for this line, so it does not apply; when the mode then asks, say why.
      if (coverage.askReason !== undefined) {
        const byMode = fallback(query);
        return byMode.action === 'ask' ? { action: 'ask', reason: coverage.askReason, ...(coverage.rule ? { rule: coverage.rule } : {}) } : byMode;
      }
    }
    if (covered && deciding) return { action: 'allow', reason: `allowed by the ${describeRule(deciding)}`, rule: deciding };
  }
  return fallback(query);
}
