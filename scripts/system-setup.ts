/**
 * The system packages `npm start` needs, installed by `npm start` itself when it may (issue 15 of
 * issue 14): the README promises that `npm install && npm start` is the whole set-up on a fresh
 * Debian or Ubuntu machine. As root, or with sudo that needs no password, the missing packages are
 * installed with apt-get, each command printed before it runs; otherwise the one command a person
 * has to run is printed and `npm start` exits 2, because only they can type the password.
 */
import { spawnSync, type StdioOptions } from 'node:child_process';
import { onPath, type SystemPackage } from './code-server';

/** What decides how the packages can be installed; injected so the decision is testable. */
export interface SetupEnvironment {
  readonly missing: readonly SystemPackage[];
  readonly isRoot: boolean;
  readonly hasAptGet: boolean;
  /** Probed only when needed: `sudo -n` may log a failed attempt. */
  readonly passwordlessSudo: () => boolean;
}

/** One command to run, as argv (never through a shell) and as the line shown to the user. */
export interface SetupCommand {
  readonly argv: readonly string[];
  readonly display: string;
}

export type SetupPlan =
  | { readonly kind: 'ready' }
  | { readonly kind: 'install'; readonly commands: readonly SetupCommand[] }
  | { readonly kind: 'instruct'; readonly message: string };

/** The exit code of `npm start` when the person must install something first. */
export const EXIT_NEEDS_SETUP = 2;

function aptCommands(names: readonly string[], viaSudo: boolean): SetupCommand[] {
  // `env` sets the variable on the far side of sudo, whose env_reset would drop it otherwise;
  // noninteractive keeps debconf from stopping at a question nobody sees.
  const prefix = viaSudo ? ['sudo', '-n', 'env', 'DEBIAN_FRONTEND=noninteractive'] : ['env', 'DEBIAN_FRONTEND=noninteractive'];
  const shown = viaSudo ? 'sudo apt-get' : 'apt-get';
  const install = ['install', '-y', '--no-install-recommends', ...names];
  return [
    { argv: [...prefix, 'apt-get', 'update'], display: `${shown} update` },
    { argv: [...prefix, 'apt-get', ...install], display: `${shown} ${install.join(' ')}` },
  ];
}

/** Decides whether to install the missing packages here, or to tell the person what to run. */
export function planSystemSetup(environment: SetupEnvironment): SetupPlan {
  const { missing } = environment;
  if (missing.length === 0) return { kind: 'ready' };
  const names = missing.map((entry) => entry.name);
  const reasons = missing.map((entry) => `  - ${entry.name}: ${entry.why}`).join('\n');
  if (!environment.hasAptGet) {
    return {
      kind: 'instruct',
      message:
        `Missing system packages:\n${reasons}\n` +
        'This machine has no apt-get, so npm start cannot install them: install the equivalent packages with your ' +
        "system's package manager, then run npm start again.",
    };
  }
  if (environment.isRoot) return { kind: 'install', commands: aptCommands(names, false) };
  if (environment.passwordlessSudo()) return { kind: 'install', commands: aptCommands(names, true) };
  const oneCommand = `sudo sh -c 'apt-get update && apt-get install -y --no-install-recommends ${names.join(' ')}'`;
  return {
    kind: 'instruct',
    message: `Missing system packages:\n${reasons}\nInstall them with this command (it asks for your password), then run npm start again:\n  ${oneCommand}`,
  };
}

/** This machine, as `planSystemSetup` sees it. */
export function currentEnvironment(missing: readonly SystemPackage[]): SetupEnvironment {
  return {
    missing,
    isRoot: process.getuid?.() === 0,
    hasAptGet: onPath('apt-get'),
    passwordlessSudo: () => onPath('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0,
  };
}

/** Runs the plan's commands in order, saying each before it runs; stops at the first that fails. */
export function runSetupCommands(commands: readonly SetupCommand[], log: (line: string) => void, stdio: StdioOptions = 'inherit'): void {
  for (const command of commands) {
    log(`running: ${command.display}`);
    const [program, ...args] = command.argv;
    if (program === undefined) continue;
    const result = spawnSync(program, args, { stdio });
    if (result.error !== undefined) throw new Error(`could not run "${command.display}": ${result.error.message}`);
    if (result.status !== 0) {
      const how = result.status === null ? `was killed by ${result.signal ?? 'a signal'}` : `exited with ${result.status}`;
      throw new Error(`"${command.display}" ${how}; fix what it printed above, then run npm start again.`);
    }
  }
}
