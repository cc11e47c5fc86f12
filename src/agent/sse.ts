/**
 * Server-sent events, parsed by `eventsource-parser` (the WHATWG rules: `\r\n`, `\n` or `\r`
 * line ends, `:` keep-alive comments, several `data:` lines per event, lines split anywhere by
 * the network). It keeps an unfinished line as a list of fragments instead of rescanning it on
 * every chunk, so a 50 MB line costs time linear in its length (issue 10 item 6).
 */
import { createParser, type EventSourceParser } from 'eventsource-parser';

export interface ServerSentEvent {
  /** The `event:` field; `message` when absent. */
  readonly event: string;
  /** The `data:` lines joined with `\n`; never empty (an empty `data:` event is skipped). */
  readonly data: string;
}

/** Incremental parser: feed it text as it arrives, collect the events that completed. */
export class SseParser {
  private readonly parser: EventSourceParser;
  private completed: ServerSentEvent[] = [];

  constructor() {
    this.parser = createParser({
      onEvent: (event) => {
        // An empty `data:` event carries nothing a model client could use; some servers send one as a keep-alive.
        if (event.data !== '') this.completed.push({ event: event.event ?? 'message', data: event.data });
      },
      // Unknown fields (and a bad `retry:`) are ignored, as the SSE spec says a client must.
    });
  }

  push(text: string): ServerSentEvent[] {
    if (text !== '') this.parser.feed(text);
    return this.take();
  }

  /**
   * The stream ended. Unlike a browser, this still dispatches an event the stream ended in the
   * middle of: some servers omit the blank line after their last event. A pending `\r` from the
   * last chunk is a line end too, so the `\n\n` cannot become a third, spurious blank line.
   */
  end(): ServerSentEvent[] {
    this.parser.feed('\n\n');
    this.parser.reset();
    return this.take();
  }

  private take(): ServerSentEvent[] {
    const events = this.completed;
    this.completed = [];
    return events;
  }
}

/** Reads a response body as server-sent events. UTF-8 split across chunks is reassembled. */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const parser = new SseParser();
  const decoder = new TextDecoder('utf-8');
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    finished = true;
    yield* parser.push(decoder.decode());
    yield* parser.end();
  } finally {
    // A consumer that stops early (the answer is complete, or it was cancelled) closes the connection.
    if (!finished) await reader.cancel().catch(() => undefined);
  }
}
