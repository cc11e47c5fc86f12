/**
 * HTTP for webfetch and web_search in the node host, on node:http(s) so the address each
 * connection really goes to can be checked (issue 8 item 6). webfetch refuses a name that
 * resolves to a link-local or cloud-metadata address before it asks, but a second resolution
 * may answer differently (DNS rebinding: a public address first, 169.254.169.254 next). Here the
 * resolution the socket connects with is the one checked: a metadata address among its answers
 * refuses the connection before it is made, unless the call says a rule named the URL.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIPv6, type LookupFunction } from 'node:net';
import { pipeline, Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { isMetadataAddress } from '../../core/addresses';
import { BlockedError } from '../../core/errors';
import type { HostFetch } from '../../core/host';

/** Statuses whose response has no body, whatever the headers say (as the Fetch standard has it). */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 204, 205, 304]);

/**
 * A `lookup` for net.connect that resolves through `resolve` and refuses a metadata answer. All
 * answers are checked, not only the one tried first: the socket may fall back to any of them.
 */
function checkingLookup(resolve: (hostname: string) => Promise<readonly string[]>, allowMetadata: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const forbidden = allowMetadata ? undefined : addresses.find(isMetadataAddress);
        if (forbidden !== undefined) {
          const error = new BlockedError(
            `The connection to ${hostname} was refused: it now resolves to ${forbidden}, a link-local or cloud-metadata address, although it did not ` +
              'when the URL was checked (DNS rebinding). Nothing was requested from it. Fetch another source, or ask the user for a webfetch ' +
              'rule whose match names this URL if the address is really meant.',
          );
          callback(error, '', 4);
          return;
        }
        const usable = addresses
          .map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }))
          .filter((entry) => options.family === undefined || options.family === 0 || entry.family === options.family);
        const first = usable[0];
        if (first === undefined)
          callback(Object.assign(new Error(`${hostname} has no address to connect to`), { code: 'ENOTFOUND' }), '', 4);
        else if (options.all) callback(null, usable);
        else callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), '', 4),
    );
  };
}

/** The body as the server sent it, decoded as fetch would (gzip, deflate, br). */
function decodedBody(response: IncomingMessage): Readable {
  const encoding = (response.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!decoder) return response;
  // A pipeline: cancelling the body destroys the socket too, and a corrupt stream errors the body.
  return pipeline(response, decoder, () => undefined);
}

function responseHeaders(response: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}

/**
 * A fetch for GET-like requests (string bodies at most) that never follows a redirect (webfetch
 * follows them itself, checking every hop) and checks the connected address as above.
 */
export function createCheckedFetch(resolve: (hostname: string) => Promise<readonly string[]>): HostFetch {
  return (input, init = {}) =>
    new Promise<Response>((settle, reject) => {
      const url = new URL(String(input));
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        reject(new TypeError(`Only http and https URLs can be fetched, not ${url.protocol}`));
        return;
      }
      if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') {
        reject(new TypeError('This host sends only text request bodies.'));
        return;
      }
      const method = (init.method ?? 'GET').toUpperCase();
      // forEach rather than iteration: the Headers type must also hold where the DOM lib is loaded (the webview's modules in tests).
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, key) => {
        headers[key] = value;
      });
      const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
        url,
        {
          method,
          headers: { 'accept-encoding': 'gzip, deflate, br', ...headers },
          lookup: checkingLookup(resolve, init.allowMetadataAddresses === true),
          // No pooled sockets: one kept alive from a call a rule allowed to reach a metadata
          // address would carry a later call there without a lookup, hence without a check.
          agent: false,
        },
        (response) => {
          // From now on a cancel ends the body, with the signal's reason as fetch does.
          stage = response;
          response.once('close', () => signal?.removeEventListener('abort', abort));
          const status = response.statusCode ?? 0;
          if (status < 200 || status > 599) {
            response.destroy();
            reject(new Error(`The server answered with HTTP status ${status}, which is not a valid final status`));
            return;
          }
          const empty = method === 'HEAD' || NULL_BODY_STATUSES.has(status);
          if (empty) response.on('error', () => undefined).resume();
          const body = empty ? null : (Readable.toWeb(decodedBody(response)) as ConstructorParameters<typeof Response>[0]);
          try {
            settle(new Response(body, { status, statusText: response.statusMessage ?? '', headers: responseHeaders(response) }));
          } catch (error) {
            // A status text or header the Fetch API refuses: a bad response, never a crash of the host.
            response.destroy();
            reject(error);
          }
        },
      );
      request.once('error', reject);
      const { signal } = init;
      // Not http.request's own `signal`: it would end a body with a bare reset, not the reason.
      let stage: { destroy(error: unknown): void } = request;
      const abort = (): void => stage.destroy(signal?.reason);
      if (signal?.aborted) abort();
      else signal?.addEventListener('abort', abort, { once: true });
      request.end(init.body ?? undefined);
    });
}
