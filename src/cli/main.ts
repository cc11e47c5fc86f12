/**
 * The CLI's entry: parses the command line and hands it to its command's module. Every command
 * resolves the workspace, config and state dir the same way (./workspace); exit codes in ./process.
 */
import { parseCommandLine, UsageError, USAGE, type McpCommand } from './args';
import { listCheckpoints, rewind } from './checkpoints-command';
import { exec } from './exec-command';
import { runMcpCommand } from './mcp-command';
import { memory } from './memory-command';
import { EXIT_OK, EXIT_USAGE, errorMessage, type CliProcess } from './process';
import { show } from './show-command';
import { loadConfig, resolveWorkspace, stateDirFor } from './workspace';
import { ensureStateDir } from '../store/relocate';
import packageJson from '../../package.json';

/** `zuno mcp`: src/cli/mcp-command.ts, with the workspace, config and state dir resolved as for exec. */
async function mcp(command: McpCommand, io: CliProcess): Promise<number> {
  const workspace = resolveWorkspace(command.workspace, io.cwd);
  const { config } = loadConfig(command.config, workspace, io.cwd);
  const { stateDir } = await stateDirFor(command.stateDir, workspace, io);
  return runMcpCommand({
    action: command.action,
    server: command.server,
    tool: command.tool,
    json: command.json,
    config,
    workspaceRoot: workspace,
    stateDir: ensureStateDir(stateDir),
    write: (text) => void io.stdout.write(text),
    warn: (text) => void io.stderr.write(text),
  });
}

/** Runs one command line and returns the exit code. Never throws. */
export async function runCli(io: CliProcess): Promise<number> {
  try {
    const command = parseCommandLine(io.argv);
    switch (command.command) {
      case 'help':
        io.stdout.write(`${USAGE}\n`);
        return EXIT_OK;
      case 'version':
        io.stdout.write(`zuno ${packageJson.version}\n`);
        return EXIT_OK;
      case 'exec':
        return await exec(command, io);
      case 'show':
        return await show(command, io);
      case 'memory':
        return await memory(command, io);
      case 'mcp':
        return await mcp(command, io);
      case 'checkpoints':
        return await listCheckpoints(command, io);
      case 'rewind':
        return await rewind(command, io);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`zuno: ${error.message}\n\n${USAGE}\n`);
      return EXIT_USAGE;
    }
    // Everything that fails before the model is asked (config, ripgrep, store, session lookup) is exit 2.
    io.stderr.write(`zuno: ${errorMessage(error)}\n`);
    return EXIT_USAGE;
  }
}
