/**
 * Session search (issue 9, SPEC R1 "session search"): a full-text index per session, in the
 * session's own folder (`sessions/<id>/search.sqlite`), beside the files it is derived from.
 *
 * Why per session: one index over all history is about 180 MB at 100,000 calls, and sql.js holds
 * a database wholly in memory; a session's index is bounded by that session. A search opens the
 * indexes one at a time, newest session first, keeps only the best `limit` sessions, and closes
 * each before the next, so its memory is one session's index however long the history is.
 *
 * When it is written: never on a write's path. The process that wrote a session brings its index
 * up to date when it closes the store (from the database it already holds in memory, so the cost
 * is what that process added). A session whose index is missing or behind its files (written
 * before indexes existed, or by a process that was killed) is indexed at search time, once, from
 * where its index stopped, and reported through `onProgress`. An index records the state of the
 * session's files it was made from (`filesKey`), so "up to date" is a stat, not a read.
 *
 * It is SQLite FTS4 (the sql.js build has no FTS5) without a copy of the text ("contentless"):
 * the text stays in the session, and the few excerpts shown are cut from there. A damaged index
 * is rebuilt, never trusted, and affects only its session; two processes that index one session
 * at once each write a complete index, and the last rename wins.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database, SqlJsStatic, Statement } from 'sql.js';
import type { SessionEntry } from './layout';
import type { SessionDb } from './session-db';
import { JOURNAL_FILE, SNAPSHOT_FILE } from './session-db';
import { bindable, tuneInMemory } from './session-engine';

/** A session's index, in its folder. */
export const INDEX_FILE = 'search.sqlite';
/** Where the index over every session lived before indexes were kept per session; removed on sight. */
export const FORMER_GLOBAL_INDEX = 'search.sqlite';
/** The body is bound as UTF-8 bytes (see bindable): outputs are long. */
const INSERT_TEXT = 'INSERT INTO fts (docid, body) VALUES (?, CAST(? AS TEXT))';
/** Bumped when what is indexed changes: an index of another version is rebuilt. */
const INDEX_VERSION = 2;

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

/** How far a search is, reported while it indexes sessions whose index was missing or behind. */
export interface SearchProgress {
  /** Sessions looked at so far, of `total`. */
  readonly scanned: number;
  readonly total: number;
  /** Of those, the sessions that had to be indexed first. */
  readonly indexed: number;
}

export interface SearchOptions {
  readonly limit: number;
  /** Leave this session out (the one that is searching). */
  readonly excludeSessionId?: string;
  /** Called after each session that had to be indexed during this search. */
  readonly onProgress?: (progress: SearchProgress) => void;
}

/** Whether a session's index matches its files: `current` needs no work before a search. */
export type IndexState = 'current' | 'behind' | 'missing' | 'unreadable';

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
  `CREATE TABLE docs (rowid INTEGER PRIMARY KEY, kind TEXT NOT NULL, ref TEXT NOT NULL, UNIQUE (kind, ref))`,
  `CREATE TABLE source (session_id TEXT NOT NULL, files_key TEXT NOT NULL, message_seq INTEGER NOT NULL)`,
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

/** One session's index, open in memory. */
interface OpenIndex {
  readonly db: Database;
  /** The files key and message seq it was made up to; undefined for a new, empty index. */
  readonly source: { readonly key: string; readonly seq: number } | undefined;
}

/** A session ranked so far: its score and its best documents (for excerpts). */
interface Ranked {
  readonly entry: SessionEntry;
  readonly score: number;
  readonly docs: readonly { readonly kind: SearchHitKind; readonly ref: string; readonly hits: number }[];
}

/** Better first: more occurrences, then more recent. */
const better = (a: Ranked, b: Ranked): number => b.score - a.score || b.entry.row.updatedAt - a.entry.row.updatedAt;

export class SessionIndexes {
  /**
   * `persist`: whether indexes brought up to date are saved (not in a read-only store, whose
   * indexes then live for one search). `inMemoryOnly`: a pre-issue-9 store read in memory, whose
   * sessions have no folders of their own; their indexes are neither read nor written.
   */
  constructor(
    private readonly SQL: SqlJsStatic,
    private readonly persist: boolean,
    private readonly warn: (message: string) => void,
    private readonly inMemoryOnly = false,
  ) {}

  /** Whether the index of the session in `dir` is current, without loading the session. */
  state(dir: string): IndexState {
    const path = join(dir, INDEX_FILE);
    if (!existsSync(path)) return 'missing';
    let index: OpenIndex | undefined;
    try {
      index = this.readIndex(path);
    } catch {
      return 'unreadable';
    } finally {
      index?.db.close();
    }
    return index.source?.key === filesKey(dir) ? 'current' : 'behind';
  }

  /** Reads an index file; throws when it is not an index of this version. */
  private readIndex(path: string): OpenIndex {
    const db = new this.SQL.Database(readFileSync(path));
    try {
      tuneInMemory(db);
      const version = Number(db.exec('PRAGMA user_version')[0]?.values[0]?.[0] ?? 0);
      if (version !== INDEX_VERSION) throw new Error(`it is of version ${version}, this Zuno writes version ${INDEX_VERSION}`);
      const [key, seq] = db.exec('SELECT files_key, message_seq FROM source')[0]?.values[0] ?? [];
      if (typeof key !== 'string' || typeof seq !== 'number') throw new Error('it does not say which files it was made from');
      return { db, source: { key, seq } };
    } catch (error) {
      db.close();
      throw error;
    }
  }

  private emptyIndex(): OpenIndex {
    const db = new this.SQL.Database();
    tuneInMemory(db);
    for (const statement of SCHEMA) db.run(statement);
    return { db, source: undefined };
  }

  /** The session's index as saved, or a new one when it is missing or unreadable (named in a warning). */
  private open(entry: SessionEntry): OpenIndex {
    if (this.inMemoryOnly) return this.emptyIndex();
    const path = join(entry.dir, INDEX_FILE);
    if (!existsSync(path)) return this.emptyIndex();
    try {
      return this.readIndex(path);
    } catch (error) {
      this.warn(
        `The search index ${path} of session ${entry.row.id} cannot be read (${(error as Error).message}); it is rebuilt from the session. Other sessions are not affected.`,
      );
      return this.emptyIndex();
    }
  }

  /**
   * Adds to `index` what the session holds beyond it: messages after its seq, and finished calls
   * it lacks. The work is what is new, plus one pass over the session's call rows.
   */
  private catchUp(index: OpenIndex, session: SessionDb, sessionId: string, key: string): void {
    const { db } = index;
    // Each statement prepared once: preparing one per document was a third of building the index.
    const insertDoc = db.prepare('INSERT OR IGNORE INTO docs (kind, ref) VALUES (?, ?) RETURNING rowid');
    const insertText = db.prepare(INSERT_TEXT);
    db.run('BEGIN');
    try {
      const add = (kind: SearchHitKind, ref: string, body: string): void => addDocument(insertDoc, insertText, kind, ref, body);
      let seq = index.source?.seq ?? 0;
      for (const message of session.messagesAfter(sessionId, seq)) {
        seq = message.seq;
        if (message.message.role === 'user') add('prompt', String(message.seq), message.message.content);
        else if (message.message.role === 'assistant' && message.message.content !== '')
          add('answer', String(message.seq), message.message.content);
      }
      // A call is indexed once it has finished, with its tool and arguments so those words find it too.
      for (const call of session.calls(sessionId)) {
        if (call.status !== 'running') add('output', call.callId, `${call.tool} ${call.argumentsJson}\n${call.output ?? ''}`);
      }
      db.run('DELETE FROM source');
      db.run('INSERT INTO source (session_id, files_key, message_seq) VALUES (?, ?, ?)', [sessionId, key, seq]);
      db.run('COMMIT');
    } catch (error) {
      db.run('ROLLBACK');
      throw error;
    } finally {
      insertDoc.free();
      insertText.free();
    }
  }

  private save(db: Database, dir: string): void {
    if (!this.persist || this.inMemoryOnly) return;
    const path = join(dir, INDEX_FILE);
    const draft = `${path}.${randomUUID()}.tmp`;
    try {
      writeFileSync(draft, db.export());
      renameSync(draft, path);
    } catch (error) {
      if (existsSync(draft)) unlinkSync(draft);
      // The index is derived data: the next search indexes what this one could not save.
      this.warn(`Could not save the search index ${path} (${(error as Error).message}); the next search indexes the session again.`);
    }
  }

  /**
   * Brings the index of one session up to date from its database, already in memory (`session`),
   * and saves it. For the process that wrote the session, when it lets go of it. `key` is the
   * session's files key as the database was loaded or last written.
   */
  update(entry: SessionEntry, session: SessionDb, key = filesKey(entry.dir)): void {
    const index = this.open(entry);
    try {
      if (index.source?.key === key) return;
      this.catchUp(index, session, entry.row.id, key);
      this.save(index.db, entry.dir);
    } finally {
      index.db.close();
    }
  }

  /**
   * The sessions whose prompts, answers or tool outputs contain every word of `query`, best
   * first (most occurrences, then most recent), with an excerpt of their best matches. `open`
   * loads one session (only those whose index is behind, and the few shown).
   */
  search(
    query: string,
    sessions: readonly SessionEntry[],
    open: (id: string) => SessionDb | undefined,
    options: SearchOptions,
  ): SearchHit[] {
    const terms = queryTerms(query);
    if (terms.length === 0 || options.limit <= 0) return [];
    const match = terms.map((term) => `"${term}"`).join(' ');
    let best: Ranked[] = [];
    let indexed = 0;
    let scanned = 0;
    for (const entry of sessions) {
      scanned++;
      if (entry.row.id === options.excludeSessionId) continue;
      const index = this.open(entry);
      try {
        // Read before the session is loaded: a write after it makes the index behind again, never wrongly current.
        const key = this.inMemoryOnly ? '' : filesKey(entry.dir);
        if (this.inMemoryOnly || index.source?.key !== key) {
          let session: SessionDb | undefined;
          try {
            session = open(entry.row.id);
          } catch (error) {
            this.warn(`Session ${entry.row.id} is left out of the search: ${(error as Error).message}`);
            continue;
          }
          if (!session) continue;
          this.catchUp(index, session, entry.row.id, key);
          this.save(index.db, entry.dir);
          indexed++;
          options.onProgress?.({ scanned, total: sessions.length, indexed });
        }
        const ranked = rank(index.db, match, terms.length, entry);
        if (!ranked) continue;
        // Only the best `limit` sessions are kept, so memory does not grow with the history.
        if (best.length < options.limit || better(ranked, best[best.length - 1] as Ranked) < 0) {
          best = [...best, ranked].sort(better).slice(0, options.limit);
        }
      } finally {
        index.db.close();
      }
    }
    return best.map(({ entry, score, docs }) => {
      const id = entry.row.id;
      let session: SessionDb | undefined;
      try {
        session = open(id);
      } catch {
        // Shown without excerpts: its index matched, and the warning for its files comes when it is read.
      }
      const excerpts = docs.flatMap((doc) => {
        const text = session ? documentText(session, id, doc.kind, doc.ref) : undefined;
        return text === undefined ? [] : [{ kind: doc.kind, ref: doc.ref, text: excerptOf(text, terms) }];
      });
      return {
        sessionId: id,
        ...(entry.row.title !== undefined ? { title: entry.row.title } : {}),
        updatedAt: entry.row.updatedAt,
        score,
        excerpts,
      };
    });
  }
}

function addDocument(insertDoc: Statement, insertText: Statement, kind: SearchHitKind, ref: string, body: string): void {
  insertDoc.bind([kind, ref]);
  try {
    // No row back: the document is indexed already.
    if (!insertDoc.step()) return;
    insertText.run(bindable(INSERT_TEXT, [Number(insertDoc.get()[0]), body]));
  } finally {
    insertDoc.reset();
  }
}

/** One session's score for the query and its two best documents; undefined when it does not match. */
function rank(db: Database, match: string, phrases: number, entry: SessionEntry): Ranked | undefined {
  const rows = db.exec(`SELECT d.kind, d.ref, matchinfo(fts, 'x') FROM fts JOIN docs d ON d.rowid = fts.docid WHERE fts MATCH ?`, [match])[0]
    ?.values;
  if (!rows || rows.length === 0) return undefined;
  let score = 0;
  const docs = rows.map(([kind, ref, info]) => {
    const hits = hitsOf(info, phrases);
    score += hits;
    return { kind: kind as SearchHitKind, ref: String(ref), hits };
  });
  return { entry, score, docs: docs.sort((a, b) => b.hits - a.hits).slice(0, 2) };
}

/** The occurrences of every phrase in one row, from FTS4's matchinfo 'x' (3 integers per phrase, the first is this row's hits). */
function hitsOf(info: unknown, phrases: number): number {
  if (!(info instanceof Uint8Array)) return 1;
  const view = new DataView(info.buffer, info.byteOffset, info.byteLength);
  let hits = 0;
  for (let phrase = 0; phrase < phrases && (phrase * 3 + 1) * 4 <= info.byteLength; phrase++) hits += view.getUint32(phrase * 3 * 4, true);
  return hits;
}
