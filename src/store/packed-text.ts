/**
 * Tool outputs kept deflated (issue 9). Outputs are most of a session's bytes, and text deflates
 * to about a third: the snapshot on disk shrinks by as much, and so does the database sql.js
 * keeps in memory, whose in-memory file grows by copying itself (see docs/architecture.md, "The
 * store"), so the occasional copy a record pays is a third as long too.
 *
 * A write stores text, as before, and the journal keeps it so. Packing happens afterwards and
 * is never journaled: it changes how a value is kept, not what it is, and a replay that stores
 * the text again is just as right. SessionEngine packs a record's text once the writes pause
 * (deflating on the record's path slowed it) and swaps the BLOB in if the row still holds that
 * text; before it writes a snapshot, the SQL function `zuno_pack` packs every row still TEXT.
 * A packed value is a BLOB: one format byte, then the raw deflate stream. Text too short or too
 * random to gain stays TEXT, so a column may hold either, and sessions written before read
 * unchanged.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Database, SqlValue } from 'sql.js';
import { StoreCorruptError } from './errors';

/** The first byte of a packed value: raw deflate (RFC 1951). Another format would take another byte. */
const FORMAT_DEFLATE_RAW = 1;
/** Below this many bytes the deflate's cost and header outweigh what it saves. */
export const PACK_MIN_BYTES = 1024;
/** Kept packed only when that saves at least a tenth: random or already compressed text stays text. */
const PACK_MAX_RATIO = 0.9;

/** The stored form of `text`: a packed BLOB when that pays, else the text itself. */
export function packText(text: string): string | Uint8Array {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length < PACK_MIN_BYTES) return text;
  // Level 3: within 5% of the default level's size on source text, in two thirds of its time.
  const deflated = deflateRawSync(bytes, { level: 3 });
  if (deflated.length + 1 > bytes.length * PACK_MAX_RATIO) return text;
  const packed = new Uint8Array(deflated.length + 1);
  packed[0] = FORMAT_DEFLATE_RAW;
  packed.set(deflated, 1);
  return packed;
}

/** The text of a stored value (`where` names it in the error when a packed value is damaged). */
export function unpackText(value: string | Uint8Array, where: string): string {
  if (typeof value === 'string') return value;
  if (value[0] !== FORMAT_DEFLATE_RAW) {
    throw new StoreCorruptError(
      `${where} is stored in an unknown format (first byte ${String(value[0])}); it was written by a newer Zuno, or damaged.`,
    );
  }
  try {
    return inflateRawSync(value.subarray(1)).toString('utf8');
  } catch (error) {
    throw new StoreCorruptError(`${where} is damaged: its deflated text cannot be read (${(error as Error).message}).`);
  }
}

/** A stored text column: text, a packed BLOB, or null (undefined then). */
export function storedText(value: SqlValue | undefined, where: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string' || value instanceof Uint8Array) return unpackText(value, where);
  throw new StoreCorruptError(`${where} holds ${String(value)}, where text was expected.`);
}

/**
 * `message` with a `content` read from a stored value. Packed content is inflated when first
 * read, then kept: a resumed session loads its whole transcript, but the loop reads only the
 * messages after its last compaction, so the outputs of compacted turns are never inflated.
 */
export function withStoredContent<T extends object>(
  message: T,
  value: string | Uint8Array,
  where: string,
): T & { readonly content: string } {
  if (typeof value === 'string') return { ...message, content: value };
  let content: string | undefined;
  return Object.defineProperty({ ...message }, 'content', {
    enumerable: true,
    get: () => (content ??= unpackText(value, where)),
  }) as T & { readonly content: string };
}

/** Whether `text` may be long enough to pack (at most 3 UTF-8 bytes per UTF-16 unit). */
export function mayPack(text: string): boolean {
  return text.length * 3 >= PACK_MIN_BYTES;
}

/** Defines `zuno_pack(value)` on `db`: text packed when that pays, anything else as it is. */
export function definePacking(db: Database): void {
  db.create_function('zuno_pack', (value: SqlValue) => (typeof value === 'string' ? packText(value) : value));
}

/**
 * Puts a packed value (the first parameter) in place of one call's output or one message, if
 * the row still holds the text that was packed (the last parameter): a call tried again since
 * holds another output.
 */
export const REPACK_CALL_OUTPUT = `UPDATE calls SET output = ? WHERE session_id = ? AND call_id = ? AND output = CAST(? AS TEXT)`;
export const REPACK_MESSAGE = `UPDATE messages SET json = ? WHERE session_id = ? AND seq = ? AND json = CAST(? AS TEXT)`;

/**
 * Packs every long text of a session database that is still TEXT: rows replayed from a journal,
 * and any left in the queue. `octet_length` reads a text's size without reading the text.
 */
export const PACK_ALL: readonly string[] = [
  `UPDATE calls SET output = zuno_pack(output) WHERE typeof(output) = 'text' AND octet_length(output) >= ${PACK_MIN_BYTES}`,
  `UPDATE call_attempts SET output = zuno_pack(output) WHERE typeof(output) = 'text' AND octet_length(output) >= ${PACK_MIN_BYTES}`,
  `UPDATE messages SET json = zuno_pack(json) WHERE typeof(json) = 'text' AND octet_length(json) >= ${PACK_MIN_BYTES}`,
];
