/**
 * What environment a command Zuno starts inherits (issue 8 item 6). Shell commands, background
 * commands, workspace tasks and hooks run code the model chose or the workspace defines, and
 * `env` prints everything they inherit; so by default they do not inherit secrets. The anchor is
 * Codex's default `shell_environment_policy`: drop every variable whose name looks like a secret,
 * plus the provider key variables Zuno knows, whatever their names.
 *
 * - `shell.env.exclude` (name globs) drops more; it beats everything, include too, because an
 *   explicit drop is the safer reading of a conflict.
 * - `shell.env.include` (name globs) passes variables through on purpose; it beats the default drop.
 *
 * Names are compared case-insensitively (Windows does, and `Github_Token` is as secret as
 * `GITHUB_TOKEN`). The model providers' own HTTP calls read the key in-process and are not affected.
 */
import picomatch from 'picomatch';
import type { ZunoConfig } from './config';

/** Provider key variables Zuno knows, dropped by name even where the patterns would miss them. */
export const PROVIDER_KEY_VARIABLES: readonly string[] = [
  'ZUNO_API_KEY',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'OPENROUTER_API_KEY',
  'AZURE_OPENAI_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'MISTRAL_API_KEY',
  'GROQ_API_KEY',
  'DEEPSEEK_API_KEY',
  'XAI_API_KEY',
  'TOGETHER_API_KEY',
  'FIREWORKS_API_KEY',
  'HF_TOKEN',
];

/** Name globs of variables that hold secrets, dropped unless `shell.env.include` names them. */
export const SECRET_NAME_PATTERNS: readonly string[] = ['*KEY*', '*TOKEN*', '*SECRET*', '*PASSWORD*', '*CREDENTIAL*'];

export interface EnvironmentPolicy {
  /** Name globs passed through on purpose (config `shell.env.include`). */
  readonly include: readonly string[];
  /** Name globs dropped on top of the defaults (config `shell.env.exclude`). */
  readonly exclude: readonly string[];
  /** Variables that hold this run's provider key (`--api-key-env`, `model.api_key_env`), dropped like the known ones. */
  readonly keyVariables: readonly string[];
}

/** The policy a config asks for; `keyVariables` adds what the command line named (`--api-key-env`). */
export function environmentPolicy(config: ZunoConfig, keyVariables: readonly string[] = []): EnvironmentPolicy {
  const configured = config.model.api_key_env;
  return {
    include: config.shell.env.include,
    exclude: config.shell.env.exclude,
    keyVariables: [...(configured !== undefined ? [configured] : []), ...keyVariables],
  };
}

/** The policy without any config: the default drop only. */
export const DEFAULT_ENVIRONMENT_POLICY: EnvironmentPolicy = { include: [], exclude: [], keyVariables: [] };

const matcher = (globs: readonly string[]): ((name: string) => boolean) =>
  globs.length === 0 ? () => false : picomatch([...globs], { nocase: true, dot: true });

const secretName = matcher(SECRET_NAME_PATTERNS);

/** Whether a variable of this name reaches a child process under the policy. */
export function passesEnvironmentPolicy(policy: EnvironmentPolicy): (name: string) => boolean {
  const excluded = matcher(policy.exclude);
  const included = matcher(policy.include);
  const keys = new Set([...PROVIDER_KEY_VARIABLES, ...policy.keyVariables].map((name) => name.toUpperCase()));
  return (name) => {
    if (excluded(name)) return false;
    if (included(name)) return true;
    return !keys.has(name.toUpperCase()) && !secretName(name);
  };
}

/** The environment a child process inherits: `environment` without what the policy drops. */
export function filterEnvironment(
  environment: Readonly<Record<string, string | undefined>>,
  policy: EnvironmentPolicy,
): Record<string, string> {
  const passes = passesEnvironmentPolicy(policy);
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment)) {
    if (value !== undefined && passes(name)) kept[name] = value;
  }
  return kept;
}
