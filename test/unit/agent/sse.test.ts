// Server-sent events as model servers really send them (SPEC §9 "Models": every provider streams).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readServerSentEvents, SseParser, type ServerSentEvent } from '../../../src/agent/sse';

function parseInPieces(pieces: readonly string[]): ServerSentEvent[] {
  const parser = new SseParser();
  return [...pieces.flatMap((piece) => parser.push(piece)), ...parser.end()];
}

/** Every way of cutting `text` in two, so no boundary position is left untested. */
function everySplit(text: string): string[][] {
  return Array.from({ length: text.length + 1 }, (_, index) => [text.slice(0, index), text.slice(index)]);
}

test('§9 models, SSE: events survive being split at every possible byte position', () => {
  const stream = 'data: {"a":1}\n\ndata: {"b":2}\r\n\r\ndata: [DONE]\n\n';
  const expected = [
    { event: 'message', data: '{"a":1}' },
    { event: 'message', data: '{"b":2}' },
    { event: 'message', data: '[DONE]' },
  ];
  for (const pieces of everySplit(stream)) assert.deepEqual(parseInPieces(pieces), expected, `split as ${JSON.stringify(pieces)}`);
});

test('§9 models, SSE: a \\r\\n cut between its \\r and its \\n is one line end, not a blank line', () => {
  assert.deepEqual(parseInPieces(['data: one\r', '\ndata: two\r\n', '\r\n']), [{ event: 'message', data: 'one\ntwo' }]);
  // An empty network chunk between the halves changes nothing.
  assert.deepEqual(parseInPieces(['data: one\r', '', '\n\r\n']), [{ event: 'message', data: 'one' }]);
});

test('§9 models, SSE: a lone \\r ends a line, as the SSE spec allows', () => {
  assert.deepEqual(parseInPieces(['data: x\r\rdata: y\r\r']), [
    { event: 'message', data: 'x' },
    { event: 'message', data: 'y' },
  ]);
});

test('§9 models, SSE: comment lines (keep-alives) are ignored and several data lines join with \\n', () => {
  const events = parseInPieces([': keep-alive\n\n', 'event: content_block_delta\ndata: {"x":\ndata:1}\n: mid-event comment\n\n']);
  assert.deepEqual(events, [{ event: 'content_block_delta', data: '{"x":\n1}' }]);
});

test('§9 models, SSE: only one space after the colon is stripped; unknown fields and id/retry are ignored', () => {
  assert.deepEqual(parseInPieces(['id: 7\nretry: 10\nfoo: bar\ndata:  two spaces\ndata:none\n\n']), [
    { event: 'message', data: ' two spaces\nnone' },
  ]);
});

test('§9 models, SSE: an event without data is not dispatched, and the event name does not leak to the next one', () => {
  assert.deepEqual(parseInPieces(['event: ping\n\ndata: after\n\n']), [{ event: 'message', data: 'after' }]);
});

test('§9 models, SSE: a last event without its blank line is still delivered at the end of the stream', () => {
  assert.deepEqual(parseInPieces(['data: {"a":1}\n\ndata: [DONE]']), [
    { event: 'message', data: '{"a":1}' },
    { event: 'message', data: '[DONE]' },
  ]);
});

test('§9 models, SSE: a body stream reassembles UTF-8 characters split across network chunks', async () => {
  const bytes = new TextEncoder().encode('data: {"text":"héllo 🌍"}\n\n');
  // Cut inside the 4-byte emoji and inside the 2-byte é.
  const emoji = bytes.indexOf(0xf0);
  const cuts = [0, 12, emoji + 2, bytes.length];
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let index = 0; index + 1 < cuts.length; index++) controller.enqueue(bytes.slice(cuts[index], cuts[index + 1]));
      controller.close();
    },
  });
  const events: ServerSentEvent[] = [];
  for await (const event of readServerSentEvents(body)) events.push(event);
  assert.deepEqual(events, [{ event: 'message', data: '{"text":"héllo 🌍"}' }]);
});

test('§9 models, SSE: a consumer that stops early cancels the body', async () => {
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(new TextEncoder().encode('data: more\n\n'));
    },
    cancel() {
      cancelled = true;
    },
  });
  for await (const event of readServerSentEvents(body)) {
    assert.equal(event.data, 'more');
    break;
  }
  assert.equal(cancelled, true);
});

test('issue 10 item 6, SSE: an empty data: event is skipped, not delivered (and not an error for the JSON consumers)', () => {
  assert.deepEqual(parseInPieces(['data:\n\n', 'data: \n\n', 'data: {"a":1}\n\n']), [{ event: 'message', data: '{"a":1}' }]);
});

test('issue 10 item 6, SSE: a 50 MB single line arriving in 64 KiB network chunks is one event, whole', () => {
  // The scaling itself (linear, not quadratic) is measured in bench/sse.bench.ts; here the
  // content must come through intact, the line end split from the line as networks do.
  const payload = 'x'.repeat(50 * 1024 * 1024);
  const stream = `data: ${payload}\n\n`;
  const parser = new SseParser();
  const events: ServerSentEvent[] = [];
  for (let start = 0; start < stream.length; start += 65_536) events.push(...parser.push(stream.slice(start, start + 65_536)));
  events.push(...parser.end());
  assert.equal(events.length, 1);
  assert.equal(events[0]?.data.length, payload.length);
  assert.equal(events[0]?.data, payload);
});
