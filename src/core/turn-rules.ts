/**
 * A prompt keeps the rules it started with (issue 8 §3). In the editor the config is re-read
 * live, so a model that writes a looser config (an allow-all rule, a hook, `auto` mode) could
 * otherwise widen its own permissions within the same prompt. The scheduler snapshots the
 * permission config and the hooks when a prompt starts, evaluates each call against both the
 * snapshot and the live config, and keeps the stricter decision: tightening applies at once,
 * loosening waits for the next prompt, which starts with a notice naming what loosened.
 */
import type { HookConfig, PermissionMode, PermissionRule, ZunoConfig } from './config';
import type { PermissionAction, PermissionDecision } from './policy';

export interface RulesSnapshot {
  readonly permission: ZunoConfig['permission'];
  readonly hooks: ZunoConfig['hooks'];
}

/** A deep copy: a config object mutated in place later must not change the snapshot. */
export function snapshotRules(config: ZunoConfig): RulesSnapshot {
  return structuredClone({ permission: config.permission, hooks: config.hooks });
}

/** The snapshot with a rule the user added while approving a call ("Allow like this"): the user's own act, not a loosening to hold back. */
export function withUserRule(snapshot: RulesSnapshot, rule: PermissionRule): RulesSnapshot {
  const key = JSON.stringify(rule);
  if (snapshot.permission.rules.some((existing) => JSON.stringify(existing) === key)) return snapshot;
  return { ...snapshot, permission: { ...snapshot.permission, rules: [...snapshot.permission.rules, rule] } };
}

const SEVERITY: Readonly<Record<PermissionAction, number>> = { allow: 0, ask: 1, deny: 2 };

/** Deny beats ask beats allow; on a tie the first (the snapshot's) decision and its reason stand. */
export function stricterDecision(first: PermissionDecision, second: PermissionDecision): PermissionDecision {
  return SEVERITY[second.action] > SEVERITY[first.action] ? second : first;
}

const MODE_LOOSENESS: Readonly<Record<PermissionMode, number>> = { strict: 0, 'auto-edit': 1, auto: 2 };

const describeRule = (rule: PermissionRule): string =>
  `{tool: "${rule.tool}"${rule.match === undefined ? '' : `, match: "${rule.match}"`}, action: "${rule.action}"}`;

/** Items of `after` missing from `before`, compared by value. */
function added<T>(before: readonly T[], after: readonly T[]): T[] {
  const known = new Set(before.map((item) => JSON.stringify(item)));
  return after.filter((item) => !known.has(JSON.stringify(item)));
}

/**
 * What makes `after` looser than `before`, one phrase per change; empty when nothing loosened.
 * Looser means: a more permissive mode, an allow rule added, an ask or deny rule removed, a
 * protected glob removed, a hook added (it runs code on every call), or a pre-tool hook removed
 * (a guard gone).
 */
export function looseningChanges(before: RulesSnapshot, after: RulesSnapshot): string[] {
  const changes: string[] = [];
  const from = before.permission;
  const to = after.permission;
  if (MODE_LOOSENESS[to.mode] > MODE_LOOSENESS[from.mode]) changes.push(`permission mode ${from.mode} → ${to.mode}`);
  for (const rule of added(from.rules, to.rules)) if (rule.action === 'allow') changes.push(`allow rule added ${describeRule(rule)}`);
  for (const rule of added(to.rules, from.rules))
    if (rule.action !== 'allow') changes.push(`${rule.action} rule removed ${describeRule(rule)}`);
  for (const glob of added(to.protected, from.protected)) changes.push(`protected path removed "${glob}"`);
  const hooks = (kind: 'pre_tool' | 'post_tool', list: (snapshot: RulesSnapshot) => readonly HookConfig[]): void => {
    for (const hook of added(list(before), list(after))) changes.push(`${kind} hook added \`${hook.command}\``);
    if (kind === 'pre_tool') for (const hook of added(list(after), list(before))) changes.push(`${kind} hook removed \`${hook.command}\``);
  };
  hooks('pre_tool', (snapshot) => snapshot.hooks.pre_tool);
  hooks('post_tool', (snapshot) => snapshot.hooks.post_tool);
  return changes;
}
