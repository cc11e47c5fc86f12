/**
 * Workspace tasks for the CLI host (the `execute` slot). Two sources, both read at each call so
 * an edit to them counts at once:
 *
 * - package.json `scripts` at the workspace root, named `npm: <script>` as VS Code names them,
 *   run as `npm run <script>` (no shell in between; npm runs the script with its own shell).
 * - .vscode/tasks.json (JSON with comments), the subset a CLI can honour: `shell`, `process` and
 *   `npm` tasks with a label, a plain string command and string arguments, `options.cwd` and
 *   `options.env`, the platform sections (`linux`, `osx`, `windows`), and the variables
 *   `${workspaceFolder}`, `${workspaceFolderBasename}`, `${workspaceRoot}`, `${pathSeparator}`
 *   and `${env:NAME}`. A task that needs more (dependsOn, an extension's task type, editor
 *   variables such as `${file}`, a background watcher) is listed with the reason it cannot run
 *   here. A malformed file is reported, never fatal.
 *
 * Tasks run through the host's ProcessRunner like shell commands: their own process group,
 * stderr merged into stdout, stdin closed, the group killed on timeout or cancel.
 */
import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, join, resolve, sep } from 'node:path';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import type { ProcessRunner, WorkspaceTask, WorkspaceTaskList, WorkspaceTasks } from '../../core/host';

interface Launch {
  readonly command: string;
  readonly args: readonly string[];
  readonly shell: boolean;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
}

/** No pager waits for a key that never comes (stdin is closed), as for shell. */
const TASK_ENVIRONMENT: Readonly<Record<string, string>> = { PAGER: 'cat', GIT_PAGER: 'cat' };

const TASKS_FILE = join('.vscode', 'tasks.json');

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const isMissing = (error: unknown): boolean => isObject(error) && error.code === 'ENOENT';

/** The file's text, or undefined when it does not exist. */
async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Quotes an argument for /bin/sh when it holds anything beyond plain word characters. */
function shellQuote(argument: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(argument) ? argument : `'${argument.replace(/'/g, `'\\''`)}'`;
}

const PLATFORM_SECTION = process.platform === 'win32' ? 'windows' : process.platform === 'darwin' ? 'osx' : 'linux';

class UnsupportedTask extends Error {}

/** What `${…}` in tasks.json can refer to. */
interface TaskVariables {
  readonly workspaceRoot: string;
  /** The environment commands inherit (secrets filtered out), for `${env:NAME}`. */
  readonly environment: Readonly<Record<string, string>>;
}

/** Fills in the variables a CLI knows; any other `${…}` makes the task unsupported. */
function substitute(text: string, { workspaceRoot, environment }: TaskVariables): string {
  return text.replace(/\$\{([^}]*)\}/g, (_whole, name: string) => {
    if (name === 'workspaceFolder' || name === 'workspaceRoot') return workspaceRoot;
    if (name === 'workspaceFolderBasename') return basename(workspaceRoot);
    if (name === 'pathSeparator' || name === '/') return sep;
    // The filtered environment, so `${env:ZUNO_API_KEY}` cannot copy a dropped secret into a command.
    if (name.startsWith('env:')) return environment[name.slice(4)] ?? '';
    throw new UnsupportedTask(`it uses \${${name}}, which only the editor can fill in`);
  });
}

function stringOf(value: unknown, what: string, variables: TaskVariables): string {
  if (typeof value !== 'string') throw new UnsupportedTask(`its ${what} is not a plain string (quoting objects need the editor)`);
  return substitute(value, variables);
}

/** One tasks.json entry as a task and how to launch it; throws UnsupportedTask for what a CLI cannot honour. */
function tasksJsonLaunch(entry: Json, variables: TaskVariables): { readonly command: string; readonly launch: Launch } {
  const { workspaceRoot } = variables;
  const platform = entry[PLATFORM_SECTION];
  const merged: Json = isObject(platform)
    ? {
        ...entry,
        ...platform,
        options: { ...(isObject(entry.options) ? entry.options : {}), ...(isObject(platform.options) ? platform.options : {}) },
      }
    : entry;
  if (merged.dependsOn !== undefined)
    throw new UnsupportedTask('it depends on other tasks (dependsOn), which only the editor runs in order');
  if (merged.isBackground === true)
    throw new UnsupportedTask(
      'it is a background (watch) task that never ends; start its command with shell and "background": true instead',
    );
  const options = isObject(merged.options) ? merged.options : {};
  const cwdText = options.cwd === undefined ? undefined : stringOf(options.cwd, 'options.cwd', variables);
  const cwd = cwdText === undefined ? workspaceRoot : isAbsolute(cwdText) ? cwdText : resolve(workspaceRoot, cwdText);
  const env: Record<string, string> = { ...TASK_ENVIRONMENT };
  if (isObject(options.env)) {
    for (const [key, value] of Object.entries(options.env)) env[key] = stringOf(value, `options.env.${key}`, variables);
  }
  const rawArgs = merged.args === undefined ? [] : merged.args;
  if (!Array.isArray(rawArgs)) throw new UnsupportedTask('its args is not a list');
  const args = rawArgs.map((argument, index) => stringOf(argument, `args[${index}]`, variables));
  const type = merged.type ?? 'process';
  if (type === 'npm') {
    const script = stringOf(merged.script, 'script', variables);
    const folder = merged.path === undefined ? workspaceRoot : resolve(workspaceRoot, stringOf(merged.path, 'path', variables));
    return { command: `npm run ${script}`, launch: { command: 'npm', args: ['run', script], shell: false, cwd: folder, env } };
  }
  if (type !== 'shell' && type !== 'process')
    throw new UnsupportedTask(`its type ${JSON.stringify(type)} is provided by an editor extension`);
  const command = stringOf(merged.command, 'command', variables);
  if (type === 'shell') {
    const line = [command, ...args.map(shellQuote)].join(' ');
    return { command: line, launch: { command: line, args: [], shell: true, cwd, env } };
  }
  return { command: [command, ...args.map(shellQuote)].join(' '), launch: { command, args, shell: false, cwd, env } };
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) line++;
  return line;
}

/** `environment` is what the process runner gives children, so `${env:NAME}` sees no more than they do. */
export function createNodeWorkspaceTasks(processes: ProcessRunner, environment: () => Readonly<Record<string, string>>): WorkspaceTasks {
  // How to launch each listed task. Keyed by the task object, so only what `list` produced runs.
  const launches = new WeakMap<WorkspaceTask, Launch>();

  async function list(workspaceRoot: string): Promise<WorkspaceTaskList> {
    const tasks: WorkspaceTask[] = [];
    const problems: string[] = [];
    const add = (task: WorkspaceTask, launch: Launch | undefined): void => {
      if (tasks.some((existing) => existing.name === task.name)) {
        problems.push(`${task.source}: a second task is named "${task.name}"; only the first one is offered`);
        return;
      }
      tasks.push(task);
      if (launch) launches.set(task, launch);
    };

    const packageText = await readOptional(join(workspaceRoot, 'package.json'));
    if (packageText !== undefined) {
      let manifest: unknown;
      try {
        manifest = JSON.parse(packageText);
      } catch (error) {
        problems.push(`package.json is not valid JSON (${messageOf(error)})`);
      }
      const scripts = isObject(manifest) ? manifest.scripts : undefined;
      if (scripts !== undefined && !isObject(scripts)) problems.push('package.json: "scripts" is not an object');
      for (const [script, body] of Object.entries(isObject(scripts) ? scripts : {})) {
        if (typeof body !== 'string') {
          problems.push(`package.json: the script "${script}" is not a string`);
          continue;
        }
        add(
          { name: `npm: ${script}`, source: 'package.json', command: `npm run ${script} (runs: ${body})` },
          { command: 'npm', args: ['run', script], shell: false, cwd: workspaceRoot, env: TASK_ENVIRONMENT },
        );
      }
    }

    const tasksText = await readOptional(join(workspaceRoot, TASKS_FILE));
    if (tasksText !== undefined) {
      const errors: ParseError[] = [];
      const document: unknown = parse(tasksText, errors, { allowTrailingComma: true });
      const firstError = errors[0];
      if (firstError) {
        problems.push(
          `${TASKS_FILE} is malformed: ${printParseErrorCode(firstError.error)} at line ${lineOf(tasksText, firstError.offset)}`,
        );
      } else if (!isObject(document) || !Array.isArray(document.tasks)) {
        problems.push(`${TASKS_FILE} has no "tasks" list`);
      } else {
        document.tasks.forEach((entry: unknown, index) => {
          if (!isObject(entry)) {
            problems.push(`${TASKS_FILE}: tasks[${index}] is not an object`);
            return;
          }
          const label =
            typeof entry.label === 'string'
              ? entry.label
              : entry.type === 'npm' && typeof entry.script === 'string'
                ? `npm: ${entry.script}`
                : undefined;
          if (label === undefined) {
            problems.push(`${TASKS_FILE}: tasks[${index}] has no label, so it cannot be named`);
            return;
          }
          try {
            const { command, launch } = tasksJsonLaunch(entry, { workspaceRoot, environment: environment() });
            add({ name: label, source: TASKS_FILE, command }, launch);
          } catch (error) {
            if (!(error instanceof UnsupportedTask)) throw error;
            add(
              {
                name: label,
                source: TASKS_FILE,
                command: typeof entry.command === 'string' ? entry.command : '(see tasks.json)',
                unsupported: error.message,
              },
              undefined,
            );
          }
        });
      }
    }
    return { tasks, problems };
  }

  return {
    list,
    async run(task, workspaceRoot, options) {
      const launch =
        launches.get(task) ??
        (await list(workspaceRoot).then((fresh) => launches.get(fresh.tasks.find((candidate) => candidate.name === task.name) ?? task)));
      if (!launch)
        throw new Error(`The task "${task.name}" cannot be run here${task.unsupported !== undefined ? `: ${task.unsupported}` : ''}.`);
      return processes.run({
        command: launch.command,
        args: launch.args,
        shell: launch.shell,
        cwd: launch.cwd,
        env: launch.env,
        mergeStderr: true,
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        onOutput: (chunk) => options.onOutput(chunk),
        display: task.command,
        ...(options.sandbox ? { sandbox: options.sandbox } : {}),
      });
    },
  };
}
