/**
 * The rows the store hands out, and their decoding from sql.js values. Each column is checked
 * as it is read, so a damaged or foreign database fails with the column named instead of
 * passing a wrong type along.
 */
import type { SqlValue } from 'sql.js';
import { CONCURRENCIES, EFFECTS, REPLAYS } from '../core/declarations';
import type { Concurrency, Effect, Replay } from '../core/declarations';
import { BLOCKED_CATEGORIES } from '../core/outcome';
import type { BlockedCategory } from '../core/outcome';
import { StoreCorruptError } from './errors';
import { storedText } from './packed-text';
import { CALL_STATUSES, MEMORY_STATUSES, SESSION_STATUSES } from './schema';
import type { CallStatus, MemoryStatus, SessionStatus } from './schema';

export interface SessionRow {
  readonly id: string;
  readonly workspace: string;
  readonly title?: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly status: SessionStatus;
}

export interface CallRow {
  readonly sessionId: string;
  readonly callId: string;
  /** CallStart.turn, or else the transcript seq of the assistant message that asked for the call. */
  readonly turn?: number;
  readonly position: number;
  readonly tool: string;
  /** The arguments exactly as the model sent them. */
  readonly argumentsJson: string;
  readonly effect: Effect;
  readonly replay: Replay;
  readonly concurrency: Concurrency;
  /** The latest attempt (1 for the first try). */
  readonly attempt: number;
  readonly parentCallId?: string;
  readonly status: CallStatus;
  readonly category?: BlockedCategory;
  readonly output?: string;
  readonly truncated: boolean;
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** When the first attempt started (or the call was blocked). */
  readonly startedAt: number;
  readonly finishedAt?: number;
  /** Of the latest attempt. */
  readonly durationMs?: number;
}

export interface CallAttemptRow {
  readonly sessionId: string;
  readonly callId: string;
  readonly attempt: number;
  readonly status: CallStatus;
  readonly output?: string;
  readonly startedAt: number;
  readonly finishedAt?: number;
  readonly durationMs?: number;
}

export interface MemoryRow {
  readonly id: string;
  readonly text: string;
  readonly status: MemoryStatus;
  readonly createdAt: number;
  readonly acceptedAt?: number;
  readonly sourceSessionId?: string;
}

/** The tokens of one model request (migration 3). */
export interface ModelRequestRow {
  readonly sessionId: string;
  readonly seq: number;
  readonly model?: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedTokens: number;
  readonly cacheWriteTokens: number;
  /** The server reported nothing; the counts are estimates. */
  readonly estimated: boolean;
  readonly contextWindow?: number;
  readonly createdAt: number;
}

export type Row = Record<string, SqlValue>;

function column(row: Row, name: string): SqlValue {
  if (!(name in row)) throw new StoreCorruptError(`The store has no column "${name}" where one was expected.`);
  return row[name] ?? null;
}

export function text(row: Row, name: string): string {
  const value = column(row, name);
  if (typeof value !== 'string')
    throw new StoreCorruptError(`The store holds ${String(value)} in column "${name}", where text was expected.`);
  return value;
}

function optionalText(row: Row, name: string): string | undefined {
  return column(row, name) === null ? undefined : text(row, name);
}

export function integer(row: Row, name: string): number {
  const value = column(row, name);
  if (typeof value !== 'number')
    throw new StoreCorruptError(`The store holds ${String(value)} in column "${name}", where a number was expected.`);
  return value;
}

function optionalInteger(row: Row, name: string): number | undefined {
  return column(row, name) === null ? undefined : integer(row, name);
}

export function member<T extends string>(row: Row, name: string, allowed: readonly T[]): T {
  const value = text(row, name);
  const found = allowed.find((candidate) => candidate === value);
  if (found === undefined)
    throw new StoreCorruptError(`The store holds "${value}" in column "${name}", which is not one of ${allowed.join(', ')}.`);
  return found;
}

function parseMetadata(json: string | undefined): Readonly<Record<string, unknown>> | undefined {
  if (json === undefined) return undefined;
  const value: unknown = JSON.parse(json);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
}

/** Tool metadata is free-form; a value JSON cannot hold must not cost the call its outcome. */
export function metadataJson(metadata: Readonly<Record<string, unknown>> | undefined): string | null {
  if (metadata === undefined) return null;
  try {
    return JSON.stringify(metadata);
  } catch (error) {
    return JSON.stringify({ unserializable: (error as Error).message });
  }
}

export function toSessionRow(row: Row): SessionRow {
  const title = optionalText(row, 'title');
  return {
    id: text(row, 'id'),
    workspace: text(row, 'workspace'),
    ...(title !== undefined ? { title } : {}),
    createdAt: integer(row, 'created_at'),
    updatedAt: integer(row, 'updated_at'),
    status: member(row, 'status', SESSION_STATUSES),
  };
}

export function toCallRow(row: Row): CallRow {
  const turn = optionalInteger(row, 'turn');
  const parentCallId = optionalText(row, 'parent_call_id');
  const category = column(row, 'category') === null ? undefined : member(row, 'category', BLOCKED_CATEGORIES);
  const output = storedText(column(row, 'output'), `The output of call ${text(row, 'call_id')}`);
  const metadata = parseMetadata(optionalText(row, 'metadata_json'));
  const finishedAt = optionalInteger(row, 'finished_at');
  const durationMs = optionalInteger(row, 'duration_ms');
  return {
    sessionId: text(row, 'session_id'),
    callId: text(row, 'call_id'),
    ...(turn !== undefined ? { turn } : {}),
    position: integer(row, 'position'),
    tool: text(row, 'tool'),
    argumentsJson: text(row, 'arguments_json'),
    effect: member(row, 'effect', EFFECTS),
    replay: member(row, 'replay', REPLAYS),
    concurrency: member(row, 'concurrency', CONCURRENCIES),
    attempt: integer(row, 'attempt'),
    ...(parentCallId !== undefined ? { parentCallId } : {}),
    status: member(row, 'status', CALL_STATUSES),
    ...(category !== undefined ? { category } : {}),
    ...(output !== undefined ? { output } : {}),
    truncated: integer(row, 'truncated') !== 0,
    ...(metadata !== undefined ? { metadata } : {}),
    startedAt: integer(row, 'started_at'),
    ...(finishedAt !== undefined ? { finishedAt } : {}),
    ...(durationMs !== undefined ? { durationMs } : {}),
  };
}

export function toAttemptRow(row: Row): CallAttemptRow {
  const output = storedText(
    column(row, 'output'),
    `The output of attempt ${String(column(row, 'attempt'))} of call ${text(row, 'call_id')}`,
  );
  const finishedAt = optionalInteger(row, 'finished_at');
  const durationMs = optionalInteger(row, 'duration_ms');
  return {
    sessionId: text(row, 'session_id'),
    callId: text(row, 'call_id'),
    attempt: integer(row, 'attempt'),
    status: member(row, 'status', CALL_STATUSES),
    ...(output !== undefined ? { output } : {}),
    startedAt: integer(row, 'started_at'),
    ...(finishedAt !== undefined ? { finishedAt } : {}),
    ...(durationMs !== undefined ? { durationMs } : {}),
  };
}

export function toMemoryRow(row: Row): MemoryRow {
  const acceptedAt = optionalInteger(row, 'accepted_at');
  const sourceSessionId = optionalText(row, 'source_session_id');
  return {
    id: text(row, 'id'),
    text: text(row, 'text'),
    status: member(row, 'status', MEMORY_STATUSES),
    createdAt: integer(row, 'created_at'),
    ...(acceptedAt !== undefined ? { acceptedAt } : {}),
    ...(sourceSessionId !== undefined ? { sourceSessionId } : {}),
  };
}

export function toModelRequestRow(row: Row): ModelRequestRow {
  const model = optionalText(row, 'model');
  const contextWindow = optionalInteger(row, 'context_window');
  return {
    sessionId: text(row, 'session_id'),
    seq: integer(row, 'seq'),
    ...(model !== undefined ? { model } : {}),
    inputTokens: integer(row, 'input_tokens'),
    outputTokens: integer(row, 'output_tokens'),
    cachedTokens: integer(row, 'cached_tokens'),
    cacheWriteTokens: integer(row, 'cache_write_tokens'),
    estimated: integer(row, 'estimated') !== 0,
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    createdAt: integer(row, 'created_at'),
  };
}
