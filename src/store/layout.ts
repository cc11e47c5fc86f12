/**
 * The state dir's layout since issue 9: no file holds the whole history.
 *
 *   store.json              {"layout": 2}: which layout this is (a newer Zuno's layout is refused)
 *   sessions/<dir>/         one session: its SessionDb (snapshot.sqlite, journal.jsonl, lock)
 *                           and session.json, the session's row for listings
 *   memories.jsonl          the workspace's memories, as an append-only log of changes
 *   lock                    held only while a pre-issue-9 store is split into this layout
 *
 * session.json is the index: listing sessions reads these small files, never a session's
 * database. It is written after the session's database (which holds the same row and is the
 * truth), so a crash between the two leaves a database without session.json, which listing
 * recognises and repairs from the database.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StoreCorruptError, StoreUsageError } from './errors';
import type { SessionRow } from './rows';
import { SESSION_STATUSES } from './schema';

export const LAYOUT_FILE = 'store.json';
export const LAYOUT_VERSION = 2;
export const SESSIONS_DIR = 'sessions';
export const SESSION_FILE = 'session.json';
export const MEMORIES_FILE = 'memories.jsonl';

/** Ids that are safe folder names on every platform keep their name; others get a stable hash. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** The folder of a session, derived from its id alone (no lookup). */
export function sessionDir(stateDir: string, sessionId: string): string {
  const name =
    SAFE_ID.test(sessionId) && !sessionId.endsWith('.')
      ? sessionId
      : `id-${createHash('sha256').update(sessionId).digest('hex').slice(0, 32)}`;
  return join(stateDir, SESSIONS_DIR, name);
}

/** Reads store.json: undefined when absent; refused when written by a newer Zuno or unreadable. */
export function readLayout(stateDir: string): number | undefined {
  const path = join(stateDir, LAYOUT_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let layout: unknown;
  try {
    layout = (JSON.parse(text) as { layout?: unknown }).layout;
  } catch {
    layout = undefined;
  }
  if (typeof layout !== 'number' || !Number.isSafeInteger(layout)) {
    throw new StoreCorruptError(
      `${path} is not a Zuno layout file (expected {"layout": ${LAYOUT_VERSION}}). Restore it, or move the state dir ${stateDir} aside to start afresh.`,
    );
  }
  if (layout > LAYOUT_VERSION) {
    throw new StoreUsageError(
      `The state dir ${stateDir} was written by a newer Zuno (layout ${layout} in ${path}; this one knows up to ${LAYOUT_VERSION}). Update Zuno, or use another --state-dir.`,
    );
  }
  return layout;
}

/** Writes a file whole: aside, then renamed over the old one (a reader sees old or new, never half); no draft stays behind. */
export function writeFileAtomically(path: string, data: string | Uint8Array): void {
  const draft = `${path}.${randomUUID()}.tmp`;
  try {
    writeFileSync(draft, data);
    renameSync(draft, path);
  } catch (error) {
    if (existsSync(draft)) unlinkSync(draft);
    throw error;
  }
}

export function writeLayout(stateDir: string): void {
  writeFileAtomically(join(stateDir, LAYOUT_FILE), `${JSON.stringify({ layout: LAYOUT_VERSION })}\n`);
}

/** A session as listed: its row, and where its files are. */
export interface SessionEntry {
  readonly row: SessionRow;
  readonly dir: string;
}

/** What listing found besides sessions: folders it could not read, each named with what to do. */
export interface SessionScan {
  readonly sessions: SessionEntry[];
  /** Folders without a readable session.json; the caller repairs them from their database. */
  readonly unindexed: string[];
}

function parseSessionFile(text: string): SessionRow | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `it is not valid JSON (${(error as Error).message})`;
  }
  const row = value as Partial<Record<keyof SessionRow, unknown>>;
  if (
    typeof row.id !== 'string' ||
    typeof row.workspace !== 'string' ||
    typeof row.createdAt !== 'number' ||
    typeof row.updatedAt !== 'number'
  ) {
    return 'it lacks the id, workspace, createdAt or updatedAt of a session';
  }
  if (!SESSION_STATUSES.some((status) => status === row.status)) return `its status ${JSON.stringify(row.status)} is not a session status`;
  return {
    id: row.id,
    workspace: row.workspace,
    ...(typeof row.title === 'string' ? { title: row.title } : {}),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    status: row.status as SessionRow['status'],
  };
}

/** Reads one session.json: the row, undefined when the file is absent, or why it is unreadable. */
export function readSessionFile(dir: string): SessionRow | undefined | string {
  const path = join(dir, SESSION_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return `it cannot be read (${(error as Error).message})`;
  }
  return parseSessionFile(text);
}

export function writeSessionFile(dir: string, row: SessionRow): void {
  writeFileAtomically(join(dir, SESSION_FILE), `${JSON.stringify(row)}\n`);
}

/** Every session folder's session.json. O(sessions) small reads; no database is opened. */
export function scanSessions(stateDir: string): SessionScan {
  const root = join(stateDir, SESSIONS_DIR);
  const result: SessionScan = { sessions: [], unindexed: [] };
  if (!existsSync(root)) return result;
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    // Deletions in progress and foreign files are not sessions.
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const dir = join(root, entry.name);
    const row = readSessionFile(dir);
    if (row === undefined || typeof row === 'string') result.unindexed.push(dir);
    else result.sessions.push({ row, dir });
  }
  return result;
}
