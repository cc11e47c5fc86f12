// Model streams that go quiet end the attempt with a clear, retryable error instead of hanging
// `zuno exec` forever (issue 10 item 6, SPEC §9 "Models"). Real loopback servers, both protocols.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnthropicProvider } from '../../../src/agent/anthropic';
import { OpenAIProvider } from '../../../src/agent/openai';
import { ProviderError, type HttpProviderOptions, type ModelProvider } from '../../../src/agent/provider';

const IDLE_MS = 300;

async function loopback(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ baseUrl: string; requests: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server = createServer((request, response) => {
    count++;
    request.resume();
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function options(baseUrl: string, attempts = 2): HttpProviderOptions {
  return {
    baseUrl,
    model: 'm',
    apiKey: { key: undefined, envVar: undefined },
    retry: { attempts, baseDelayMs: 1 },
    idleTimeoutMs: IDLE_MS,
  };
}

async function streamOnce(provider: ModelProvider, signal = new AbortController().signal): Promise<unknown> {
  return provider.stream({ system: '', messages: [{ role: 'user', content: 'hi' }], tools: [], signal }, () => undefined);
}

const providers: readonly [string, (baseUrl: string, attempts?: number) => ModelProvider][] = [
  ['openai', (baseUrl, attempts) => new OpenAIProvider(options(baseUrl, attempts))],
  ['anthropic', (baseUrl, attempts) => new AnthropicProvider(options(baseUrl, attempts))],
];

for (const [name, make] of providers) {
  test(`issue 10 item 6 (${name}): headers then silence ends each attempt with a retryable idle error, retried, then reported`, async (context) => {
    const server = await loopback((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
    });
    context.after(server.close);
    await assert.rejects(streamOnce(make(server.baseUrl, 2)), (error: unknown) => {
      assert.ok(error instanceof ProviderError);
      assert.match(error.message, /sent no complete stream event for 0\.3 s \(model\.idle_timeout_ms\)/);
      assert.match(error.message, /raise model\.idle_timeout_ms/);
      assert.match(error.message, /Gave up after 2 attempts/);
      return true;
    });
    assert.equal(server.requests(), 2, 'the idle failure is transient, so it was retried once');
  });

  test(`issue 10 item 6 (${name}): a byte every 50 ms that never completes an event still times out`, async (context) => {
    const timers = new Set<ReturnType<typeof setInterval>>();
    const server = await loopback((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {');
      const timer = setInterval(() => response.write('x'), 50);
      timers.add(timer);
      response.on('close', () => clearInterval(timer));
    });
    context.after(async () => {
      for (const timer of timers) clearInterval(timer);
      await server.close();
    });
    const error = await streamOnce(make(server.baseUrl, 1)).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    assert.ok(error instanceof ProviderError, String(error));
    assert.equal(error.transient, true);
    assert.match(error.message, /no complete stream event/);
  });
}

test('issue 10 item 6: a slow stream whose events keep coming is not cut, though it lasts longer than the idle timeout', async (context) => {
  const events = 12;
  const server = await loopback((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    let sent = 0;
    const timer = setInterval(() => {
      sent++;
      if (sent <= events) {
        response.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: `${sent} ` }, finish_reason: null }] })}\n\n`);
        return;
      }
      clearInterval(timer);
      response.end(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`);
    }, IDLE_MS / 6);
    response.on('close', () => clearInterval(timer));
  });
  context.after(server.close);
  const answer = (await streamOnce(new OpenAIProvider(options(server.baseUrl, 1)))) as { text: string };
  assert.equal(answer.text, Array.from({ length: events }, (_, index) => `${index + 1} `).join(''));
});

test('issue 10 item 6: a cancel during a stall is a cancel, not an idle error', async (context) => {
  const server = await loopback((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.flushHeaders();
  });
  context.after(server.close);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  await assert.rejects(streamOnce(new OpenAIProvider(options(server.baseUrl, 1)), controller.signal), (error: unknown) => {
    assert.ok(!(error instanceof ProviderError), 'not reported as a provider failure');
    return true;
  });
});
