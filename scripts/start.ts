/**
 * `npm start [-- --workspace DIR] [--port N]`: Zuno in a real VS Code, in the browser.
 *
 * Builds and packages the extension, installs code-server on first use, installs the .vsix and
 * serves the workspace at http://127.0.0.1:PORT. The model comes from ZUNO_BASE_URL, ZUNO_MODEL
 * and ZUNO_API_KEY (default: Ollama on this machine). Ctrl+C stops everything it started.
 *
 * The editor's state (.cache/start/user-data) persists between runs, so chat history does too.
 * Without --workspace, the bundled sample (samples/workspace) is copied once to
 * .cache/start/workspace and opened there, so the repo copy stays clean.
 */
import { cpSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  cacheRoot,
  ensureCodeServer,
  freePort,
  installExtension,
  missingSystemPackages,
  repoRoot,
  startCodeServer,
  writeUserSettings,
} from './code-server';
import { describeSizes, packageExtension } from './package';
import { currentEnvironment, EXIT_NEEDS_SETUP, planSystemSetup, runSetupCommands } from './system-setup';

const DEFAULT_BASE_URL = 'http://127.0.0.1:11434/v1';
const DEFAULT_PORT = 8080;

function usage(): never {
  console.error('usage: npm start [-- --workspace DIR] [--port N]');
  process.exit(2);
}

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs({ options: { workspace: { type: 'string' }, port: { type: 'string' }, help: { type: 'boolean' } } }).values;
  } catch (error: unknown) {
    console.error(error instanceof Error ? error.message : error);
    usage();
  }
  if (args.help === true) usage();
  const preferredPort = Number(args.port ?? process.env.PORT ?? DEFAULT_PORT);
  if (!Number.isInteger(preferredPort) || preferredPort <= 0 || preferredPort > 65535) usage();

  const home = join(cacheRoot, 'start');
  let workspace: string;
  if (args.workspace !== undefined) {
    workspace = resolve(args.workspace);
    if (!existsSync(workspace) || !statSync(workspace).isDirectory()) throw new Error(`--workspace ${workspace} is not a folder`);
  } else {
    workspace = join(home, 'workspace');
    if (!existsSync(workspace)) cpSync(join(repoRoot, 'samples', 'workspace'), workspace, { recursive: true });
  }

  const setup = planSystemSetup(currentEnvironment(missingSystemPackages({ browser: false })));
  if (setup.kind === 'instruct') {
    console.error(setup.message);
    process.exit(EXIT_NEEDS_SETUP);
  }
  if (setup.kind === 'install') {
    console.log('[0/4] Installing the missing system packages...');
    runSetupCommands(setup.commands, (line) => console.log(`      ${line}`));
  }

  console.log('[1/4] Building and packaging the extension...');
  const packaged = await packageExtension((line) => console.log(`      ${line}`));
  console.log(`      ${describeSizes(packaged)}`);

  console.log('[2/4] Checking code-server...');
  const entry = await ensureCodeServer((line) => console.log(`      ${line}`));

  console.log('[3/4] Installing the extension...');
  const dirs = { userDataDir: join(home, 'user-data'), extensionsDir: join(home, 'extensions') };
  const baseUrl = process.env.ZUNO_BASE_URL ?? DEFAULT_BASE_URL;
  const model = process.env.ZUNO_MODEL;
  writeUserSettings(dirs.userDataDir, { 'zuno.model.baseUrl': baseUrl, ...(model !== undefined ? { 'zuno.model.name': model } : {}) });
  await installExtension(entry, packaged.vsix, dirs);

  console.log('[4/4] Starting code-server...');
  mkdirSync(home, { recursive: true });
  const logFile = join(home, 'code-server.log');
  // ZUNO_API_KEY reaches the extension host through the server's environment; the extension
  // moves it into SecretStorage at activation when no key is stored yet.
  const server = await startCodeServer({ entry, ...dirs, port: await freePort(preferredPort), folder: workspace, logFile });

  console.log('');
  console.log(`Zuno is running: ${server.url}`);
  console.log(`  workspace: ${workspace}`);
  console.log(
    `  model:     ${model ?? '(extension default)'} at ${baseUrl}${process.env.ZUNO_API_KEY ? ' (API key from ZUNO_API_KEY)' : ''}`,
  );
  console.log(`  log:       ${logFile}`);
  console.log('Press Ctrl+C to stop.');

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping code-server...`);
    void server.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  server.process.once('exit', (code) => {
    if (stopping) return;
    console.error(`code-server exited unexpectedly (${code}); see ${logFile}`);
    process.exit(1);
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
