/**
 * Session search (issue 9, SPEC R1 "session search"): a full-text index over the workspace's
 * past sessions, in `search.sqlite` beside the session folders.
 *
 * The index is derived data, kept off the write path: it is brought up to date when a search
 * runs, from the sessions whose files changed since (their size and mtime are recorded), so a
 * write never pays for it and a search pays only for what is new. It is SQLite FTS4 (the sql.js
 * build has no FTS5) without a copy of the text ("contentless"): the text stays in the sessions,
 * and the few excerpts shown are cut from there. A damaged index is rebuilt, never trusted;
 * two processes that search at once each write a complete index, and the last rename wins.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import type { SessionEntry } from './layout';
import type { SessionDb } from './session-db';
import { JOURNAL_FILE, SNAPSHOT_FILE } from './session-db';
import { bindable, tuneInMemory } from './session-engine';

export const SEARCH_FILE = 'search.sqlite';
/** The body is bound as UTF-8 bytes (see bindable): outputs are long. */
const INSERT_TEXT = 'INSERT INTO fts (docid, body) VALUES (?, CAST(? AS TEXT))';
/** Bumped when what is indexed changes: an index of another version is rebuilt. */
const INDEX_VERSION = 1;

export type SearchHitKind = 'prompt' | 'answer' | 'output';

export interface SearchHit {
  readonly sessionId: string;
  readonly title?: string;
  /** When the session was last updated. */
  readonly updatedAt: number;
  /** How many times the words occur in the session's matching prompts, answers and outputs. */
  readonly score: number;
  readonly excerpts: readonly { readonly kind: SearchHitKind; readonly ref: string; readonly text: string }[];
}

export interface SearchOptions {
  readonly limit: number;
  /** Leave this session out (the one that is searching). */
  readonly excludeSessionId?: string;
}

/** The words of a query as FTS4 phrases: letters and digits only, so no query syntax gets through. */
export function queryTerms(query: string): string[] {
  return [...new Set(query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])].slice(0, 16);
}

/** What the files of a session look like now; a different key means the session changed. */
export function filesKey(dir: string): string {
  return [SNAPSHOT_FILE, JOURNAL_FILE]
    .map((name) => {
      try {
        const stat = statSync(join(dir, name));
        return `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
      } catch {
        return '-';
      }
    })
    .join('|');
}

const SCHEMA = [
  `CREATE VIRTUAL TABLE fts USING fts4(content="", body, tokenize=unicode61)`,
  `CREATE TABLE docs (rowid INTEGER PRIMARY KEY, session_id TEXT NOT NULL, kind TEXT NOT NULL, ref TEXT NOT NULL, UNIQUE (session_id, kind, ref))`,
  `CREATE TABLE sources (session_id TEXT PRIMARY KEY, files_key TEXT NOT NULL, message_seq INTEGER NOT NULL)`,
  `PRAGMA user_version = ${INDEX_VERSION}`,
];

/** A window of `text` around the first occurrence of one of `terms`, on one line. */
export function excerptOf(text: string, terms: readonly string[], width = 240): string {
  const lower = text.toLowerCase();
  const found = terms.map((term) => lower.indexOf(term)).filter((index) => index >= 0);
  const at = found.length > 0 ? Math.min(...found) : 0;
  const start = Math.max(0, at - Math.floor(width / 3));
  const window = text
    .slice(start, start + width)
    .replace(/\s+/g, ' ')
    .trim();
  return `${start > 0 ? '…' : ''}${window}${start + width < text.length ? '…' : ''}`;
}

/** The text one document of a session holds, read from the session itself. */
function documentText(db: SessionDb, sessionId: string, kind: SearchHitKind, ref: string): string | undefined {
  if (kind === 'output') {
    const call = db.getCall(sessionId, ref);
    return call ? `${call.tool} ${call.argumentsJson}\n${call.output ?? ''}` : undefined;
  }
  const message = db.messageAt(sessionId, Number(ref));
  return message && (message.role === 'user' || message.role === 'assistant') ? message.content : undefined;
}

export class SearchIndex {
  constructor(
    private readonly SQL: SqlJsStatic,
    private readonly stateDir: string,
    private readonly readOnly: boolean,
    private readonly warn: (message: string) => void,
  ) {}

  private get path(): string {
    return join(this.stateDir, SEARCH_FILE);
  }

  private load(): Database {
    if (existsSync(this.path)) {
      let db: Database | undefined;
      try {
        db = new this.SQL.Database(readFileSync(this.path));
        tuneInMemory(db);
        const version = Number(db.exec('PRAGMA user_version')[0]?.values[0]?.[0] ?? 0);
        db.exec('SELECT COUNT(*) FROM docs');
        if (version === INDEX_VERSION) return db;
      } catch (error) {
        this.warn(`The search index ${this.path} cannot be read (${(error as Error).message}); it is rebuilt from the sessions.`);
      }
      db?.close();
    }
    const db = new this.SQL.Database();
    tuneInMemory(db);
    for (const statement of SCHEMA) db.run(statement);
    return db;
  }

  /**
   * Indexes what changed in `sessions` since the last search, drops sessions that are gone,
   * and saves the index when anything changed (not in a read-only store: its index then lives
   * for this search only). `open` loads one session at a time.
   */
  private catchUp(db: Database, sessions: readonly SessionEntry[], open: (id: string) => SessionDb | undefined): void {
    const known = new Map<string, { key: string; seq: number }>();
    for (const [id, key, seq] of db.exec('SELECT session_id, files_key, message_seq FROM sources')[0]?.values ?? [])
      known.set(String(id), { key: String(key), seq: Number(seq) });
    let changed = false;
    const present = new Set(sessions.map((entry) => entry.row.id));
    for (const id of known.keys()) {
      if (present.has(id)) continue;
      db.run('DELETE FROM docs WHERE session_id = ?', [id]);
      db.run('DELETE FROM sources WHERE session_id = ?', [id]);
      changed = true;
    }
    // Each statement prepared once: preparing one per document was a third of building the index.
    const insertDoc = db.prepare('INSERT OR IGNORE INTO docs (session_id, kind, ref) VALUES (?, ?, ?) RETURNING rowid');
    const insertText = db.prepare(INSERT_TEXT);
    try {
      for (const entry of sessions) {
        const id = entry.row.id;
        const key = filesKey(entry.dir);
        const before = known.get(id);
        if (before?.key === key) continue;
        let session: SessionDb | undefined;
        try {
          session = open(id);
        } catch (error) {
          this.warn(`Session ${id} is left out of the search: ${(error as Error).message}`);
          continue;
        }
        if (!session) continue;
        db.run('BEGIN');
        const add = (kind: SearchHitKind, ref: string, body: string): void => {
          insertDoc.bind([id, kind, ref]);
          try {
            // No row back: the document is indexed already.
            if (!insertDoc.step()) return;
            insertText.run(bindable(INSERT_TEXT, [Number(insertDoc.get()[0]), body]));
          } finally {
            insertDoc.reset();
          }
        };
        let seq = before?.seq ?? 0;
        for (const message of session.messagesAfter(id, seq)) {
          seq = message.seq;
          if (message.message.role === 'user') add('prompt', String(message.seq), message.message.content);
          else if (message.message.role === 'assistant' && message.message.content !== '')
            add('answer', String(message.seq), message.message.content);
        }
        // A call is indexed once it has finished, with its tool and arguments so those words find it too.
        for (const call of session.calls(id)) {
          if (call.status !== 'running') add('output', call.callId, `${call.tool} ${call.argumentsJson}\n${call.output ?? ''}`);
        }
        db.run(
          'INSERT INTO sources (session_id, files_key, message_seq) VALUES (?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET files_key = excluded.files_key, message_seq = excluded.message_seq',
          [id, key, seq],
        );
        db.run('COMMIT');
        changed = true;
      }
    } finally {
      insertDoc.free();
      insertText.free();
    }
    if (changed && !this.readOnly) this.save(db);
  }

  private save(db: Database): void {
    const draft = `${this.path}.${randomUUID()}.tmp`;
    try {
      writeFileSync(draft, db.export());
      renameSync(draft, this.path);
    } catch (error) {
      if (existsSync(draft)) unlinkSync(draft);
      // The index is a cache: the next search rebuilds what this one could not save.
      this.warn(`Could not save the search index ${this.path} (${(error as Error).message}).`);
    }
  }

  /**
   * The sessions whose prompts, answers or tool outputs contain every word of `query`, best
   * first (most occurrences, then most recent), with an excerpt of their best matches.
   */
  search(
    query: string,
    sessions: readonly SessionEntry[],
    open: (id: string) => SessionDb | undefined,
    options: SearchOptions,
  ): SearchHit[] {
    const terms = queryTerms(query);
    if (terms.length === 0) return [];
    const db = this.load();
    try {
      this.catchUp(db, sessions, open);
      const rows =
        db.exec(`SELECT d.session_id, d.kind, d.ref, matchinfo(fts, 'x') FROM fts JOIN docs d ON d.rowid = fts.docid WHERE fts MATCH ?`, [
          terms.map((term) => `"${term}"`).join(' '),
        ])[0]?.values ?? [];
      const bySession = new Map<string, { score: number; docs: { kind: SearchHitKind; ref: string; hits: number }[] }>();
      for (const [sessionId, kind, ref, info] of rows) {
        const id = String(sessionId);
        if (id === options.excludeSessionId) continue;
        const hits = hitsOf(info, terms.length);
        const entry = bySession.get(id) ?? { score: 0, docs: [] };
        entry.score += hits;
        entry.docs.push({ kind: kind as SearchHitKind, ref: String(ref), hits });
        bySession.set(id, entry);
      }
      const rowsById = new Map(sessions.map((entry) => [entry.row.id, entry.row]));
      const ranked = [...bySession.entries()]
        .filter(([id]) => rowsById.has(id))
        .sort(([a, left], [b, right]) => right.score - left.score || (rowsById.get(b)?.updatedAt ?? 0) - (rowsById.get(a)?.updatedAt ?? 0))
        .slice(0, options.limit);
      return ranked.map(([id, entry]) => {
        const row = rowsById.get(id);
        const session = open(id);
        const best = entry.docs.sort((a, b) => b.hits - a.hits).slice(0, 2);
        const excerpts = best.flatMap((doc) => {
          const text = session ? documentText(session, id, doc.kind, doc.ref) : undefined;
          return text === undefined ? [] : [{ kind: doc.kind, ref: doc.ref, text: excerptOf(text, terms) }];
        });
        return {
          sessionId: id,
          ...(row?.title !== undefined ? { title: row.title } : {}),
          updatedAt: row?.updatedAt ?? 0,
          score: entry.score,
          excerpts,
        };
      });
    } finally {
      db.close();
    }
  }
}

/** The occurrences of every phrase in one row, from FTS4's matchinfo 'x' (3 integers per phrase, the first is this row's hits). */
function hitsOf(info: unknown, phrases: number): number {
  if (!(info instanceof Uint8Array)) return 1;
  const view = new DataView(info.buffer, info.byteOffset, info.byteLength);
  let hits = 0;
  for (let phrase = 0; phrase < phrases && (phrase * 3 + 1) * 4 <= info.byteLength; phrase++) hits += view.getUint32(phrase * 3 * 4, true);
  return hits;
}
