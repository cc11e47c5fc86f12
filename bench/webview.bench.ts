/**
 * The chat view's cost per streamed token does not grow with the transcript (issue 14, "Webview
 * performance stays as it is"): one `assistant-delta` applied to a transcript of 2,000 messages,
 * against the same at 10 messages, in the same run. The reducer is what runs per token in node;
 * the DOM side redraws only the one message whose version moved (media/virtual-list.ts).
 */
import type { ZunoEvent, ZunoEventBody } from '../src/core/events';
import { Transcript } from '../media/transcript';
import type { BenchResult } from './run';

const TOKENS = 5_000;
let clock = 0;
const event = (body: ZunoEventBody): ZunoEvent => ({ ...body, ts: ++clock, session_id: 'bench' });

/** A transcript of `messages` exchanges, with grouped reads and a shell card among them, then an open answer. */
function transcriptOf(messages: number): Transcript {
  const transcript = new Transcript();
  for (let index = 0; index < messages; index += 1) {
    transcript.apply(event({ type: 'user-message', text: `question ${index}` }));
    if (index % 10 === 0) {
      for (const read of ['a', 'b', 'c']) {
        transcript.apply(
          event({ type: 'tool-call-requested', call_id: `r${index}${read}`, tool: 'read', arguments: `{"path":"${read}.ts"}` }),
        );
        transcript.apply(
          event({ type: 'tool-call-finished', call_id: `r${index}${read}`, tool: 'read', outcome: 'ok', duration_ms: 1, truncated: false }),
        );
      }
      transcript.apply(event({ type: 'tool-call-requested', call_id: `s${index}`, tool: 'shell', arguments: '{"command":"npm test"}' }));
      transcript.apply(
        event({
          type: 'tool-call-finished',
          call_id: `s${index}`,
          tool: 'shell',
          outcome: 'error',
          duration_ms: 5,
          truncated: false,
          exit_code: 1,
        }),
      );
    }
    transcript.apply(event({ type: 'assistant-message', text: `answer ${index}` }));
  }
  transcript.apply(event({ type: 'user-message', text: 'one more' }));
  return transcript;
}

/** Microseconds per streamed token. */
function perToken(messages: number): number {
  const transcript = transcriptOf(messages);
  const deltas = Array.from({ length: TOKENS }, () => event({ type: 'assistant-delta', text: 'tok ' }));
  const started = process.hrtime.bigint();
  for (const delta of deltas) transcript.apply(delta);
  return Number(process.hrtime.bigint() - started) / 1_000 / TOKENS;
}

export default async function webview(): Promise<BenchResult[]> {
  perToken(10); // warm-up, so the first measurement does not pay for the JIT
  const small = Math.min(perToken(10), perToken(10), perToken(10));
  const large = Math.min(perToken(2_000), perToken(2_000), perToken(2_000));
  return [
    {
      name: 'one streamed token at 2,000 messages (view reducer)',
      value: large,
      unit: 'µs',
      baseline: { name: 'the same at 10 messages', value: small },
      detail: `${TOKENS} tokens per run, best of 3`,
    },
  ];
}
