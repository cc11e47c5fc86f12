/**
 * Server-sent events, parsed as the WHATWG spec says, because model servers differ in the
 * details: `\r\n` or `\n` or `\r` line ends, `:` comment lines used as keep-alives, several
 * `data:` lines in one event, and network chunks that split a line (or a `\r\n`) anywhere.
 */

export interface ServerSentEvent {
  /** The `event:` field; `message` when absent. */
  readonly event: string;
  /** The `data:` lines joined with `\n`. */
  readonly data: string;
}

/** Incremental parser: feed it text as it arrives, collect the events that completed. */
export class SseParser {
  private buffer = '';
  /** A chunk ended in `\r`: a `\n` at the start of the next chunk belongs to the same line end. */
  private pendingCarriageReturn = false;
  private event = '';
  private data: string[] = [];

  push(text: string): ServerSentEvent[] {
    if (text === '') return [];
    let input = text;
    if (this.pendingCarriageReturn && input.startsWith('\n')) input = input.slice(1);
    this.pendingCarriageReturn = false;
    this.buffer += input;
    const events: ServerSentEvent[] = [];
    const lineEnds = /\r\n|\r|\n/g;
    let start = 0;
    for (let match = lineEnds.exec(this.buffer); match; match = lineEnds.exec(this.buffer)) {
      const event = this.line(this.buffer.slice(start, match.index));
      if (event) events.push(event);
      start = lineEnds.lastIndex;
    }
    this.pendingCarriageReturn = this.buffer.endsWith('\r');
    this.buffer = this.buffer.slice(start);
    return events;
  }

  /**
   * The stream ended. Unlike a browser, this still dispatches an event the stream ended in the
   * middle of: some servers omit the blank line after their last event.
   */
  end(): ServerSentEvent[] {
    const events: ServerSentEvent[] = [];
    if (this.buffer.length > 0) {
      const event = this.line(this.buffer);
      if (event) events.push(event);
      this.buffer = '';
    }
    const last = this.dispatch();
    if (last) events.push(last);
    return events;
  }

  private line(line: string): ServerSentEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    return undefined;
  }

  private dispatch(): ServerSentEvent | undefined {
    const data = this.data;
    const event = this.event || 'message';
    this.data = [];
    this.event = '';
    if (data.length === 0) return undefined;
    return { event, data: data.join('\n') };
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
