/**
 * web_search: runs a batch of queries against the configured search provider, results grouped
 * per query (SPEC S1; ReadOnly and Safe, R1). The provider is SearXNG's JSON API, which users
 * can host themselves. Without a provider the tool is not offered, and a call is blocked
 * `unavailable` with the message below, which says how to configure one.
 */
import { z } from 'zod';
import { ToolError, TransientError } from '../core/errors';
import { defineTool, type ToolContext } from '../core/tool';

export const WEB_SEARCH_SETUP_HINT =
  'web_search has no provider configured. Set "web_search": {"provider": "searxng", "url": "http://your-searxng:8080"} ' +
  'in .zuno/config.json (or the zuno.webSearch settings in VS Code); the SearXNG instance must have the JSON format enabled.';

const searxngResponseSchema = z.object({
  results: z
    .array(
      z.object({
        title: z.string().optional().default(''),
        url: z.string(),
        content: z.string().optional().default(''),
      }),
    )
    .default([]),
});

interface SearchHit {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
}

async function searchSearxng(context: ToolContext, baseUrl: string, query: string): Promise<SearchHit[]> {
  const url = new URL('search', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  url.searchParams.set('q', query);
  url.searchParams.set('format', 'json');
  const timeout = AbortSignal.timeout(context.config.webfetch.timeout_ms);
  let response: Response;
  try {
    response = await context.host.fetch(url, {
      signal: AbortSignal.any([context.signal, timeout]),
      headers: { accept: 'application/json' },
    });
  } catch (error) {
    if (context.signal.aborted) throw error;
    throw new TransientError(`The search provider at ${baseUrl} did not answer: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (response.status >= 500 || response.status === 429) {
    throw new TransientError(`The search provider at ${baseUrl} answered HTTP ${response.status}.`);
  }
  if (!response.ok) {
    throw new ToolError(
      `The search provider at ${baseUrl} refused the query with HTTP ${response.status}. ` +
        'For SearXNG, check that "json" is listed under search.formats in its settings.yml.',
    );
  }
  const parsed = searxngResponseSchema.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) throw new ToolError(`The search provider at ${baseUrl} did not return SearXNG JSON results.`);
  return parsed.data.results
    .slice(0, context.config.web_search.max_results)
    .map((hit) => ({ title: hit.title.trim(), url: hit.url, snippet: hit.content.replace(/\s+/g, ' ').trim() }));
}

const parameters = z.strictObject({
  queries: z.array(z.string().trim().min(1)).min(1).max(10).describe('One to ten search queries, run together as one batch.'),
});

export const webSearchTool = defineTool({
  name: 'web_search',
  description:
    'Search the web. Pass several related queries at once ({"queries": ["a", "b"]}); they run as one batch and the ' +
    'results come back grouped per query, each with title, URL and snippet. Use webfetch to read a result in full.',
  parameters,
  declarations: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' },
  subjects: async (args) => args.queries.map((query) => ({ kind: 'name' as const, value: query })),
  unavailableReason: (env) => (env.config.web_search.provider && env.config.web_search.url ? undefined : WEB_SEARCH_SETUP_HINT),
  async run(args, context) {
    const baseUrl = context.config.web_search.url;
    if (!baseUrl) throw new ToolError(WEB_SEARCH_SETUP_HINT);
    // Queries of one batch run together; one transient failure fails the batch so the
    // scheduler's Safe retry repeats it whole.
    const results = await Promise.all(args.queries.map((query) => searchSearxng(context, baseUrl, query)));
    const sections = args.queries.map((query, index) => {
      const hits = results[index] ?? [];
      const body =
        hits.length === 0
          ? '(no results)'
          : hits
              .map((hit, rank) => `${rank + 1}. ${hit.title || hit.url}\n   ${hit.url}${hit.snippet ? `\n   ${hit.snippet}` : ''}`)
              .join('\n');
      return `## ${query}\n${body}`;
    });
    return {
      output: sections.join('\n\n'),
      metadata: { counts: results.map((hits) => hits.length) },
    };
  },
});
