/**
 * What "Select Model" offers (issue 14 item 12), with no `vscode` import: the server's own model
 * list, or why there is none, told apart so the picker can say it plainly. A server that wants a
 * key gets a Set API Key entry; one that is down is named as down; in every case a name can still
 * be typed.
 */
import { z } from 'zod';
import { isAbortError, serverMessage } from '../../agent/provider';
import { modelListRequest, type ModelProviderName } from './model-setup';

export type ServerProvider = Exclude<ModelProviderName, 'vscode-lm'>;

export type ModelListing =
  | { readonly kind: 'listed'; readonly ids: readonly string[] }
  /** HTTP 401 or 403: the server wants a (different) key before it lists anything. */
  | { readonly kind: 'needs-key'; readonly status: number; readonly said: string }
  /** Nothing answered: connection refused, no such host, or no answer in time. */
  | { readonly kind: 'down'; readonly why: string }
  /** The server answered but gave no list (an older server without the endpoint, or an odd body). */
  | { readonly kind: 'unlisted'; readonly why: string };

const LIST_TIMEOUT_MS = 5000;

const modelListSchema = z.object({ data: z.array(z.unknown()) });
const modelEntrySchema = z.object({ id: z.string().min(1) });

function errorCode(error: unknown): string | undefined {
  for (let current: unknown = error; typeof current === 'object' && current !== null;) {
    if ('code' in current && typeof current.code === 'string') return current.code;
    current = 'cause' in current ? current.cause : undefined;
  }
  return undefined;
}

function whyDown(error: unknown, timeoutMs: number): string {
  if (isAbortError(error)) return `no answer within ${timeoutMs / 1000} s`;
  const code = errorCode(error);
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'its host name could not be resolved';
  if (code === 'ECONNRESET') return 'the connection was reset';
  return error instanceof Error ? error.message : String(error);
}

/** Asks the server for its models (GET /models on both protocols; Anthropic's pages hold 20 unless asked for more). */
export async function listModelsAt(
  fetchFunction: typeof fetch,
  provider: ServerProvider,
  baseUrl: string,
  apiKey: string | undefined,
  timeoutMs = LIST_TIMEOUT_MS,
): Promise<ModelListing> {
  const { url, headers } = modelListRequest(provider, baseUrl, apiKey);
  let response: Response;
  let body: string;
  try {
    response = await fetchFunction(provider === 'anthropic' ? `${url}?limit=1000` : url, {
      headers,
      signal: AbortSignal.timeout(timeoutMs),
    });
    body = await response.text();
  } catch (error) {
    return { kind: 'down', why: whyDown(error, timeoutMs) };
  }
  if (response.status === 401 || response.status === 403) return { kind: 'needs-key', status: response.status, said: serverMessage(body) };
  if (!response.ok) return { kind: 'unlisted', why: `it answered HTTP ${response.status} to GET /models` };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { kind: 'unlisted', why: 'its answer to GET /models is not JSON' };
  }
  const parsed = modelListSchema.safeParse(json);
  if (!parsed.success) return { kind: 'unlisted', why: 'its answer to GET /models has no model list' };
  // Lenient per entry: one odd entry must not hide the models the server does offer.
  const ids = parsed.data.data.flatMap((entry) => {
    const model = modelEntrySchema.safeParse(entry);
    return model.success ? [model.data.id] : [];
  });
  return { kind: 'listed', ids: [...new Set(ids)].sort((left, right) => left.localeCompare(right)) };
}

export type PickAction =
  { readonly kind: 'model'; readonly name: string } | { readonly kind: 'set-key' } | { readonly kind: 'change-server' };

export interface PickItem {
  readonly label: string;
  readonly description?: string;
  readonly detail?: string;
  readonly action: PickAction;
}

export interface ModelPickerView {
  /** What the picker's placeholder says: the server's state in plain words and what can be done. */
  readonly placeholder: string;
  readonly items: readonly PickItem[];
}

/** The picker's entries and words for one listing; `current` is the configured name when it is on this server. */
export function modelPickerView(listing: ModelListing, baseUrl: string, current: string | undefined): ModelPickerView {
  const changeServer: PickItem = {
    label: 'Change server or provider…',
    description: baseUrl,
    action: { kind: 'change-server' },
  };
  const setKey: PickItem = {
    label: 'Set API Key',
    description: `for ${originOf(baseUrl)}`,
    detail: 'Kept in VS Code’s SecretStorage and sent only to this server.',
    action: { kind: 'set-key' },
  };
  const models = (ids: readonly string[]): PickItem[] =>
    ids.map((id) => ({ label: id, ...(id === current ? { description: '(current)' } : {}), action: { kind: 'model', name: id } }));
  switch (listing.kind) {
    case 'listed':
      return {
        placeholder:
          listing.ids.length > 0
            ? `Pick one of the ${listing.ids.length} models ${baseUrl} offers, or type a name`
            : `${baseUrl} lists no models: type a model name`,
        items: [...models(listing.ids), setKey, changeServer],
      };
    case 'needs-key':
      return {
        placeholder: `${baseUrl} refused to list its models without a valid API key (HTTP ${listing.status}): choose Set API Key, or type a model name`,
        items: [{ ...setKey, detail: `The server said: ${listing.said}` }, changeServer],
      };
    case 'down':
      return {
        placeholder: `The server at ${baseUrl} is not reachable (${listing.why}): start it, change the server, or type a model name`,
        items: [changeServer, setKey],
      };
    case 'unlisted':
      return {
        placeholder: `${baseUrl} did not list its models (${listing.why}): type a model name`,
        items: [setKey, changeServer],
      };
  }
}

/** The entry for what the user typed, first in the list, unless it is exactly a listed model. */
export function typedItem(value: string, listing: ModelListing): PickItem | undefined {
  const name = value.trim();
  if (name === '' || (listing.kind === 'listed' && listing.ids.includes(name))) return undefined;
  const note = listing.kind === 'listed' ? 'not in the server’s list' : 'the server could not be asked';
  return { label: `Use “${name}”`, description: note, action: { kind: 'model', name } };
}

function originOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).origin;
  } catch {
    return baseUrl;
  }
}
