/**
 * Finds ripgrep and checks its version (SPEC S4). There is no fallback walker: without a usable
 * rg ≥ 14 the tool runtime does not start, and the error says what was tried and how to fix it.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import type { RipgrepBinary } from '../../core/host';
import { StartupError } from '../../core/errors';

export const MINIMUM_RIPGREP_MAJOR = 14;

export interface RipgrepSearch {
  /** Usually `process.env`; `ZUNO_RG_PATH` and `PATH` are read from it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Config `ripgrep.path`. */
  readonly configuredPath?: string;
}

interface Candidate {
  readonly source: string;
  readonly path: string;
  /** An explicit choice is used or fails; it is never skipped for the next candidate. */
  readonly explicit: boolean;
}

const executableName = process.platform === 'win32' ? 'rg.exe' : 'rg';

function bundledCandidates(): Candidate[] {
  // A packaged extension ships rg in `bin/` beside `dist/`, where the bundle's __dirname points.
  const candidates: Candidate[] = [
    { source: 'bundled bin/ beside the extension', path: join(__dirname, '..', 'bin', executableName), explicit: false },
  ];
  const platformPackage = `@vscode/ripgrep-${process.platform}-${process.arch}`;
  try {
    const manifest = require.resolve(`${platformPackage}/package.json`);
    candidates.push({ source: `bundled ${platformPackage}`, path: join(dirname(manifest), 'bin', executableName), explicit: false });
  } catch {
    candidates.push({ source: `bundled ${platformPackage}`, path: `(package ${platformPackage} not installed)`, explicit: false });
  }
  return candidates;
}

function pathCandidates(env: RipgrepSearch['env']): Candidate[] {
  const directories = (env.PATH ?? env.Path ?? '').split(delimiter).filter((entry) => entry.length > 0);
  return directories.map((directory) => ({ source: 'PATH', path: join(directory, executableName), explicit: false }));
}

function runVersion(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(path, ['--version'], { timeout: 10_000, windowsHide: true }, (error, stdout) => {
      if (error) reject(new Error(`${path} --version failed: ${error.message}`, { cause: error }));
      else resolve(stdout);
    });
  });
}

/** Parses the first line of `rg --version`, e.g. `ripgrep 15.0.0 (rev 3a612f88b8)`. */
export function parseRipgrepVersion(output: string): { readonly version: string; readonly major: number } | undefined {
  const match = /^ripgrep\s+(\d+)\.(\d+)\.(\d+)/m.exec(output);
  if (!match) return undefined;
  return { version: `${match[1]}.${match[2]}.${match[3]}`, major: Number(match[1]) };
}

const HOW_TO_FIX =
  `Install ripgrep ${MINIMUM_RIPGREP_MAJOR} or newer (https://github.com/BurntSushi/ripgrep#installation), ` +
  'or point Zuno at one with the ZUNO_RG_PATH environment variable or the `ripgrep.path` setting.';

/** Resolves in the order ZUNO_RG_PATH, config `ripgrep.path`, the bundled binary, then PATH. */
export async function resolveRipgrep(search: RipgrepSearch): Promise<RipgrepBinary> {
  const fromEnv = search.env.ZUNO_RG_PATH;
  const candidates: Candidate[] = [
    ...(fromEnv ? [{ source: 'ZUNO_RG_PATH', path: fromEnv, explicit: true }] : []),
    ...(search.configuredPath ? [{ source: 'config ripgrep.path', path: search.configuredPath, explicit: true }] : []),
    ...bundledCandidates(),
    ...pathCandidates(search.env),
  ];
  const tried: string[] = [];
  for (const candidate of candidates) {
    if (!existsSync(candidate.path)) {
      tried.push(`${candidate.source}: ${candidate.path} (not found)`);
      if (candidate.explicit) break;
      continue;
    }
    let output: string;
    try {
      output = await runVersion(candidate.path);
    } catch (error) {
      tried.push(`${candidate.source}: ${candidate.path} (could not run it: ${error instanceof Error ? error.message : String(error)})`);
      if (candidate.explicit) break;
      continue;
    }
    const parsed = parseRipgrepVersion(output);
    if (!parsed) {
      tried.push(
        `${candidate.source}: ${candidate.path} (\`--version\` printed ${JSON.stringify(output.split('\n')[0] ?? '')}, which is not ripgrep)`,
      );
      if (candidate.explicit) break;
      continue;
    }
    if (parsed.major < MINIMUM_RIPGREP_MAJOR) {
      // An old rg that was found is a decision to report, not to route around.
      throw new StartupError(
        `ripgrep ${parsed.version} at ${candidate.path} (from ${candidate.source}) is too old: Zuno needs ripgrep ${MINIMUM_RIPGREP_MAJOR} or newer. ${HOW_TO_FIX}`,
      );
    }
    return { path: candidate.path, version: parsed.version };
  }
  const pathNote = pathCandidates(search.env).length === 0 ? ['PATH: (empty)'] : [];
  throw new StartupError(`ripgrep was not found. Tried:\n- ${[...tried, ...pathNote].join('\n- ')}\n${HOW_TO_FIX}`);
}
