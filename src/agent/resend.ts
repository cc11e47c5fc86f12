/**
 * Edit-and-resend and Retry (issue 14): the conversation continues from before one of the user's
 * messages, in a new session that holds everything before it. The old session stays as it was
 * (the store is append-only history), and nothing the later turns did is replayed: the caller
 * sends the new or same prompt as a fresh turn, whose calls ask and run like any other.
 */
import type { Store } from '../store/store';

export class ResendError extends Error {
  override readonly name = 'ResendError';
}

/**
 * A new session with the transcript and events before the user's `ordinal`-th message (0-based,
 * counting `user-message` events, which is what the chat shows as the user's messages). Returns
 * the new session's id.
 */
export function forkBeforeUserMessage(store: Store, sessionId: string, ordinal: number, workspace: string): string {
  const source = store.getSession(sessionId);
  if (source === undefined) throw new ResendError(`There is no session ${sessionId} in this workspace's store.`);
  const events = store.events(sessionId);
  const userEvents = events.flatMap((event, index) => (event.type === 'user-message' ? [{ index, text: event.text }] : []));
  const target = userEvents[ordinal];
  if (target === undefined)
    throw new ResendError(`The chat has ${userEvents.length} messages of yours; message ${ordinal + 1} is not one of them.`);

  // The transcript holds the same user messages in the same order, among notices the model was
  // given as user text; matching them by text, in order, finds where the message begins.
  const messages = store.messages(sessionId);
  let cut = -1;
  let searchFrom = 0;
  for (const { text } of userEvents.slice(0, ordinal + 1)) {
    const found = messages.findIndex((message, index) => index >= searchFrom && message.role === 'user' && message.content === text);
    if (found === -1) {
      throw new ResendError(
        'That message is no longer in what the model sees (the chat was compacted since): edit or retry a later message instead.',
      );
    }
    cut = found;
    searchFrom = found + 1;
  }

  const fork = store.createSession({ workspace, ...(source.title !== undefined ? { title: source.title } : {}) });
  for (const message of messages.slice(0, cut)) store.appendMessage(fork.id, message);
  // Checkpoints and rewinds stay with the session that took them, as in a restore's fork.
  const copied = events.slice(0, target.index).filter((event) => event.type !== 'checkpoint-created' && event.type !== 'rewind');
  for (const event of copied) store.recordEvent({ ...event, session_id: fork.id });
  // Not a run that stopped halfway: the chat would otherwise open with an "Interrupted" notice.
  store.setSessionStatus(fork.id, 'done');
  return fork.id;
}
