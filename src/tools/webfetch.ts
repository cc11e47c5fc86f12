/**
 * webfetch: fetch one http(s) URL and return it as readable text. Size and time are bounded; the
 * body is read as a stream and reading stops at the cap. Failures that may pass on their own
 * (5xx, timeouts, dropped connections) are TransientErrors, which the scheduler retries for this
 * Safe tool (SPEC R1, R2).
 *
 * Redirects are followed here, not by fetch, so the permission rules see every hop (issue 8 item
 * 6): a deny rule cannot be stepped around by a URL that redirects to the denied one. Link-local
 * and cloud-metadata addresses are refused unless a rule names the URL (core/addresses.ts).
 */
import { convert } from 'html-to-text';
import { z } from 'zod';
import { isIpLiteral, isMetadataAddress, isMetadataHost } from '../core/addresses';
import type { Declarations } from '../core/declarations';
import { BlockedError, ToolError, TransientError } from '../core/errors';
import { defineTool, type ToolContext } from '../core/tool';
import { capText } from './capped';

const DECLARATIONS: Declarations = { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' };

/** Redirects followed before giving up; a real page needs far fewer, a loop never ends. */
const MAX_REDIRECTS = 10;
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

const DESCRIPTION = `Fetch a web page or other http(s) resource and return its content as text. Use it to read documentation, an API response or a file online whose URL you know; to find pages, use web_search.

HTML is converted to readable text: headings, lists and tables kept, scripts and styles dropped, links shown as "text [url]". JSON and other text come back as they are. Other content types (images, PDFs, archives) are not shown: you get the type and size. The response is cut at the configured size limit (webfetch.max_bytes), and the note says so; the request gives up after webfetch.timeout_ms. The result starts with the final URL (after redirects), the HTTP status and the content type.

Redirects are followed (at most ${MAX_REDIRECTS}), and the permission rules are checked for every URL on the way: a redirect to a URL the rules refuse or want approved ends the call as blocked, naming that URL. Link-local and cloud-metadata addresses (169.254.0.0/16, fe80::/10, fd00:ec2::254, 100.100.100.200, metadata.google.internal) are refused unless a rule allows that URL by name.`;

const parameters = z.strictObject({
  url: z.string().min(1).describe('An absolute http:// or https:// URL; other schemes are refused'),
});

/** Connection failures worth another attempt; a refused connection or an unknown host is not. */
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ToolError(`${JSON.stringify(raw)} is not an absolute URL. Give a full URL such as https://example.com/page.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError(`webfetch fetches only http and https URLs, not ${url.protocol}. To read a local file, use read.`);
  }
  return url;
}

/** The `code` of a fetch failure, which undici keeps in the error's cause chain. */
function failureCode(error: unknown): string | undefined {
  for (let current: unknown = error; typeof current === 'object' && current !== null; current = (current as { cause?: unknown }).cause) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

function failureMessage(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  return cause ?? (error instanceof Error ? error.message : String(error));
}

/** Turns a failed request into the error the scheduler and the model should see. */
function classify(error: unknown, url: URL, timeoutMs: number, context: ToolContext): Error {
  context.signal.throwIfAborted();
  if (error instanceof ToolError || error instanceof TransientError || error instanceof BlockedError) return error;
  if (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return new TransientError(`Fetching ${url.href} took longer than ${timeoutMs} ms and was stopped.`);
  }
  const code = failureCode(error);
  if (code !== undefined && TRANSIENT_CODES.has(code))
    return new TransientError(`The connection to ${url.host} failed (${code}) while fetching ${url.href}.`);
  return new ToolError(
    `Could not fetch ${url.href}: ${failureMessage(error)}${code ? ` (${code})` : ''}. Check the URL; the host may be wrong or unreachable from here.`,
  );
}

function statusError(status: number, statusText: string, url: URL): Error {
  const what = `${url.href} answered HTTP ${status}${statusText ? ` ${statusText}` : ''}`;
  // 408 and 429 say "try later" in so many words; the other 4xx will not change on a retry.
  if (status >= 500 || status === 408 || status === 429) return new TransientError(`${what}.`);
  const advice =
    status === 404 || status === 410
      ? 'The page does not exist: check the URL, or search for the current location of the page.'
      : status === 401 || status === 403
        ? 'The page needs credentials or refuses automated access; webfetch cannot log in. Find another source.'
        : 'The request was refused as sent; check the URL and its query string.';
  return new ToolError(`${what}. ${advice}`);
}

interface Body {
  readonly bytes: Uint8Array;
  /** Reading stopped at the size cap. */
  readonly cut: boolean;
}

/** Reads at most `maxBytes` of the body, then cancels the rest of the download. */
async function readCapped(response: Response, maxBytes: number): Promise<Body> {
  if (!response.body) return { bytes: new Uint8Array(0), cut: false };
  // The global Response types its body's chunks as any; fetch bodies are bytes.
  const reader = (response.body as globalThis.ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      cut = true;
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  await reader.cancel().catch(() => undefined);
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { bytes, cut };
}

function charsetOf(contentType: string): string {
  const label = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return 'utf-8';
  }
}

function htmlToReadableText(html: string, url: URL): string {
  return convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { pathRewrite: (href: string) => resolveLink(href, url), hideLinkHrefIfSameAsText: true } },
      { selector: 'img', format: 'skip' },
      { selector: 'script', format: 'skip' },
      { selector: 'style', format: 'skip' },
      { selector: 'noscript', format: 'skip' },
      { selector: 'svg', format: 'skip' },
    ],
  });
}

function resolveLink(href: string, base: URL): string {
  try {
    return new URL(href, base).href;
  } catch {
    return href;
  }
}

/**
 * Ends the call when the URL's host is, or resolves to, a link-local or metadata address, unless
 * a rule naming this URL allows it. Checked before each request, so a redirect cannot reach one.
 * Resolves to whether such a rule allows it: the host checks the address it really connects to
 * again, and needs to know (a name may answer differently the second time).
 */
async function refuseMetadata(url: URL, what: string, context: ToolContext): Promise<boolean> {
  const { hostname } = url;
  let why: string | undefined;
  if (isMetadataHost(hostname)) why = `${hostname} is a link-local or cloud-metadata address`;
  else if (!isIpLiteral(hostname)) {
    // A name that does not resolve is left to fetch, which reports it with the usual advice.
    const addresses = await context.host.resolveAddresses(hostname).catch((): readonly string[] => []);
    const metadata = addresses.find(isMetadataAddress);
    if (metadata !== undefined) why = `${hostname} resolves to ${metadata}, a link-local or cloud-metadata address`;
  }
  const authorization = await context.authorize({ kind: 'url', value: url.href });
  const allowedByName = authorization.action === 'allow' && authorization.byNamingRule;
  if (why === undefined || allowedByName) return allowedByName;
  throw new BlockedError(
    `${what} ${url.href} was not fetched: ${why}, where a cloud machine serves its credentials. webfetch refuses such addresses ` +
      'unless a permission rule for webfetch whose match names this URL allows it; ask the user to add one if the fetch is really needed.',
  );
}

/** The target of a redirect, resolved against the URL that sent it; only http(s) is followed. */
function redirectTarget(location: string, from: URL): URL {
  let target: URL;
  try {
    target = new URL(location, from);
  } catch {
    throw new ToolError(`${from.href} redirected to ${JSON.stringify(location)}, which is not a valid URL; the redirect was not followed.`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new ToolError(
      `${from.href} redirected to ${target.href}; webfetch follows redirects only to http and https URLs, so it stopped there.`,
    );
  }
  return target;
}

/** A redirect's target is a new subject: the rules decide it before anything is requested from it. */
async function authorizeHop(target: URL, hop: number, from: URL, context: ToolContext): Promise<void> {
  const authorization = await context.authorize({ kind: 'url', value: target.href });
  const where = `redirect ${hop} (from ${from.href}) to ${target.href}`;
  if (authorization.action === 'deny') {
    throw new BlockedError(`${where} is refused: ${authorization.reason}. Nothing was fetched from ${target.href}.`);
  }
  if (authorization.action === 'ask') {
    throw new BlockedError(
      `${where} needs the user's approval (${authorization.reason}), which cannot be asked in the middle of a call, so nothing was fetched from it. ` +
        `To have the user asked, call webfetch with ${target.href} directly.`,
    );
  }
}

interface Fetched {
  readonly response: Response;
  /** The URL that answered, after redirects. */
  readonly url: URL;
  /** Every URL redirected to, in order. */
  readonly redirects: readonly string[];
}

/** Fetches `url`, following redirects one hop at a time, each hop checked before it is requested. */
async function fetchFollowing(
  start: URL,
  allowMetadata: boolean,
  signal: AbortSignal,
  context: ToolContext,
  current: { url: URL },
): Promise<Fetched> {
  const redirects: string[] = [];
  let allowMetadataAddresses = allowMetadata;
  for (;;) {
    const url = current.url;
    const response = await context.host.fetch(url.href, {
      signal,
      allowMetadataAddresses,
      redirect: 'manual',
      headers: {
        'user-agent': 'Zuno-webfetch/0.1',
        accept: 'text/html, application/xhtml+xml, application/json, text/plain;q=0.9, */*;q=0.5',
      },
    });
    const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get('location') : null;
    if (location === null) return { response, url, redirects };
    await response.body?.cancel().catch(() => undefined);
    if (redirects.length >= MAX_REDIRECTS) {
      throw new ToolError(
        `${start.href} redirected more than ${MAX_REDIRECTS} times (last to ${url.href}); webfetch stopped. The redirects may loop; fetch the final page's URL directly if you know it.`,
      );
    }
    const target = redirectTarget(location, url);
    await authorizeHop(target, redirects.length + 1, url, context);
    allowMetadataAddresses = await refuseMetadata(target, `Redirect ${redirects.length + 1} to`, context);
    redirects.push(target.href);
    current.url = target;
  }
}

const isHtml = (type: string): boolean => /^(text\/html|application\/xhtml\+xml)\b/i.test(type);
const isText = (type: string): boolean =>
  type === '' ||
  /^text\//i.test(type) ||
  /^application\/([\w.-]+\+)?(json|xml|javascript|ecmascript|x-yaml|yaml|toml|x-sh|sql|graphql)\b/i.test(type);

export const webfetchTool = defineTool({
  name: 'webfetch',
  description: DESCRIPTION,
  parameters,
  declarations: DECLARATIONS,
  subjects: async (args) => {
    // An unparsable URL is reported when the call runs; its raw text is still the subject.
    try {
      return [{ kind: 'url', value: new URL(args.url).href }];
    } catch {
      return [{ kind: 'url', value: args.url }];
    }
  },
  async run(args, context) {
    const url = parseUrl(args.url);
    const allowMetadata = await refuseMetadata(url, 'The URL', context);
    const { timeout_ms: timeoutMs, max_bytes: maxBytes } = context.config.webfetch;
    const signal = AbortSignal.any([context.signal, AbortSignal.timeout(timeoutMs)]);
    // The URL being fetched, for error messages: after a redirect it is no longer the one asked for.
    const current = { url };
    let fetched: Fetched;
    let body: Body;
    try {
      fetched = await fetchFollowing(url, allowMetadata, signal, context, current);
      const { response } = fetched;
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw statusError(response.status, response.statusText, current.url);
      }
      body = await readCapped(response, maxBytes);
    } catch (error) {
      throw classify(error, current.url, timeoutMs, context);
    }
    const { response, redirects } = fetched;
    const finalUrl = fetched.url;
    const contentType = response.headers.get('content-type') ?? '';
    const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
    const declaredLength = Number(response.headers.get('content-length') ?? NaN);
    const heading = `URL: ${finalUrl.href}\nStatus: ${response.status}\nContent-Type: ${contentType || '(none)'}\n`;
    if (!isText(mediaType) && !isHtml(mediaType)) {
      const size = Number.isFinite(declaredLength)
        ? `${declaredLength} bytes`
        : body.cut
          ? `more than ${maxBytes} bytes`
          : `${body.bytes.length} bytes`;
      return {
        output: `${heading}\nThe response is ${mediaType} (${size}), which webfetch does not turn into text.`,
        metadata: { status: response.status, contentType, bytes: body.bytes.length, redirects },
      };
    }
    const decoded = new TextDecoder(charsetOf(contentType)).decode(body.bytes);
    const text = isHtml(mediaType) ? htmlToReadableText(decoded, finalUrl) : decoded;
    const cutNote = body.cut
      ? `\n\n[The response was cut at the size limit of ${maxBytes} bytes (webfetch.max_bytes); the rest was not downloaded.]`
      : '';
    const capped = await capText(context, `${heading}\n${text}${cutNote}`);
    return {
      output: capped.output,
      truncated: capped.truncated || body.cut,
      metadata: { status: response.status, contentType, bytes: body.bytes.length, cut: body.cut, redirects },
    };
  },
});
