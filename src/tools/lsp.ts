/**
 * lsp: ask the editor's language servers (SPEC S3: a registered slot, not on the default surface;
 * issue 3: ReadOnly and Safe, capped by `concurrency.lsp_requests`). It needs a host with
 * language features, which only the editor has, so it is unavailable in the CLI.
 */
import { relative } from 'node:path';
import { z } from 'zod';
import type { Declarations } from '../core/declarations';
import { ToolError } from '../core/errors';
import type { LanguageFeatures, SourceDiagnostic, SourceRange, SourceSymbol } from '../core/host';
import { defineTool, type ToolContext } from '../core/tool';
import { checkedPath, isWithin, pathSubject } from './paths';

const DECLARATIONS: Declarations = { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' };
/** Locations listed with their source line; the rest are counted. */
const MAX_LOCATIONS = 100;
const MAX_DIAGNOSTICS = 200;

const DESCRIPTION = `Ask the editor's language servers about code: where a symbol is defined, where it is used, its type and documentation, a file's outline, or the current errors and warnings.

Returns locations as path:line:character with the source line, hover text, an indented outline, or diagnostics as path:line:character severity message. Only as good as the language support installed in the editor; diagnostics cover the files the language servers have analysed.`;

const parameters = z
  .strictObject({
    action: z
      .enum(['definition', 'references', 'hover', 'symbols', 'diagnostics'])
      .describe(
        "definition, references, hover (need line and character); symbols (a file's outline); diagnostics (a file, or every file below a folder)",
      ),
    path: z.string().min(1).describe('File (or folder, for diagnostics), relative to the workspace root'),
    line: z.number().int().min(1).optional().describe('1-based line of the symbol, as read numbers lines'),
    character: z.number().int().min(1).optional().describe('1-based column of the symbol'),
  })
  .refine(
    (args) => !['definition', 'references', 'hover'].includes(args.action) || (args.line !== undefined && args.character !== undefined),
    {
      message: 'definition, references and hover need line and character (both counting from 1)',
    },
  );

/** A counting semaphore whose size follows the config as it is when each request starts. */
class RequestLimit {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  async run<T>(limit: number, work: () => Promise<T>): Promise<T> {
    while (this.active >= limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await work();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

const limits = new WeakMap<LanguageFeatures, RequestLimit>();

/** Resolves with the work, or rejects when the call is cancelled: editor requests take no signal. */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

interface Display {
  readonly path: (absolute: string) => string;
  readonly lineText: (absolute: string, line: number) => Promise<string | undefined>;
}

async function display(context: ToolContext): Promise<Display> {
  const root = await context.host.fs.realpath(context.workspaceRoot);
  const files = new Map<string, Promise<string[] | undefined>>();
  return {
    path: (absolute) => (isWithin(root, absolute) ? relative(root, absolute) || '.' : absolute),
    async lineText(absolute, line) {
      let lines = files.get(absolute);
      if (!lines) {
        lines = context.host.fs.readFile(absolute).then(
          (bytes) => new TextDecoder().decode(bytes).split(/\r?\n/),
          () => undefined,
        );
        files.set(absolute, lines);
      }
      return (await lines)?.[line - 1]?.trim();
    },
  };
}

async function formatLocations(what: string, ranges: readonly SourceRange[], show: Display): Promise<string> {
  if (ranges.length === 0)
    return `No ${what} found. The language server may not know this symbol: check the position (line and character count from 1) with read.`;
  const lines = await Promise.all(
    ranges.slice(0, MAX_LOCATIONS).map(async (range) => {
      const text = await show.lineText(range.path, range.line);
      return `${show.path(range.path)}:${range.line}:${range.character}${text ? `  ${text}` : ''}`;
    }),
  );
  const more = ranges.length > MAX_LOCATIONS ? `\n[${ranges.length - MAX_LOCATIONS} more not shown]` : '';
  return `${ranges.length} ${what}:\n${lines.join('\n')}${more}`;
}

function formatSymbols(symbols: readonly SourceSymbol[], where: string): string {
  if (symbols.length === 0) return `No symbols in ${where}: the file is empty or no language server covers its language.`;
  const lines = symbols.map(
    (symbol) =>
      `${'  '.repeat(symbol.depth)}${symbol.kind} ${symbol.name}${symbol.detail ? ` ${symbol.detail}` : ''}  (lines ${symbol.line}-${symbol.endLine})`,
  );
  return `Outline of ${where}:\n${lines.join('\n')}`;
}

function formatDiagnostics(diagnostics: readonly SourceDiagnostic[], where: string, show: Display): string {
  if (diagnostics.length === 0)
    return `No diagnostics for ${where}. Only files a language server has analysed (usually the open ones) have diagnostics.`;
  const order = { error: 0, warning: 1, information: 2, hint: 3 } as const;
  const sorted = [...diagnostics].sort(
    (left, right) => order[left.severity] - order[right.severity] || left.path.localeCompare(right.path) || left.line - right.line,
  );
  const lines = sorted.slice(0, MAX_DIAGNOSTICS).map((item) => {
    const origin = item.source ? ` [${item.source}${item.code ? ` ${item.code}` : ''}]` : '';
    return `${show.path(item.path)}:${item.line}:${item.character} ${item.severity} ${item.message.split('\n').join(' ')}${origin}`;
  });
  const counts = (['error', 'warning', 'information', 'hint'] as const)
    .map((severity) => `${sorted.filter((item) => item.severity === severity).length} ${severity}`)
    .join(', ');
  const more = sorted.length > MAX_DIAGNOSTICS ? `\n[${sorted.length - MAX_DIAGNOSTICS} more not shown]` : '';
  return `Diagnostics for ${where} (${counts}):\n${lines.join('\n')}${more}`;
}

export const lspTool = defineTool({
  name: 'lsp',
  description: DESCRIPTION,
  parameters,
  declarations: DECLARATIONS,
  subjects: async (args, env) => [await pathSubject(env, args.path)],
  unavailableReason: (env) =>
    env.host.languageFeatures ? undefined : 'it needs the language servers of an editor; this host (the CLI) has none',
  async run(args, context) {
    const features = context.host.languageFeatures;
    if (!features) throw new ToolError('lsp needs the editor: language features are not available in this host.');
    const resolved = checkedPath(context, args.path);
    const stat = await context.host.fs.stat(resolved.real);
    if (!stat) throw new ToolError(`${args.path} does not exist. Use glob to find the file.`);
    if (stat.type === 'directory' && args.action !== 'diagnostics')
      throw new ToolError(`${args.path} is a folder; ${args.action} needs a file.`);
    let limit = limits.get(features);
    if (!limit) limits.set(features, (limit = new RequestLimit()));
    const show = await display(context);
    const { signal } = context;
    const position = (): [number, number] => [args.line ?? 1, args.character ?? 1];
    // Locations in files that permission rules hide are left out, counted but never named (issue 8 §5).
    let hidden = 0;
    const visible = <T extends { readonly path: string }>(items: readonly T[]): T[] => {
      const kept = items.filter((item) => !context.visibility.isHidden(item.path));
      hidden += items.length - kept.length;
      return kept;
    };
    const output = await limit.run(context.config.concurrency.lsp_requests, async () => {
      switch (args.action) {
        case 'definition':
          return formatLocations(
            'definitions',
            visible(await abortable(features.definition(resolved.real, ...position(), signal), signal)),
            show,
          );
        case 'references':
          return formatLocations(
            'references',
            visible(await abortable(features.references(resolved.real, ...position(), signal), signal)),
            show,
          );
        case 'hover': {
          const texts = await abortable(features.hover(resolved.real, ...position(), signal), signal);
          return texts.length > 0
            ? texts.join('\n\n---\n\n')
            : `No hover information at ${resolved.display}:${args.line}:${args.character}.`;
        }
        case 'symbols':
          return formatSymbols(await abortable(features.symbols(resolved.real, signal), signal), resolved.display);
        case 'diagnostics':
          return formatDiagnostics(visible(await abortable(features.diagnostics(resolved.real, signal), signal)), resolved.display, show);
      }
    });
    return {
      output: hidden > 0 ? `${output}\n[${hidden} more in files hidden by permission rules, not shown.]` : output,
      ...(hidden > 0 ? { metadata: { hidden } } : {}),
    };
  },
});
