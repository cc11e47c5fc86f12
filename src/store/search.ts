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
 *
 * Skipping sessions: opening an index in sql.js costs a millisecond or more, which at a thousand
 * sessions is seconds. So each index has beside it (`search.terms`, about 5 bytes per distinct
 * word, made from the index when it is saved and keyed by the same files key) a Bloom filter of
 * its words and a count-min sketch of how often each occurs. A session whose filter lacks a word
 * of the query cannot match and its index is not opened; the others are read most promising
 * first, and the search stops when no session left could score as much as the last of the best
 * `limit` (the sketch only overestimates, so the ranking stays exact). A filter that is missing,
 * unreadable or keyed to other files is ignored (the index is read), so it can only save work,
 * never hide a session.
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Database, SqlJsStatic, Statement } from 'sql.js';
import type { SessionEntry } from './layout';
import { writeFileAtomically } from './layout';
import type { SessionDb } from './session-db';
import { JOURNAL_FILE, SNAPSHOT_FILE } from './session-db';
import { bindable, tuneInMemory } from './session-engine';

/** A session's index, in its folder. */
export const INDEX_FILE = 'search.sqlite';
/** Beside it: a Bloom filter of the index's words, read without sql.js to skip sessions that cannot match. */
export const TERMS_FILE = 'search.terms';
/** Where the index over every session lived before indexes were kept per session; removed on sight. */
export const FORMER_GLOBAL_INDEX = 'search.sqlite';
/** The body is bound as UTF-8 bytes (see bindable): outputs are long. */
const INSERT_TEXT = 'INSERT INTO fts (docid, body) VALUES (?, CAST(? AS TEXT))';
/** Bumped when what is indexed changes: an index of another version is rebuilt. */
const INDEX_VERSION = 3;

/**
 * How many times one word counts per document. Tool outputs repeat themselves (logs, progress
 * lines, tables), and FTS4 keeps a position for every occurrence: in the store bench (1,000
 * outputs of 8 KB) those positions were nine tenths of the index. Past this many, an occurrence
 * adds nothing to finding the document and little to ranking it (a score counts at most this
 * many per document), so it is not indexed.
 */
export const OCCURRENCES_PER_DOCUMENT = 64;
/**
 * Stands where occurrences were left out, so the words on either side are not indexed as
 * adjacent (a phrase that is not in the text cannot match). A private-use character: unicode61
 * keeps it as a word, and a query, which keeps only letters, digits and `_`, can never ask for it.
 */
const OMITTED = '\uE000';
/**
 * What separates the units whose occurrences are counted: ASCII spaces, controls and punctuation
 * other than `_`, on which unicode61 always separates. `_` stays inside, so an identifier like
 * `foo_bar`, which a query term finds as the phrase "foo bar", is counted (and kept) whole.
 */
const BETWEEN_UNITS = /[\0- !-/:-@[-^`{-\x7f]+/;

/**
 * The text that is indexed for a document: its units in order, each kept for its first
 * OCCURRENCES_PER_DOCUMENT occurrences, with OMITTED where others were left out. Every word and
 * identifier of the text is found; what is lost is the count past the cap, and a phrase of words
 * apart (`a b` for the term `a_b`) whose first occurrences all fall past it.
 */
export function indexedText(text: string): string {
  const seen = new Map<string, number>();
  const kept: string[] = [];
  let omitted = false;
  for (const unit of text.split(BETWEEN_UNITS)) {
    if (unit === '') continue;
    const count = (seen.get(unit) ?? 0) + 1;
    seen.set(unit, count);
    if (count > OCCURRENCES_PER_DOCUMENT) {
      omitted = true;
      continue;
    }
    // Never first: a unit's first occurrence is always kept.
    if (omitted) kept.push(OMITTED);
    omitted = false;
    kept.push(unit);
  }
  return kept.join(' ');
}

export type SearchHitKind = 'prompt' | 'answer' | 'output';

export interface SearchHit {
  readonly sessionId: string;
  readonly title?: string;
  /** When the session was last updated. */
  readonly updatedAt: number;
  /** How many times the words occur in the session's matching prompts, answers and outputs (at most OCCURRENCES_PER_DOCUMENT per word in each). */
  readonly score: number;
  readonly excerpts: readonly { readonly kind: SearchHitKind; readonly ref: string; readonly text: string }[];
}

/** How far a search is, reported while it indexes sessions whose index was missing or behind. */
export interface SearchProgress {
  /** Sessions read so far, of the `total` that may match (their word filter did not rule them out). */
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

/**
 * The words of each query term as unicode61 splits them (`_` separates), when all are ASCII
 * letters and digits; undefined for a term with other characters (unicode61 folds those, so a
 * filter is never asked about them).
 */
function filterableWords(terms: readonly string[]): (string[] | undefined)[] {
  return terms.map((term) => {
    const words = term.split('_').filter((word) => word !== '');
    return words.length > 0 && words.every((word) => /^[a-z0-9]+$/.test(word)) ? words : undefined;
  });
}

/** FNV-1a over the UTF-16 code units, and a second hash derived from it, for double hashing. */
function hashes(word: string): [number, number] {
  let h = 0x811c9dc5;
  for (let index = 0; index < word.length; index++) h = Math.imul(h ^ word.charCodeAt(index), 0x01000193);
  let g = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  g = Math.imul(g ^ (g >>> 13), 0xc2b2ae35);
  return [h >>> 0, (g ^ (g >>> 16)) | 1];
}

const BLOOM_HASHES = 7;
/**
 * At least 12 bits per word, rounded up to a power of two (so 12 to 24): with 7 hashes, 0.3% to
 * 0.007% false positives, (1 - e^(-7/bits))^7. At 1,000 calls of 8 KB the filter and sketch are 6 KB,
 * about 1% of the index, so they are left as they are.
 */
const BLOOM_BITS_PER_WORD = 12;
/** Rows of the count sketch: a word's count is bounded by the smallest of its cells. */
const COUNT_ROWS = 2;

/**
 * A Bloom filter of an index's words, a count-min sketch of how often each occurs (an upper
 * bound, for cutting a search short), and the files key of the index they were made from.
 * Read a byte at a time: a session with many distinct words has a large filter, and a query
 * needs a few dozen of its bytes.
 */
interface TermFilter {
  readonly key: string;
  /** Bits of the Bloom filter, a power of two. */
  readonly bloomBits: number;
  /** Cells of each count row (one byte each, see countCode), a power of two. */
  readonly width: number;
  /** The byte at `offset` from the start of the Bloom bits; the count rows follow them. */
  readonly byteAt: (offset: number) => number;
}

/** `index` 0 to BLOOM_HASHES - 1 are the Bloom filter's bits; the count rows use the next ones. */
function position(hash: [number, number], index: number, size: number): number {
  return ((hash[0] + Math.imul(index, hash[1])) >>> 0) & (size - 1);
}

function mayContain(filter: TermFilter, words: readonly string[]): boolean {
  return words.every((word) => {
    const hash = hashes(word);
    for (let index = 0; index < BLOOM_HASHES; index++) {
      const bit = position(hash, index, filter.bloomBits);
      if ((filter.byteAt(bit >>> 3) & (1 << (bit & 7))) === 0) return false;
    }
    return true;
  });
}

/** A count in one byte, rounded up: about 9% steps. countBound(countCode(n)) >= n. */
function countCode(count: number): number {
  return count <= 0 ? 0 : Math.min(255, Math.ceil(8 * Math.log2(count + 1)));
}

function countBound(code: number): number {
  return code === 0 ? 0 : code === 255 ? Infinity : Math.floor(2 ** (code / 8));
}

/** At least how often `word` occurs in the session, bounded from above. */
function occurrencesAtMost(filter: TermFilter, word: string): number {
  const { width } = filter;
  const hash = hashes(word);
  let bound = Infinity;
  for (let row = 0; row < COUNT_ROWS; row++)
    bound = Math.min(bound, countBound(filter.byteAt(filter.bloomBits / 8 + row * width + position(hash, BLOOM_HASHES + row, width))));
  return bound;
}

/**
 * The most a session can score for the query: each term's hits are at most the occurrences of
 * each of its words, so the sum over terms of their rarest word's bound. Infinity when a term
 * has words the filter is not asked about.
 */
function scoreAtMost(filter: TermFilter, termWords: readonly (readonly string[] | undefined)[]): number {
  let bound = 0;
  for (const words of termWords) {
    if (!words) return Infinity;
    bound += Math.min(...words.map((word) => occurrencesAtMost(filter, word)));
  }
  return bound;
}

/** The filter file: one JSON line (version, key, sizes), then the Bloom bits, then the count rows. */
function encodeFilter(key: string, words: readonly { readonly word: string; readonly occurrences: number }[]): Buffer {
  let size = 1024;
  while (size < words.length * BLOOM_BITS_PER_WORD) size *= 2;
  let width = 256;
  while (width < words.length * 2) width *= 2;
  const bits = new Uint8Array(size / 8);
  const sums = new Float64Array(width * COUNT_ROWS);
  for (const { word, occurrences } of words) {
    const hash = hashes(word);
    for (let index = 0; index < BLOOM_HASHES; index++) {
      const bit = position(hash, index, size);
      bits[bit >>> 3] = (bits[bit >>> 3] ?? 0) | (1 << (bit & 7));
    }
    for (let row = 0; row < COUNT_ROWS; row++) {
      const cell = row * width + position(hash, BLOOM_HASHES + row, width);
      sums[cell] = (sums[cell] ?? 0) + occurrences;
    }
  }
  const counts = Uint8Array.from(sums, countCode);
  return Buffer.concat([Buffer.from(`${JSON.stringify({ version: INDEX_VERSION, key, bloomBytes: bits.length })}\n`), bits, counts]);
}

const isPowerOfTwo = (value: number): boolean => value > 0 && (value & (value - 1)) === 0;

/** What is read of a filter file at once: its header, and all of a small one. */
const FILTER_HEAD_BYTES = 4096;

/**
 * Opens a filter file for `use`, which gets undefined when the file is absent or not one this
 * version wrote (it is then not used), and closes it after.
 */
function withFilter<T>(path: string, use: (filter: TermFilter | undefined) => T): T {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return use(undefined);
  }
  try {
    const head = Buffer.alloc(FILTER_HEAD_BYTES);
    const headLength = readSync(fd, head, 0, head.length, 0);
    const newline = head.subarray(0, headLength).indexOf(0x0a);
    let header: { version?: unknown; key?: unknown; bloomBytes?: unknown };
    try {
      header = newline === -1 ? {} : (JSON.parse(head.toString('utf8', 0, newline)) as typeof header);
    } catch {
      header = {};
    }
    const { bloomBytes } = header;
    if (header.version !== INDEX_VERSION || typeof header.key !== 'string' || typeof bloomBytes !== 'number') return use(undefined);
    const start = newline + 1;
    const countBytes = fstatSync(fd).size - start - bloomBytes;
    // Sizes that are not powers of two (of at least 1024 bits and 256 cells) mean a torn or foreign file.
    if (bloomBytes < 128 || !isPowerOfTwo(bloomBytes) || countBytes < 256 * COUNT_ROWS || !isPowerOfTwo(countBytes / COUNT_ROWS))
      return use(undefined);
    const one = Buffer.alloc(1);
    const byteAt = (offset: number): number => {
      const at = start + offset;
      if (at < headLength) return head[at] ?? 0;
      return readSync(fd, one, 0, 1, at) === 1 ? (one[0] ?? 0) : 0;
    };
    return use({ key: header.key, bloomBits: bloomBytes * 8, width: countBytes / COUNT_ROWS, byteAt });
  } finally {
    closeSync(fd);
  }
}

/** An index another version of Zuno wrote (what it holds differs): rebuilt like a missing one. */
class OtherIndexVersion extends Error {
  constructor(readonly version: number) {
    super(`it is of version ${version}, this Zuno writes version ${INDEX_VERSION}`);
  }
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
  // matchinfo=fts3: no table of document sizes, which only matchinfo's 'l', 'n' and 'a' read ('x' is used).
  `CREATE VIRTUAL TABLE fts USING fts4(content="", body, tokenize=unicode61, matchinfo=fts3)`,
  `CREATE TABLE docs (rowid INTEGER PRIMARY KEY, kind TEXT NOT NULL, ref TEXT NOT NULL, UNIQUE (kind, ref))`,
  // Indexed so far: messages up to message_seq, and every call whose ordinal is below call_ordinal.
  `CREATE TABLE source (session_id TEXT NOT NULL, files_key TEXT NOT NULL, message_seq INTEGER NOT NULL, call_ordinal INTEGER NOT NULL)`,
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
  /** The files key, message seq and call ordinal it was made up to; undefined for a new, empty index. */
  readonly source: { readonly key: string; readonly seq: number; readonly ordinal: number } | undefined;
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
    } catch (error) {
      return error instanceof OtherIndexVersion ? 'behind' : 'unreadable';
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
      if (version !== INDEX_VERSION) {
        if (version > 0) throw new OtherIndexVersion(version);
        throw new Error(`it is of version ${version}, this Zuno writes version ${INDEX_VERSION}`);
      }
      const [key, seq, ordinal] = db.exec('SELECT files_key, message_seq, call_ordinal FROM source')[0]?.values[0] ?? [];
      if (typeof key !== 'string' || typeof seq !== 'number' || typeof ordinal !== 'number')
        throw new Error('it does not say which files it was made from');
      return { db, source: { key, seq, ordinal } };
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

  /**
   * The session's index as saved, or a new one when it is missing, of another version (after an
   * upgrade: expected, so not a warning) or unreadable (named in a warning).
   */
  private open(entry: SessionEntry): OpenIndex {
    if (this.inMemoryOnly) return this.emptyIndex();
    const path = join(entry.dir, INDEX_FILE);
    try {
      return this.readIndex(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || error instanceof OtherIndexVersion) return this.emptyIndex();
      this.warn(
        `The search index ${path} of session ${entry.row.id} cannot be read (${(error as Error).message}); it is rebuilt from the session. Other sessions are not affected.`,
      );
      return this.emptyIndex();
    }
  }

  /**
   * Adds to `index` what the session holds beyond it: messages after its seq, and the calls
   * from its call ordinal on that have finished. The work is what is new since the last time.
   */
  private catchUp(index: OpenIndex, session: SessionDb, sessionId: string, key: string): void {
    const { db } = index;
    // Each statement prepared once: preparing one per document was a third of building the index.
    const insertDoc = db.prepare('INSERT OR IGNORE INTO docs (kind, ref) VALUES (?, ?) RETURNING rowid');
    const insertText = db.prepare(INSERT_TEXT);
    db.run('BEGIN');
    try {
      const add = (kind: SearchHitKind, ref: string, body: string): void =>
        addDocument(insertDoc, insertText, kind, ref, indexedText(body));
      let seq = index.source?.seq ?? 0;
      for (const message of session.messagesAfter(sessionId, seq)) {
        seq = message.seq;
        if (message.message.role === 'user') add('prompt', String(message.seq), message.message.content);
        else if (message.message.role === 'assistant' && message.message.content !== '')
          add('answer', String(message.seq), message.message.content);
      }
      // A call is indexed once it has finished, with its tool and arguments so those words find it
      // too; the next catch-up starts at the first call still running (later ones are not added twice).
      let ordinal = index.source?.ordinal ?? 0;
      let running: number | undefined;
      for (const { ordinal: at, call } of session.callsFrom(sessionId, ordinal)) {
        ordinal = at + 1;
        if (call.status === 'running') running ??= at;
        else add('output', call.callId, `${call.tool} ${call.argumentsJson}\n${call.output ?? ''}`);
      }
      ordinal = running ?? ordinal;
      db.run('DELETE FROM source');
      db.run('INSERT INTO source (session_id, files_key, message_seq, call_ordinal) VALUES (?, ?, ?, ?)', [sessionId, key, seq, ordinal]);
      db.run('COMMIT');
    } catch (error) {
      db.run('ROLLBACK');
      throw error;
    } finally {
      insertDoc.free();
      insertText.free();
    }
  }

  /**
   * Saves the index, then its word filter (the filter names the same files key, so it is used
   * only with this index's content). Written compactly: each catch-up adds segments to the FTS
   * tree, which 'optimize' merges into one (a word's documents in one list, read once by a
   * search), and VACUUM drops the pages the merge freed, which the export would otherwise keep.
   * Both cost one pass over this session's index.
   */
  private save(db: Database, dir: string, key: string): void {
    if (!this.persist || this.inMemoryOnly) return;
    const path = join(dir, INDEX_FILE);
    try {
      db.run(`INSERT INTO fts (fts) VALUES ('optimize')`);
      db.run('VACUUM');
      writeFileAtomically(path, db.export());
      this.saveFilter(db, dir, key);
    } catch (error) {
      // The index is derived data: the next search indexes what this one could not save.
      this.warn(`Could not save the search index ${path} (${(error as Error).message}); the next search indexes the session again.`);
    }
  }

  private saveFilter(db: Database, dir: string, key: string): void {
    db.run('CREATE VIRTUAL TABLE temp.words USING fts4aux(main, fts)');
    try {
      const words = (db.exec(`SELECT term, occurrences FROM temp.words WHERE col = '*'`)[0]?.values ?? []).map(([word, occurrences]) => ({
        word: String(word),
        occurrences: Number(occurrences),
      }));
      writeFileAtomically(join(dir, TERMS_FILE), encodeFilter(key, words));
    } finally {
      db.run('DROP TABLE temp.words');
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
      if (index.source?.key === key) {
        if (this.persist && withFilter(join(entry.dir, TERMS_FILE), (filter) => filter?.key) !== key) this.save(index.db, entry.dir, key);
        return;
      }
      this.catchUp(index, session, entry.row.id, key);
      this.save(index.db, entry.dir, key);
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
    const termWords = filterableWords(terms);
    const words = termWords.flatMap((each) => each ?? []);
    // First the filters (a small read each): sessions that cannot match are dropped, the others
    // get the most they could score. Then the indexes, most promising first, until no session
    // left could score as much as the last of the best `limit` (an early cut-off; the ranking
    // stays exact). A session without a current filter is always read.
    const candidates: { entry: SessionEntry; key: string; bound: number }[] = [];
    for (const entry of sessions) {
      if (entry.row.id === options.excludeSessionId) continue;
      // Read before the session is loaded: a write after it makes the index behind again, never wrongly current.
      const key = this.inMemoryOnly ? '' : filesKey(entry.dir);
      // Infinity: no current filter, so the index must be read; undefined: the session cannot match.
      const bound = this.inMemoryOnly
        ? Infinity
        : withFilter(join(entry.dir, TERMS_FILE), (filter) =>
            filter?.key !== key ? Infinity : mayContain(filter, words) ? scoreAtMost(filter, termWords) : undefined,
          );
      if (bound !== undefined) candidates.push({ entry, key, bound });
    }
    // Stable: among equal bounds the newest session stays first.
    candidates.sort((a, b) => b.bound - a.bound);
    let best: Ranked[] = [];
    let indexed = 0;
    let scanned = 0;
    for (const { entry, key, bound } of candidates) {
      const last = best.at(-1);
      if (last && best.length >= options.limit && bound < last.score) break;
      scanned++;
      const index = this.open(entry);
      try {
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
          this.save(index.db, entry.dir, key);
          indexed++;
          options.onProgress?.({ scanned, total: candidates.length, indexed });
        }
        const ranked = rank(index.db, match, terms.length, entry);
        if (!ranked) continue;
        // Only the best `limit` sessions are kept, so memory does not grow with the history.
        const worst = best.at(-1);
        if (!worst || best.length < options.limit || better(ranked, worst) < 0) {
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

/**
 * One session's score for the query and its two best documents; undefined when it does not match.
 * Every matching row is read as (docid, matchinfo) only: what each document is, is looked up for the best two.
 */
function rank(db: Database, match: string, phrases: number, entry: SessionEntry): Ranked | undefined {
  const statement = db.prepare(`SELECT docid, matchinfo(fts, 'x') FROM fts WHERE fts MATCH ?`, [match]);
  let score = 0;
  const top: { docid: number; hits: number }[] = [];
  try {
    while (statement.step()) {
      const [docid, info] = statement.get();
      const hits = hitsOf(info, phrases);
      score += hits;
      if (top.length < 2 || hits > (top[1]?.hits ?? 0)) {
        top.push({ docid: Number(docid), hits });
        top.sort((a, b) => b.hits - a.hits);
        top.length = Math.min(top.length, 2);
      }
    }
  } finally {
    statement.free();
  }
  if (top.length === 0) return undefined;
  const docs = top.flatMap(({ docid, hits }) => {
    const [kind, ref] = db.exec('SELECT kind, ref FROM docs WHERE rowid = ?', [docid])[0]?.values[0] ?? [];
    return typeof kind === 'string' ? [{ kind: kind as SearchHitKind, ref: String(ref), hits }] : [];
  });
  return { entry, score, docs };
}

/** The occurrences of every phrase in one row, from FTS4's matchinfo 'x' (3 little-endian 32-bit integers per phrase, the first is this row's hits). */
function hitsOf(info: unknown, phrases: number): number {
  if (!(info instanceof Uint8Array)) return 1;
  let hits = 0;
  for (let phrase = 0, at = 0; phrase < phrases && at + 4 <= info.length; phrase++, at += 12)
    hits += ((info[at] ?? 0) | ((info[at + 1] ?? 0) << 8) | ((info[at + 2] ?? 0) << 16) | ((info[at + 3] ?? 0) << 24)) >>> 0;
  return hits;
}
