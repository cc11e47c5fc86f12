/**
 * How a Zuno proposal reads in the diff editor (issue 14 item 13): the tab title
 * (`cart.js (proposed by Zuno)`) and the parts of its `zuno-proposal:` URI. No `vscode` import,
 * so the naming is unit-tested; src/hosts/vscode/proposals.ts builds the URIs from these.
 */

/** Where a new file's empty left side lives, apart from the proposed paths. */
const ORIGINAL_FOLDER = '.zuno-original';

/** The URI authority that names the call; any character of a model's call id survives it. */
export const proposalAuthority = (callId: string): string => encodeURIComponent(callId);

/** The call named by a proposal URI's authority; undefined when it is not one Zuno made. */
export function callIdOfAuthority(authority: string): string | undefined {
  if (authority === '') return undefined;
  try {
    return decodeURIComponent(authority);
  } catch {
    return undefined;
  }
}

/**
 * The URI path: the file's path relative to the workspace (absolute when outside it), so the
 * breadcrumbs read `src › cart.js`; a new file's empty left side sits in a folder of its own.
 */
export function proposalPath(side: 'proposed' | 'original', displayPath: string): string {
  const slashed = displayPath.split('\\').join('/').replace(/^\/+/, '');
  return side === 'original' ? `/${ORIGINAL_FOLDER}/${slashed}` : `/${slashed}`;
}

/** The diff editor's title: `cart.js (proposed by Zuno)`, with what kind of change it is when it is not an edit. */
export function proposalTitle(kind: 'create' | 'update' | 'delete' | 'move', name: string, target: string): string {
  switch (kind) {
    case 'update':
      return `${name} (proposed by Zuno)`;
    case 'create':
      return `${name} (new file proposed by Zuno)`;
    case 'delete':
      return `${name} (deletion proposed by Zuno)`;
    case 'move':
      return `${name} → ${target} (proposed by Zuno)`;
  }
}
