/**
 * The workspace's memories (issue 9 layout): `memories.jsonl`, an append-only log of changes
 * (propose, accept, delete), folded on read. Every process of the workspace may write it, and
 * sessions no longer share a writer, so each change is one line appended with O_APPEND, which
 * the OS keeps whole and in order between processes. Memories are few and short (at most
 * MAX_MEMORY_LENGTH characters each), so reading the log whole is cheap.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, fdatasyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { WorkStateError } from './errors';
import type { MemoryRow } from './rows';
import type { MemoryStatus } from './schema';

/** The longest memory text accepted: memories go into every later session's context. */
export const MAX_MEMORY_LENGTH = 2000;

type MemoryChange =
  | { readonly op: 'propose'; readonly id: string; readonly text: string; readonly createdAt: number; readonly sourceSessionId?: string }
  | { readonly op: 'accept'; readonly id: string; readonly acceptedAt: number }
  | { readonly op: 'delete'; readonly id: string };

function parseChange(line: string): MemoryChange | undefined {
  try {
    const value = JSON.parse(line) as Partial<Record<string, unknown>>;
    if (typeof value['id'] !== 'string') return undefined;
    if (value['op'] === 'propose' && typeof value['text'] === 'string' && typeof value['createdAt'] === 'number') {
      const source = value['sourceSessionId'];
      return {
        op: 'propose',
        id: value['id'],
        text: value['text'],
        createdAt: value['createdAt'],
        ...(typeof source === 'string' ? { sourceSessionId: source } : {}),
      };
    }
    if (value['op'] === 'accept' && typeof value['acceptedAt'] === 'number')
      return { op: 'accept', id: value['id'], acceptedAt: value['acceptedAt'] };
    if (value['op'] === 'delete') return { op: 'delete', id: value['id'] };
  } catch {
    // A torn last line (a crash mid-append) or a foreign line: skipped, see read().
  }
  return undefined;
}

export class MemoryLog {
  constructor(
    readonly path: string,
    private readonly readOnly: boolean,
    private readonly warn: (message: string) => void,
  ) {}

  /** The memories as the log leaves them, oldest first. */
  private read(): MemoryRow[] {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const memories = new Map<string, MemoryRow>();
    const lines = text.split('\n');
    lines.forEach((line, index) => {
      if (line === '') return;
      const change = parseChange(line);
      if (!change) {
        // The final line may be an append cut short by a crash, never acknowledged; others are damage.
        if (index < lines.length - 1)
          this.warn(`Skipping line ${index + 1} of ${this.path}: it is not a memory change. Remove the line to silence this warning.`);
        return;
      }
      if (change.op === 'propose') {
        // Two processes may propose the same text at once; the first one stands.
        if (![...memories.values()].some((memory) => memory.text === change.text)) {
          memories.set(change.id, {
            id: change.id,
            text: change.text,
            status: 'proposed',
            createdAt: change.createdAt,
            ...(change.sourceSessionId !== undefined ? { sourceSessionId: change.sourceSessionId } : {}),
          });
        }
      } else if (change.op === 'accept') {
        const memory = memories.get(change.id);
        if (memory && memory.status !== 'accepted')
          memories.set(change.id, { ...memory, status: 'accepted', acceptedAt: change.acceptedAt });
      } else memories.delete(change.id);
    });
    return [...memories.values()].sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  private append(change: MemoryChange): void {
    if (this.readOnly) throw new WorkStateError(`The memories in ${this.path} were opened read-only.`);
    // A torn line left by a crash would swallow this one: start on a fresh line when needed.
    let prefix = '';
    try {
      const existing = readFileSync(this.path);
      if (existing.length > 0 && existing[existing.length - 1] !== 0x0a) prefix = '\n';
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const fd = openSync(this.path, 'a');
    try {
      const buffer = Buffer.from(`${prefix}${JSON.stringify(change)}\n`, 'utf8');
      let written = 0;
      while (written < buffer.length) written += writeSync(fd, buffer, written, buffer.length - written);
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /** Stores a proposed memory. Proposing a text that is already stored returns the stored one. */
  propose(memoryText: string, sourceSessionId?: string): MemoryRow {
    const trimmed = typeof memoryText === 'string' ? memoryText.trim() : '';
    if (trimmed === '') throw new WorkStateError('The memory was not stored: its text is empty.');
    if (trimmed.length > MAX_MEMORY_LENGTH) {
      throw new WorkStateError(
        `The memory was not stored: it has ${trimmed.length} characters, and at most ${MAX_MEMORY_LENGTH} are allowed. Make it shorter.`,
      );
    }
    const existing = this.read().find((memory) => memory.text === trimmed);
    if (existing) return existing;
    const row: MemoryRow = {
      id: randomUUID(),
      text: trimmed,
      status: 'proposed',
      createdAt: Date.now(),
      ...(sourceSessionId !== undefined ? { sourceSessionId } : {}),
    };
    this.append({
      op: 'propose',
      id: row.id,
      text: row.text,
      createdAt: row.createdAt,
      ...(sourceSessionId !== undefined ? { sourceSessionId } : {}),
    });
    return row;
  }

  list(status?: MemoryStatus): MemoryRow[] {
    const all = this.read();
    return status === undefined ? all : all.filter((memory) => memory.status === status);
  }

  accept(id: string): MemoryRow {
    const existing = this.require(id);
    if (existing.status === 'accepted') return existing;
    const acceptedAt = Date.now();
    this.append({ op: 'accept', id, acceptedAt });
    return { ...existing, status: 'accepted', acceptedAt };
  }

  delete(id: string): void {
    this.require(id);
    this.append({ op: 'delete', id });
  }

  private require(id: string): MemoryRow {
    const row = this.read().find((memory) => memory.id === id);
    if (!row) throw new WorkStateError(`There is no memory with id "${id}". List the memories to see their ids.`);
    return row;
  }

  /** The lines that recreate `memories` (for the split of a pre-issue-9 store). */
  static linesFor(memories: readonly MemoryRow[]): string {
    return memories
      .flatMap((memory): MemoryChange[] => [
        {
          op: 'propose',
          id: memory.id,
          text: memory.text,
          createdAt: memory.createdAt,
          ...(memory.sourceSessionId !== undefined ? { sourceSessionId: memory.sourceSessionId } : {}),
        },
        ...(memory.status === 'accepted'
          ? [{ op: 'accept' as const, id: memory.id, acceptedAt: memory.acceptedAt ?? memory.createdAt }]
          : []),
      ])
      .map((change) => `${JSON.stringify(change)}\n`)
      .join('');
  }
}
