/**
 * The cost of keeping hidden paths out of search results (issue 8 §5): grep and glob ask
 * `isHidden` for every path rg prints. Measured per path over a synthetic 100,000-file result at
 * depth 6, against the same run's baseline of one read permission check per path (what reading each
 * of those files would cost in policy work).
 */
import { parseConfig } from '../src/core/config';
import { STRICTEST_DECLARATIONS } from '../src/core/declarations';
import { evaluatePermission, pathVisibility } from '../src/core/policy';
import type { BenchResult } from './run';

const ROOT = '/home/user/projects/app';
const PATHS = 100_000;
const RULES = [
  { tool: '*', match: 'secrets/**', action: 'deny' },
  { tool: 'read', match: '**/*.pem', action: 'deny' },
  { tool: '*', match: '**/.env*', action: 'deny' },
  { tool: 'read', match: `${ROOT}/private`, action: 'deny' },
] as const;

function paths(): string[] {
  return Array.from(
    { length: PATHS },
    (_, index) => `${ROOT}/packages/pkg-${index % 200}/src/feature-${index % 37}/deep/module-${index}.ts`,
  );
}

function timePerPath(work: (path: string) => unknown, list: readonly string[]): number {
  for (const path of list.slice(0, 1000)) work(path);
  const started = performance.now();
  for (const path of list) work(path);
  return ((performance.now() - started) * 1000) / list.length;
}

export default async function visibilityBench(): Promise<BenchResult[]> {
  const { permission } = parseConfig({ permission: { rules: RULES } });
  const list = paths();
  // One visibility per call, as the scheduler derives it: its folder verdicts are reused across paths.
  const visibility = pathVisibility({ tool: 'grep', rules: permission.rules, workspaceRoot: ROOT });
  const hidden = timePerPath((path) => visibility.isHidden(path, 'file'), list);
  const permissionCheck = timePerPath(
    (path) =>
      evaluatePermission({
        tool: 'read',
        declarations: STRICTEST_DECLARATIONS,
        subjects: [{ kind: 'path', value: path }],
        permission,
        workspaceRoot: ROOT,
      }),
    list,
  );
  return [
    {
      name: 'isHidden per search result',
      value: hidden,
      unit: 'µs',
      baseline: { name: 'a read permission check per path', value: permissionCheck },
      detail: `${PATHS} paths at depth 6, ${RULES.length} deny rules`,
    },
  ];
}
