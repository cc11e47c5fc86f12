/**
 * Extension activation (issue 4, "Activation": record activation time in the benchmark suite).
 * Each sample is a fresh node process that loads the built dist/extension.js against a stand-in
 * `vscode` module and calls `activate`, timing both steps. Activation must stay light: the store
 * (sql.js) and ripgrep are opened on first use, so the sample also checks that activating left no
 * state dir behind. The baseline is loading the bundle; the ratio says how much activation adds.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchResult } from './run';

const SAMPLES = 7;
const bundle = join(__dirname, '..', 'dist', 'extension.js');

/**
 * Runs in the child. The stand-in answers every API call with a chainable no-op, except what
 * activation reads: the workspace folder, unset settings, and constructible event emitters.
 */
const CHILD = String.raw`
const Module = require('node:module');
const { performance } = require('node:perf_hooks');
const folder = process.argv[2];
const noop = new Proxy(function () {}, {
  get: (_target, key) => (key === 'then' ? undefined : key === Symbol.toPrimitive ? () => '' : noop),
  set: () => true,
  apply: () => noop,
  construct: () => noop,
});
class EventEmitter { constructor() { this.event = () => ({ dispose() {} }); } fire() {} dispose() {} }
// esbuild's interop builds each import's namespace on the module's prototype and copies its own
// keys, so a catch-all prototype answers every name the stand-in does not define. Scanning the
// bundle for "vscode.X" instead finds nothing in a minified build, where the import is renamed.
const anyName = new Proxy({}, { get: (_target, key) => (key === 'then' || key === '__esModule' ? undefined : noop) });
const vscode = Object.assign(Object.create(anyName), {
  DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
  EventEmitter,
  Disposable: class { constructor(dispose) { this.dispose = dispose; } },
  workspace: new Proxy({
    workspaceFolders: [{ uri: { fsPath: folder, scheme: 'file', toString: () => 'file://' + folder }, name: 'w', index: 0 }],
    workspaceFile: undefined,
    getConfiguration: () => ({ inspect: () => undefined, get: () => undefined, update: async () => undefined }),
  }, { get: (target, key) => (key in target ? target[key] : noop) }),
});
const load = Module._load;
Module._load = function (request, ...rest) { return request === 'vscode' ? vscode : load.call(this, request, ...rest); };
const started = performance.now();
const extension = require(process.argv[1]);
const loaded = performance.now();
const subscriptions = [];
extension.activate({ subscriptions, secrets: noop, workspaceState: { get: () => undefined, update: async () => undefined }, extensionUri: noop });
const activated = performance.now();
process.stdout.write(JSON.stringify({ loadMs: loaded - started, activateMs: activated - loaded, subscriptions: subscriptions.length }));
`;

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export default async function activation(): Promise<BenchResult[]> {
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run npm run build first.`);
  const loads: number[] = [];
  const activations: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample++) {
    const folder = mkdtempSync(join(tmpdir(), 'zuno-activation-'));
    try {
      const output = execFileSync(process.execPath, ['-e', CHILD, bundle, folder], { encoding: 'utf8' });
      const measured = JSON.parse(output) as { loadMs: number; activateMs: number; subscriptions: number };
      if (measured.subscriptions !== 1)
        throw new Error(`activate registered ${measured.subscriptions} disposables, expected 1 (it failed?)`);
      if (existsSync(join(folder, '.zuno')))
        throw new Error('activation created .zuno/: the store must open on first use, not at activation');
      loads.push(measured.loadMs);
      activations.push(measured.activateMs);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }
  const loadMs = median(loads);
  return [
    {
      name: 'extension activate() (store and rg deferred)',
      value: median(activations),
      unit: 'ms',
      baseline: { name: 'loading dist/extension.js', value: loadMs },
      detail: `median of ${SAMPLES} fresh processes, stand-in vscode API`,
    },
  ];
}
