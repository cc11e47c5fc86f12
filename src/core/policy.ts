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
 * 4. Every subject covered by allow rules: allow. A pattern cannot vouch for a command line
 *    with a redirection, a substitution or a subshell, so such a line falls through to step 5
 *    (in strict mode: asked, and the reason says why the rule did not apply).
 * 5. Otherwise the effect class and the mode decide (E1).
 * 6. Protected paths (issue 8 §3): a file write (`write`, `apply_patch`, `edit`) to a path that
 *    matches a protected glob asks, in every mode, when steps 3–5 would allow it — unless an
 *    allow rule names the path (see `namesProtectedPath`).
 *
 * A rule with a `match` glob matches a call when the glob matches one of its subjects (for ask and
 * deny), or covers every subject (for allow). A rule without `match` matches every call of its
 * tool. Paths are tried both as the absolute real path and relative to the workspace.
 */
import type { PermissionMode, PermissionRule } from './config';
import type { Declarations } from './declarations';
import { matchGlob } from './glob';
import { analyzeCommandLine } from './shell-words';
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

/** The texts a deny or ask glob may hit: for a command line, each simple command, nested ones included, and the whole line. */
function textsToScreen(subject: CallSubject, workspaceRoot: string): string[] {
  if (subject.kind === 'path') return pathForms(subject.value, workspaceRoot);
  if (subject.kind === 'command') {
    const analysis = analyzeCommandLine(subject.value);
    return [subject.value.trim(), ...analysis.commands, ...analysis.nested];
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
function findScreeningRule(rules: readonly PermissionRule[], subjects: readonly CallSubject[], workspaceRoot: string): PermissionRule | undefined {
  return rules.find((rule) => {
    const glob = rule.match;
    if (glob === undefined) return true;
    return subjects.some((subject) => globMatches(glob, subject, textsToScreen(subject, workspaceRoot)));
  });
}

type Coverage = { covered: true; rule: PermissionRule } | { covered: false; askReason?: string; rule?: PermissionRule };

/** Whether allow rules with globs cover one subject. A command line must have each simple command covered, and no hazard. */
function coverSubject(rules: readonly PermissionRule[], subject: CallSubject, workspaceRoot: string): Coverage {
  const globbed = rules.filter((rule): rule is PermissionRule & { match: string } => rule.match !== undefined);
  if (subject.kind !== 'command') {
    const texts = subject.kind === 'path' ? pathForms(subject.value, workspaceRoot) : [subject.value];
    const rule = globbed.find((candidate) => globMatches(candidate.match, subject, texts));
    return rule ? { covered: true, rule } : { covered: false };
  }
  const analysis = analyzeCommandLine(subject.value);
  if (analysis.commands.length === 0) return { covered: false };
  const matched = analysis.commands.map((command) => globbed.find((rule) => matchGlob(rule.match, command, 'text')));
  const first = matched[0];
  if (first === undefined || matched.some((rule) => rule === undefined)) return { covered: false };
  if (analysis.hazards.length > 0) {
    return {
      covered: false,
      rule: first,
      askReason: `the ${describeRule(first)} cannot approve this command line by pattern, because it has ${analysis.hazards.join(', ')}`,
    };
  }
  return { covered: true, rule: first };
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
  const decision = evaluateRules(query);
  if (decision.action === 'deny' || !FILE_WRITING_TOOLS.has(query.tool)) return decision;
  return protectedPathCheck(query) ?? decision;
}

/**
 * Step 6: a write to a protected path asks, unless an allow rule for the tool names that path.
 * Runs after the other steps, so a deny still wins; it replaces an allow, or an ask's reason.
 */
function protectedPathCheck(query: PermissionQuery): PermissionDecision | undefined {
  const patterns = [...DEFAULT_PROTECTED_PATHS, ...(query.permission.protected ?? [])];
  const allows = query.permission.rules.filter(
    (rule): rule is PermissionRule & { match: string } => rule.action === 'allow' && rule.match !== undefined && appliesToTool(rule, query.tool),
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

/** Steps 1–5. */
function evaluateRules(query: PermissionQuery): PermissionDecision {
  const rules = query.permission.rules.filter((rule) => appliesToTool(rule, query.tool));
  const { subjects, workspaceRoot } = query;

  const deny = findScreeningRule(
    rules.filter((rule) => rule.action === 'deny'),
    subjects,
    workspaceRoot,
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
  );
  if (ask) return { action: 'ask', reason: `the ${describeRule(ask)} asks for approval`, rule: ask };

  const allows = rules.filter((rule) => rule.action === 'allow');
  const bare = allows.find((rule) => rule.match === undefined);
  // A bare allow covers everything left: paths outside the workspace were settled above.
  if (bare) return { action: 'allow', reason: `allowed by the ${describeRule(bare)}`, rule: bare };
  if (subjects.length > 0 && allows.length > 0) {
    let deciding: PermissionRule | undefined;
    let covered = true;
    for (const subject of subjects) {
      const outsideRule = outsideAllowedBy.get(subject);
      const coverage: Coverage = outsideRule ? { covered: true, rule: outsideRule } : coverSubject(allows, subject, workspaceRoot);
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
