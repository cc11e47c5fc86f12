/**
 * `npm run package`: a .vsix for the current platform, built with `vsce package --target`.
 *
 * The package is assembled in a staging folder under .cache rather than in the repo, so the
 * platform's rg can sit at `<extension>/bin/rg` (where the runtime's ripgrep resolver looks,
 * beside dist/) without leaving a stray binary in the work tree. Everything is bundled, so vsce
 * runs with --no-dependencies; .vscodeignore is copied in as a last guard on what ships.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { withLock } from './cache-lock';
import { cacheRoot, platformRipgrep, repoRoot, type Log } from './code-server';

/** What ships besides package.json: the bundles loaded at run time and the sql.js wasm. */
const distFiles = ['extension.js', 'cli.js', 'sql-wasm.wasm', 'tree-sitter.wasm', 'tree-sitter-bash.wasm'];
const stageDir = join(cacheRoot, 'package', 'stage');

export interface PackageResult {
  readonly vsix: string;
  readonly target: string;
  readonly vsixBytes: number;
  /** dist/extension.js: the bundle VS Code loads at activation. */
  readonly bundleBytes: number;
}

/** The vsce target for this machine (`vsce package --help` lists the valid ones). */
export function vsceTarget(): string {
  const arch = process.arch === 'arm' ? 'armhf' : process.arch;
  const platform = process.platform === 'linux' && isMusl() ? 'alpine' : process.platform;
  const target = `${platform}-${arch}`;
  const known = [
    'win32-x64',
    'win32-arm64',
    'linux-x64',
    'linux-arm64',
    'linux-armhf',
    'darwin-x64',
    'darwin-arm64',
    'alpine-x64',
    'alpine-arm64',
  ];
  if (!known.includes(target)) throw new Error(`vsce has no target for ${process.platform}-${process.arch}`);
  return target;
}

function isMusl(): boolean {
  // glibc builds of Node report their glibc version; musl builds leave it out.
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return header !== undefined && header.glibcVersionRuntime === undefined;
}

function run(command: string, args: readonly string[], cwd: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(command, [...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', fail);
    child.once('exit', (code) =>
      code === 0 ? done(output) : fail(new Error(`${command} ${args.join(' ')} failed (exit ${code}):\n${output}`)),
    );
  });
}

/** Builds the bundles with esbuild.mjs, minified when `production`. */
export async function build(production: boolean): Promise<void> {
  await run(process.execPath, ['esbuild.mjs', ...(production ? ['--production'] : [])], repoRoot);
}

/** Copies exactly what ships into the staging folder; returns its content hash. */
function stage(): string {
  const missing = [...distFiles.map((name) => join('dist', name)), join('media', 'dist', 'webview.js')].filter(
    (path) => !existsSync(join(repoRoot, path)),
  );
  if (missing.length > 0)
    throw new Error(`The build lacks ${missing.join(', ')}: is src/extension.ts or media/main.ts missing, or did the build fail?`);
  rmSync(stageDir, { recursive: true, force: true });
  mkdirSync(join(stageDir, 'dist'), { recursive: true });
  for (const name of distFiles) copyFileSync(join(repoRoot, 'dist', name), join(stageDir, 'dist', name));
  for (const name of ['package.json', 'README.md', 'LICENSE', '.vscodeignore']) {
    if (existsSync(join(repoRoot, name))) copyFileSync(join(repoRoot, name), join(stageDir, name));
  }
  if (existsSync(join(repoRoot, 'media'))) cpSync(join(repoRoot, 'media'), join(stageDir, 'media'), { recursive: true });
  const rg = platformRipgrep();
  const rgName = process.platform === 'win32' ? 'rg.exe' : 'rg';
  mkdirSync(join(stageDir, 'bin'));
  copyFileSync(rg, join(stageDir, 'bin', rgName));
  chmodSync(join(stageDir, 'bin', rgName), 0o755);
  return hashTree(stageDir);
}

function hashTree(root: string): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else hash.update(relative(root, path)).update('\0').update(readFileSync(path)).update('\0');
    }
  };
  walk(root);
  return hash.digest('hex').slice(0, 16);
}

/** Runs `vsce package` in `dir`; `target` is left out for a platform-neutral package. */
export async function runVsce(dir: string, out: string, target?: string): Promise<void> {
  const vsceBin = join(createRequire(join(repoRoot, 'package.json')).resolve('@vscode/vsce/package.json'), '..', 'vsce');
  const args = [vsceBin, 'package', '--no-dependencies', '--allow-missing-repository', '--out', out];
  if (target !== undefined) args.push('--target', target);
  // vsce asks (and, with no terminal, hangs) when LICENSE is missing; say yes up front instead.
  if (!existsSync(join(dir, 'LICENSE'))) args.push('--skip-license');
  await run(process.execPath, args, dir);
}

const productionName = (target: string): string => {
  const { name, version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { name: string; version: string };
  return `${name}-${version}-${target}.vsix`;
};

function result(vsix: string, target: string): PackageResult {
  return { vsix, target, vsixBytes: statSync(vsix).size, bundleBytes: statSync(join(repoRoot, 'dist', 'extension.js')).size };
}

/** The release artifact: a production build, packaged as `<name>-<version>-<target>.vsix` at the repo root. */
export async function packageExtension(log: Log = console.log): Promise<PackageResult> {
  const target = vsceTarget();
  return withLock(
    join(cacheRoot, 'package.lock'),
    async () => {
      log('Building (production)...');
      await build(true);
      stage();
      const vsix = join(repoRoot, productionName(target));
      log(`Packaging ${relative(repoRoot, vsix)} with vsce --target ${target}...`);
      await runVsce(stageDir, vsix, target);
      return result(vsix, target);
    },
    () => log('Waiting for another packaging run...'),
  );
}

/**
 * Packages dist/ as it is (whatever the last build made), reusing an earlier .vsix when what
 * ships is byte-for-byte the same. The e2e tests call this once per test file, so only the first
 * file after a change pays for vsce.
 */
export async function packageCurrentBuild(log: Log = console.log): Promise<PackageResult> {
  const target = vsceTarget();
  return withLock(
    join(cacheRoot, 'package.lock'),
    async () => {
      if (!existsSync(join(repoRoot, 'dist', 'extension.js'))) await build(false);
      const hash = stage();
      const vsix = join(cacheRoot, 'package', `zuno-${target}-${hash}.vsix`);
      if (!existsSync(vsix)) {
        log(`Packaging the current build (${hash})...`);
        // Earlier builds' packages are never reused once dist/ has moved on.
        for (const name of readdirSync(dirname(vsix))) if (name.endsWith('.vsix')) rmSync(join(dirname(vsix), name));
        await runVsce(stageDir, vsix, target);
      }
      return result(vsix, target);
    },
    () => log('Waiting for another packaging run...'),
  );
}

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

/** Human-readable sizes, shared with the benchmark output. */
export function describeSizes(packaged: PackageResult): string {
  return `${relative(repoRoot, packaged.vsix)}: ${kib(packaged.vsixBytes)}; dist/extension.js (loaded at activation): ${kib(packaged.bundleBytes)}`;
}

if (require.main === module) {
  packageExtension()
    .then((packaged) => console.log(describeSizes(packaged)))
    .catch((error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    });
}
