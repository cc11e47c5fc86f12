import type { MemoryCommand } from './args';
import { EXIT_OK, type CliProcess } from './process';
import { openCommandStore } from './workspace';

/** `zuno memory`: the user's side of memory_propose. It writes, so it takes the state dir's lock. */
export async function memory(command: MemoryCommand, io: CliProcess): Promise<number> {
  const { store } = await openCommandStore(command, io, command.action === 'list');
  try {
    if (command.action === 'list') {
      const memories = store.listMemories();
      if (command.json) io.stdout.write(`${JSON.stringify(memories, null, 2)}\n`);
      else if (memories.length === 0) io.stdout.write('No memories yet. With "memory": {"enabled": true}, the agent can propose some.\n');
      else for (const entry of memories) io.stdout.write(`${entry.id}  ${entry.status}  ${entry.text}\n`);
      return EXIT_OK;
    }
    const id = command.memoryId ?? '';
    if (command.action === 'accept') {
      const accepted = store.acceptMemory(id);
      io.stdout.write(command.json ? `${JSON.stringify(accepted)}\n` : `accepted ${accepted.id}: ${accepted.text}\n`);
    } else {
      store.deleteMemory(id);
      io.stdout.write(command.json ? `${JSON.stringify({ id, deleted: true })}\n` : `deleted ${id}\n`);
    }
    return EXIT_OK;
  } finally {
    await store.close();
  }
}
