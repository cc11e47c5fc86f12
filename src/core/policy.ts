/**
 * The permission policy (SPEC E1–E3, §9): one pure function from a call to allow, ask or deny.
 *
 * Order of evaluation, each step final:
 * 0. A side-effecting call with a path inside the store's state dir: deny, whatever the rules and
 *    the mode. The state dir is the record of what happened; a tool never rewrites it.
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
 * 7. Protected paths (issue 8 §3): a file write (`write`, `apply_patch`, `edit`) to a path that
 *    matches a protected glob asks, in every mode, when steps 3–6 would allow it — unless an
 *    allow rule names the path (see `namesProtectedPath`).
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
  readonly permission: {
    readonly mode: PermissionMode;
    readonly rules: readonly PermissionRule[];
    /** The user's protected globs (`permission.protected`), added to `DEFAULT_PROTECTED_PATHS`. */
    readonly protected?: readonly string[];
  };
  /** Lets path globs be written relative to the workspace. */
  readonly workspaceRoot: string;
  /** The store's state dir, symlinks resolved: no side-effecting call may touch a path inside it. */
  readonly stateDir?: string;
  /**
   * The call asks to run outside the sandbox (shell `sandbox: "off"`, issue 12): it asks in every
   * mode, and only an allow rule that says `sandbox: "off"` can let it through.
   */
  readonly outsideSandbox?: boolean;
  /**
   * Reads command subjects. The scheduler loads it from the host when a call has one; without
   * it a command line is treated as one nothing can be sure about.
   */
  readonly shell?: ShellAnalyzer;
}

/**
 * Files that govern Zuno or run code on the user's behalf (editor tasks and settings, git hooks
 * and config, direnv, package-manager config). A write to one would let the model widen its own
 * permissions, so it always asks. Globs are matched relative to the workspace, case-insensitively
 * (a case-insensitive disk opens `.VSCode/settings.json` as the real one).
 */
export const DEFAULT_PROTECTED_PATHS: readonly string[] = [
  '**/.zuno',
  '**/.zuno/**',
  '**/.vscode/settings.json',
  '**/.vscode/tasks.json',
  '**/.vscode/launch.json',
  '**/.vscode/mcp.json',
  '**/.vscode/extensions.json',
  '**/*.code-workspace',
  '**/.git',
  '**/.git/**',
  '**/.gitmodules',
  '**/.envrc',
  '**/.npmrc',
  '**/.yarnrc*',
];

/** Tools whose only effect is writing files, which `auto-edit` lets through inside the workspace. */
export const FILE_WRITING_TOOLS: ReadonlySet<string> = new Set(['write', 'apply_patch', 'edit']);

/**
 * Tools that only change the session's own plan, todos or goal (kept in the store, shown to the
 * user, touching no file): `auto-edit` lets them through too, since asking before every todo tick
 * was most of the approvals of a one-line fix (issue 14).
 */
export const WORK_STATE_TOOLS: ReadonlySet<string> = new Set(['plan_update', 'todo_update', 'goal_update']);

const describeRule = (rule: PermissionRule): string =>
  `permission rule {tool: "${rule.tool}"${rule.match === undefined ? '' : `, match: "${rule.match}"`}, action: "${rule.action}"${rule.sandbox === undefined ? '' : `, sandbox: "${rule.sandbox}"`}}`;

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

const GLOB_SYNTAX = /[*?[\]{}\\]/;

/** The longest run of plain characters in a glob, without edge slashes (`.vscode/tasks.json`, or `.git` for the `.git` folder glob). */
function literalCore(glob: string): string {
  const runs = glob.split(/[*?[\]{}!\\]+/).map((run) => run.replace(/^\/+|\/+$/g, ''));
  return runs.reduce((longest, run) => (run.length > longest.length ? run : longest), '');
}

/**
 * Whether an allow glob that matches a protected path also *names* it, rather than sweeping it up.
 * It does when it is a plain path (no glob syntax at all), or when it spells out the protected
 * pattern's literal core: `.vscode/tasks.json` names `.vscode/tasks.json`, and `.git/hooks/*`
 * names the hooks the `.git` folder glob protects; a catch-all such as `**`, `*.json` or
 * `.vscode/*` does not. A pattern without a literal core (a user's `**`) can only be named by a
 * plain path.
 */
export function namesProtectedPath(allowGlob: string, protectedGlob: string): boolean {
  // Escaped characters are literal: "Allow like this" escapes a path that has brackets in it.
  if (!GLOB_SYNTAX.test(allowGlob.replace(/\\[\s\S]/g, ''))) return true;
  const core = literalCore(protectedGlob).toLowerCase();
  return core.length > 0 && allowGlob.toLowerCase().includes(core);
}

/** The form a protected glob is tried against: relative when inside the workspace, else absolute; lower case. */
function protectedForm(subject: CallSubject, workspaceRoot: string): string {
  const forms = pathForms(subject.value, workspaceRoot);
  const form = subject.outsideWorkspace === true ? forms[0] : (forms[1] ?? forms[0]);
  return (form ?? subject.value).toLowerCase();
}

/** The first protected glob a path matches, or undefined. */
function protectingPattern(subject: CallSubject, patterns: readonly string[], workspaceRoot: string): string | undefined {
  const form = protectedForm(subject, workspaceRoot);
  return patterns.find((pattern) => matchGlob(pattern.toLowerCase(), form, 'path'));
}

/** True when the state dir is `path` or lies below it (compared case-insensitively: denying too much is safe). */
function insideStateDir(path: string, stateDir: string): boolean {
  const dir = slashes(stateDir).replace(/\/+$/, '').toLowerCase();
  const candidate = slashes(path).toLowerCase();
  return dir.length > 0 && (candidate === dir || candidate.startsWith(`${dir}/`));
}

const appliesToTool = (rule: PermissionRule, tool: string): boolean => rule.tool === '*' || rule.tool === tool;

/** The first ask/deny rule that hits any subject (or, without `match`, the call itself). */
function findScreeningRule(
  rules: readonly PermissionRule[],
  subjects: readonly CallSubject[],
  workspaceRoot: string,
  analyses: Analyses,
): PermissionRule | undefined {
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
    return {
      covered: false,
      askReason: `no allow rule can approve this command line by pattern, because ${analysis.notPlain ?? 'it could not be analysed'}`,
    };
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
function uncertainLine(
  rules: readonly PermissionRule[],
  subjects: readonly CallSubject[],
  analyses: Analyses,
): { rule: PermissionRule; why: string } | undefined {
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
      if (mode === 'auto-edit' && WORK_STATE_TOOLS.has(query.tool)) {
        return { action: 'allow', reason: "auto-edit mode allows updates to the session's plan, todos and goal" };
      }
      return {
        action: 'ask',
        reason: `${mode} mode asks before every call with side effects, and no allow rule covers this one`,
      };
    }
  }
}

/** Decides whether a call may run, must be approved by the user first, or is refused. */
export function evaluatePermission(query: PermissionQuery): PermissionDecision {
  const { subjects, stateDir } = query;
  if (stateDir !== undefined && query.declarations.effect === 'SideEffecting') {
    const inState = subjects.find((subject) => subject.kind === 'path' && insideStateDir(subject.value, stateDir));
    if (inState) {
      return {
        action: 'deny',
        reason:
          `${inState.value} is inside Zuno's state dir (${stateDir}), the record of this session; no tool may change it, whatever the rules or the mode. ` +
          'Work on files elsewhere in the workspace',
      };
    }
  }
  const decision = sandboxEscalation(query, evaluateRules(query));
  if (decision.action === 'deny' || !FILE_WRITING_TOOLS.has(query.tool)) return decision;
  return protectedPathCheck(query) ?? decision;
}

/**
 * Step 7: a write to a protected path asks, unless an allow rule for the tool names that path.
 * Runs after the other steps, so a deny still wins; it replaces an allow, or an ask's reason.
 */
function protectedPathCheck(query: PermissionQuery): PermissionDecision | undefined {
  const patterns = [...DEFAULT_PROTECTED_PATHS, ...(query.permission.protected ?? [])];
  const allows = query.permission.rules.filter(
    (rule): rule is PermissionRule & { match: string } =>
      rule.action === 'allow' && rule.match !== undefined && appliesToTool(rule, query.tool),
  );
  for (const subject of query.subjects) {
    if (subject.kind !== 'path') continue;
    const pattern = protectingPattern(subject, patterns, query.workspaceRoot);
    if (pattern === undefined) continue;
    const texts = pathForms(subject.value, query.workspaceRoot);
    const named = allows.some((rule) => globMatches(rule.match, subject, texts) && namesProtectedPath(rule.match, pattern));
    if (named) continue;
    const display = subject.outsideWorkspace === true ? subject.value : (texts[1] ?? subject.value);
    return {
      action: 'ask',
      reason:
        `${display} is a protected path (it matches "${pattern}"): it governs Zuno or runs code on your behalf, so writing it asks in every mode. ` +
        `To let such writes through, add a rule that names the path, e.g. {"tool": "${query.tool}", "match": "${display}", "action": "allow"}`,
    };
  }
  return undefined;
}

/**
 * A rule with `sandbox: "off"` is about calls outside the sandbox only; an allow rule without it
 * never lets one through (a rule written for sandboxed commands must not grow into more).
 */
const appliesToSandbox = (rule: PermissionRule, outsideSandbox: boolean): boolean =>
  rule.sandbox === 'off' ? outsideSandbox : rule.action !== 'allow' || !outsideSandbox;

const OUTSIDE_SANDBOX =
  'this command asks to run outside the sandbox ("sandbox": "off"), with your full permissions: it can write anywhere you can and reach the network. ' +
  'That asks in every mode; only an allow rule with "sandbox": "off" covers it';

/** A call outside the sandbox asks unless a `sandbox: "off"` allow rule decided (issue 12). */
function sandboxEscalation(query: PermissionQuery, decision: PermissionDecision): PermissionDecision {
  if (query.outsideSandbox !== true || decision.action === 'deny') return decision;
  if (decision.action === 'allow' && decision.rule?.sandbox === 'off') return decision;
  const reason = decision.action === 'ask' ? `${OUTSIDE_SANDBOX}; also, ${decision.reason}` : OUTSIDE_SANDBOX;
  return { action: 'ask', reason, ...(decision.rule ? { rule: decision.rule } : {}) };
}

/** Steps 1–6. */
function evaluateRules(query: PermissionQuery): PermissionDecision {
  const outsideSandbox = query.outsideSandbox === true;
  const rules = query.permission.rules.filter((rule) => appliesToTool(rule, query.tool) && appliesToSandbox(rule, outsideSandbox));
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
      const coverage: Coverage = outsideRule
        ? { covered: true, rule: outsideRule }
        : coverSubject(allows, subject, workspaceRoot, analyses);
      if (coverage.covered) {
        deciding ??= coverage.rule;
        continue;
      }
      covered = false;
      // The rule cannot vouch for this line, so it does not apply; when the mode then asks, say why.
      if (coverage.askReason !== undefined) {
        const byMode = fallback(query);
        return byMode.action === 'ask'
          ? { action: 'ask', reason: coverage.askReason, ...(coverage.rule ? { rule: coverage.rule } : {}) }
          : byMode;
      }
    }
    if (covered && deciding) return { action: 'allow', reason: `allowed by the ${describeRule(deciding)}`, rule: deciding };
  }
  return fallback(query);
}

/**
 * What a call may see of the file tree (issue 8 §5). A path that a deny rule keeps from `read`
 * must not reach the model through any other tool either: not as a search match, a file name in
 * a listing, or a suggestion. The scheduler derives this once per call and hands it to the tool.
 */
export interface PathVisibility {
  /**
   * True when the call must show neither `realPath` (absolute, symlinks resolved) nor anything read
   * from it. Pass `'file'` when the path is known to be a file (rg's results): a file has nothing
   * below it, so only its own name and its folders need trying, which halves the work per result.
   */
  isHidden(realPath: string, type?: 'file'): boolean;
  /** Why `realPath` is hidden, naming the rule, or undefined when it is visible. */
  hiddenReason(realPath: string): string | undefined;
  /**
   * Globs for rg's `--glob=!…`, relative to `searchRoot` (the folder rg runs in) and anchored with a
   * leading `/` where the rule is, in rg's .gitignore dialect. They spare rg from reading hidden files;
   * they are not the guarantee (rg's dialect differs from ours in corners): `isHidden` filters its
   * output as well.
   */
  excludeGlobs(searchRoot: string): readonly string[];
}

export interface VisibilityQuery {
  readonly tool: string;
  readonly rules: readonly PermissionRule[];
  /** Real path of the workspace root, as path subjects are. */
  readonly workspaceRoot: string;
}

/**
 * A name no real file can have (NUL): a glob that matches `folder/<probe>/<probe>` matches whatever
 * lies below the folder, so the folder counts as hidden. Unlike testing `folder/`, this does not
 * depend on whether the glob library lets `x/**` match `x` or `x/`.
 */
const PROBE = '\u0000';

const parentOf = (path: string): string | undefined => {
  const cut = path.lastIndexOf('/');
  if (cut <= 0) return path.length > 1 && cut === 0 ? '/' : undefined;
  return path.slice(0, cut);
};

/**
 * Splits a glob on the slashes outside `{…}` and `[…]`; undefined when a group spans a slash,
 * which segment-wise rebasing cannot follow.
 */
function globSegments(glob: string): string[] | undefined {
  const segments: string[] = [];
  let depth = 0;
  let from = 0;
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index];
    if (char === '\\') index++;
    else if (char === '{' || char === '[') depth++;
    else if ((char === '}' || char === ']') && depth > 0) depth--;
    else if (char === '/') {
      if (depth > 0) return undefined;
      segments.push(glob.slice(from, index));
      from = index + 1;
    }
  }
  segments.push(glob.slice(from));
  return segments;
}

/**
 * Whether rg can parse `glob`: it refuses an unclosed `[` or `{`, an unopened `}` and a dangling
 * `\`, and one bad --glob makes the whole search fail. Such a rule is left to the isHidden filter.
 */
function rgAccepts(glob: string): boolean {
  let depth = 0;
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index];
    if (char === '\\') {
      if (++index >= glob.length) return false;
    } else if (char === '[') {
      let end = index + 1;
      if (glob[end] === '!' || glob[end] === '^') end++;
      if (glob[end] === ']') end++;
      while (end < glob.length && glob[end] !== ']') end++;
      if (end >= glob.length) return false;
      index = end;
    } else if (char === '{') depth++;
    else if (char === '}' && --depth < 0) return false;
  }
  return depth === 0;
}

/**
 * The forms of `glob` (as segments) relative to a folder given by `base` segments: what the glob
 * matches below that folder. `**` may stand for none, one or more of the base's segments. A glob
 * used up inside the base names a folder at or above the search root, so everything is excluded.
 */
function rebase(glob: readonly string[], base: readonly string[], out: Set<string>): void {
  if (base.length === 0) {
    const rest = glob.join('/');
    // Anchored to the search root with a leading `/`, unless the glob may start at any depth anyway.
    // Nothing left: the glob names the search root itself, which hides everything below it.
    out.add(rest.length === 0 ? '**' : rest.startsWith('**') ? rest : `/${rest}`);
    return;
  }
  const [head, ...tail] = glob;
  if (head === undefined) {
    out.add('**');
    return;
  }
  if (head === '**') {
    out.add(glob.join('/'));
    rebase(tail, base, out);
    rebase(glob, base.slice(1), out);
    return;
  }
  // `a**b` crosses folders in our dialect but not in rg's: leave that rule to the isHidden filter.
  if (head.includes('**')) return;
  const segment = base[0] ?? '';
  if (head === segment || (head.length > 0 && segment.length > 0 && matchGlob(head, segment, 'path'))) rebase(tail, base.slice(1), out);
}

/** Derives what the calling tool may see from the deny rules of `*`, `read` and the tool itself. */
export function pathVisibility(query: VisibilityQuery): PathVisibility {
  const root = slashes(query.workspaceRoot).replace(/\/+$/, '');
  const rules = query.rules.filter(
    (rule): rule is PermissionRule & { match: string } =>
      rule.action === 'deny' && rule.match !== undefined && (rule.tool === '*' || rule.tool === 'read' || rule.tool === query.tool),
  );
  /** `relative: false` tries only the absolute form. */
  const matching = (path: string, relative = true): PermissionRule | undefined => {
    const forms = relative ? pathForms(path, root) : [path];
    return rules.find((rule) => forms.some((form) => matchGlob(rule.match, form, 'path')));
  };
  /** The rule hiding the folder `path` as a whole: it is named, or everything below it is. */
  const hidingFolder = (path: string, relative = true): PermissionRule | undefined =>
    matching(path, relative) ?? matching(`${path === '/' ? '' : path}/${PROBE}/${PROBE}`, relative);
  // Folders repeat across a search's results; each is judged once per call.
  const folders = new Map<string, PermissionRule | undefined>();
  const hidingAncestor = (folder: string): PermissionRule | undefined => {
    // Above a path, the workspace root is tried only as an absolute path: its relative form "."
    // would let a rule like `*`, meant for top-level names, hide the whole workspace.
    if (!folders.has(folder)) folders.set(folder, hidingFolder(folder, folder !== root));
    return folders.get(folder);
  };

  const hiddenBy = (realPath: string, type?: 'file'): PermissionRule | undefined => {
    if (rules.length === 0) return undefined;
    const path = slashes(realPath).replace(/(.)\/+$/, '$1');
    // A folder is hidden with everything in it, so the folders above count as well.
    let found = type === 'file' ? matching(path) : hidingFolder(path);
    for (let folder = parentOf(path); !found && folder !== undefined; folder = parentOf(folder)) found = hidingAncestor(folder);
    return found;
  };

  return {
    isHidden: (realPath, type) => hiddenBy(realPath, type) !== undefined,
    hiddenReason(realPath) {
      const rule = hiddenBy(realPath);
      return (
        rule && `the ${describeRule(rule)} keeps it from read, and so from every tool that could reveal it, searches and listings included`
      );
    },
    excludeGlobs(searchRoot) {
      const base = slashes(searchRoot).replace(/(.)\/+$/, '$1');
      const bases = [base.split('/')];
      if (base === root) bases.push([]);
      else if (base.startsWith(`${root}/`)) bases.push(base.slice(root.length + 1).split('/'));
      const out = new Set<string>();
      for (const rule of rules) {
        const segments = rgAccepts(rule.match) ? globSegments(rule.match) : undefined;
        if (!segments) continue;
        // An absolute glob can only be rebased on the absolute form of the root.
        for (const segmentsOfBase of segments[0] === '' ? bases.slice(0, 1) : bases) rebase(segments, segmentsOfBase, out);
      }
      return [...out];
    },
  };
}
