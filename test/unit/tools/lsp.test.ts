import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_CONFIG } from '../../../src/core/config';
import type { LanguageFeatures, SourceRange } from '../../../src/core/host';
import { createNodeHost } from '../../../src/hosts/node/host';
import { lspTool } from '../../../src/tools/lsp';
import { approveEverything, checkCall, makeTempDir, makeToolContext, removeDir } from '../../support/tool-context';

const workspace = makeTempDir('zuno-lsp-');
after(() => removeDir(workspace));
mkdirSync(join(workspace, 'src'), { recursive: true });
writeFileSync(
  join(workspace, 'src', 'cart.ts'),
  'export function total(items: number[]) {\n  return items.reduce((a, b) => a + b, 0);\n}\n',
);
writeFileSync(join(workspace, 'src', 'main.ts'), "import { total } from './cart';\nconsole.log(total([1, 2]));\n");

const cart = join(workspace, 'src', 'cart.ts');
const main = join(workspace, 'src', 'main.ts');
const range = (path: string, line: number, character: number): SourceRange => ({
  path,
  line,
  character,
  endLine: line,
  endCharacter: character + 5,
});

class FakeLanguageFeatures implements LanguageFeatures {
  readonly asked: string[] = [];
  active = 0;
  maxActive = 0;
  gate: Promise<void> = Promise.resolve();
  private async enter<T>(what: string, value: T): Promise<T> {
    this.asked.push(what);
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    await this.gate;
    this.active--;
    return value;
  }
  definition(path: string, line: number, character: number) {
    return this.enter(`definition ${path}:${line}:${character}`, [range(cart, 1, 17)]);
  }
  references() {
    return this.enter('references', [range(cart, 1, 17), range(main, 1, 10), range(main, 2, 13)]);
  }
  hover() {
    return this.enter('hover', ['```ts\nfunction total(items: number[]): number\n```']);
  }
  symbols() {
    return this.enter('symbols', [
      { name: 'Cart', kind: 'Class', line: 1, endLine: 9, depth: 0 },
      { name: 'total', kind: 'Method', detail: '(): number', line: 2, endLine: 4, depth: 1 },
    ]);
  }
  diagnostics(path: string) {
    return this.enter(`diagnostics ${path}`, [
      {
        path: main,
        line: 2,
        character: 1,
        severity: 'warning' as const,
        message: 'Unexpected console statement.',
        source: 'eslint',
        code: 'no-console',
      },
      {
        path: cart,
        line: 2,
        character: 10,
        severity: 'error' as const,
        message: "Type 'string' is not assignable\nto type 'number'.",
        source: 'ts',
        code: '2322',
      },
    ]);
  }
}

function contextWith(features: FakeLanguageFeatures | undefined, config = {}) {
  const host = {
    ...createNodeHost({ stateDir: join(workspace, '.zuno', 'state'), approvals: approveEverything }),
    ...(features ? { languageFeatures: features } : {}),
  };
  return makeToolContext({ workspaceRoot: workspace, host, config });
}

async function lsp(args: Record<string, unknown>, features = new FakeLanguageFeatures(), config = {}) {
  const parsed = lspTool.parse(args);
  assert.ok(parsed.success, JSON.stringify(parsed));
  return { result: await lspTool.run(parsed.args, await checkCall(lspTool, parsed.args, contextWith(features, config))), features };
}

test('S3, E3, R1: lsp is ReadOnly, Safe, ParallelSafe, and unavailable without an editor (the CLI host)', () => {
  assert.deepEqual(lspTool.declarationsFor({ action: 'symbols', path: 'a' }), {
    effect: 'ReadOnly',
    replay: 'Safe',
    concurrency: 'ParallelSafe',
  });
  const cli = contextWith(undefined);
  assert.match(lspTool.unavailableReason(cli) ?? '', /needs the language servers of an editor/);
  assert.equal(lspTool.unavailableReason(contextWith(new FakeLanguageFeatures())), undefined);
});

test('issue 3 lsp: definition and references list path:line:character with the source line, relative to the workspace', async () => {
  const { result, features } = await lsp({ action: 'definition', path: 'src/main.ts', line: 2, character: 13 });
  assert.deepEqual(features.asked, [`definition ${main}:2:13`]);
  assert.equal(result.output, '1 definitions:\nsrc/cart.ts:1:17  export function total(items: number[]) {');
  const references = await lsp({ action: 'references', path: 'src/cart.ts', line: 1, character: 17 });
  assert.equal(
    references.result.output,
    "3 references:\nsrc/cart.ts:1:17  export function total(items: number[]) {\nsrc/main.ts:1:10  import { total } from './cart';\nsrc/main.ts:2:13  console.log(total([1, 2]));",
  );
});

test('issue 3 lsp: hover, symbols as an indented outline, diagnostics errors first with their source', async () => {
  assert.match(
    (await lsp({ action: 'hover', path: 'src/cart.ts', line: 1, character: 17 })).result.output,
    /function total\(items: number\[\]\): number/,
  );
  assert.equal(
    (await lsp({ action: 'symbols', path: 'src/cart.ts' })).result.output,
    'Outline of src/cart.ts:\nClass Cart  (lines 1-9)\n  Method total (): number  (lines 2-4)',
  );
  const diagnostics = await lsp({ action: 'diagnostics', path: 'src' });
  assert.deepEqual(diagnostics.features.asked, [`diagnostics ${join(workspace, 'src')}`]);
  assert.equal(
    diagnostics.result.output,
    "Diagnostics for src (1 error, 1 warning, 0 information, 0 hint):\nsrc/cart.ts:2:10 error Type 'string' is not assignable to type 'number'. [ts 2322]\nsrc/main.ts:2:1 warning Unexpected console statement. [eslint no-console]",
  );
});

test('B1 invalid_arguments: definition, references and hover need a position; a folder is only for diagnostics', async () => {
  const missing = lspTool.parse({ action: 'hover', path: 'src/cart.ts' });
  assert.equal(missing.success, false);
  assert.match(missing.success ? '' : missing.error, /need line and character/);
  await assert.rejects(lsp({ action: 'symbols', path: 'src' }), /src is a folder; symbols needs a file/);
  await assert.rejects(lsp({ action: 'symbols', path: 'src/nope.ts' }), /does not exist/);
});

test('C3 lsp_requests: at most concurrency.lsp_requests language requests run at once', async () => {
  const features = new FakeLanguageFeatures();
  let release: () => void = () => undefined;
  features.gate = new Promise((resolve) => (release = resolve));
  const context = contextWith(features, { concurrency: { lsp_requests: 2 } });
  const parsed = lspTool.parse({ action: 'symbols', path: 'src/cart.ts' });
  assert.ok(parsed.success);
  const checked = await checkCall(lspTool, parsed.args, context);
  const runs = Array.from({ length: 5 }, () => lspTool.run(parsed.args, checked));
  while (features.asked.length < 2) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(features.active, 2, 'two requests are in flight, three wait');
  release();
  await Promise.all(runs);
  assert.equal(features.maxActive, 2);
  assert.equal(features.asked.length, 5);
  assert.equal(DEFAULT_CONFIG.concurrency.lsp_requests, 4);
});

test('issue 3 lsp: a cancelled call stops waiting for the editor', async () => {
  const features = new FakeLanguageFeatures();
  features.gate = new Promise(() => undefined);
  const controller = new AbortController();
  const host = {
    ...createNodeHost({ stateDir: join(workspace, '.zuno', 'state'), approvals: approveEverything }),
    languageFeatures: features,
  };
  const context = makeToolContext({ workspaceRoot: workspace, host, signal: controller.signal });
  const parsed = lspTool.parse({ action: 'hover', path: 'src/cart.ts', line: 1, character: 1 });
  assert.ok(parsed.success);
  const running = lspTool.run(parsed.args, await checkCall(lspTool, parsed.args, context));
  while (features.asked.length < 1) await new Promise((resolve) => setImmediate(resolve));
  controller.abort(new Error('cancelled by the user'));
  await assert.rejects(running, /cancelled by the user/);
});

test('issue 8 §5: locations and diagnostics in files a deny rule hides are counted, never shown', async () => {
  const config = { permission: { rules: [{ tool: '*', match: 'src/main.ts', action: 'deny' }] } };
  const references = await lsp({ action: 'references', path: 'src/cart.ts', line: 1, character: 17 }, new FakeLanguageFeatures(), config);
  assert.equal(
    references.result.output,
    '1 references:\nsrc/cart.ts:1:17  export function total(items: number[]) {\n[2 more in files hidden by permission rules, not shown.]',
  );
  const diagnostics = await lsp({ action: 'diagnostics', path: 'src' }, new FakeLanguageFeatures(), config);
  assert.doesNotMatch(diagnostics.result.output, /main\.ts|console/);
  assert.match(diagnostics.result.output, /src\/cart\.ts:2:10 error[\s\S]*\[1 more in files hidden by permission rules, not shown\.\]$/);
});
