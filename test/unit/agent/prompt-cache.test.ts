// Prompt caching (issue 10 item 5): Anthropic `cache_control` breakpoints on the system prompt, the
// tools and the last user turns, against a scripted server that caches by those breakpoints as the
// API does (and refuses more than four), so a session pays for its prefix once; and a prefix that
// stays the same from step to step, which automatic caching (OpenAI-style) relies on.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnthropicProvider } from '../../../src/agent/anthropic';
import type { ModelProvider } from '../../../src/agent/provider';
import { createRuntime } from '../../../src/agent/runtime';
import { parseConfig } from '../../../src/core/config';
import type { ZunoEvent } from '../../../src/core/events';
import { createNodeHost } from '../../../src/hosts/node/host';
import { builtinToolRegistrations } from '../../../src/tools/index';
import { cacheBreakpoints, startScriptedAnthropic } from '../../support/scripted-anthropic';

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function run(provider: ModelProvider): Promise<{ reason: string; error?: Error; events: ZunoEvent[] }> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-cache-')));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const workspace = join(root, 'workspace');
  const stateDir = join(root, 'state');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'a.txt'), 'alpha\n'.repeat(200));
  writeFileSync(join(workspace, 'b.txt'), 'beta\n'.repeat(200));
  const runtime = await createRuntime({
    config: parseConfig({}),
    workspaceRoot: workspace,
    stateDir,
    host: createNodeHost({ stateDir, approvals: { request: async () => ({ approved: true }) } }),
    registrations: builtinToolRegistrations().filter((registration) => ['read', 'grep', 'glob'].includes(registration.tool.name)),
  });
  cleanups.push(() => runtime.close());
  const events: ZunoEvent[] = [];
  runtime.events.on((event) => events.push(event));
  const result = await runtime.run({
    provider,
    prompt: 'read a.txt, then b.txt',
    signal: new AbortController().signal,
  });
  return { reason: result.reason, ...(result.error ? { error: result.error } : {}), events };
}

test('issue 10 item 5: Anthropic requests mark the system prompt, the tools and the last user turns; each step reads the prefix the step before wrote', async () => {
  const server = await startScriptedAnthropic({
    simulateCache: true,
    script: [
      { toolCalls: [{ id: 'toolu_a', name: 'read', arguments: { path: 'a.txt' } }] },
      { toolCalls: [{ id: 'toolu_b', name: 'read', arguments: { path: 'b.txt' } }] },
      { text: 'Both read.' },
    ],
  });
  cleanups.push(() => server.close());
  const result = await run(
    new AnthropicProvider({
      baseUrl: server.baseUrl,
      model: 'claude-scripted',
      apiKey: { key: 'k', envVar: undefined },
      retry: { attempts: 1, baseDelayMs: 1 },
    }),
  );
  assert.equal(result.reason, 'done', result.error?.message);
  assert.deepEqual(server.violations, []);

  for (const request of server.requests) {
    const marks = cacheBreakpoints(request.body).length;
    assert.ok(marks >= 3 && marks <= 4, `${marks} breakpoints: system, tools and the last user turns, at most the API's four`);
  }
  const [first, second, third] = server.requests;
  assert.deepEqual(first?.body.system, second?.body.system, 'the system prompt is the same on every step: no timestamps');
  assert.deepEqual(second?.body.system, third?.body.system);

  const usage = result.events.filter((event): event is Extract<ZunoEvent, { type: 'usage' }> => event.type === 'usage');
  assert.equal(usage.length, 3);
  assert.equal(usage[0]?.cached_tokens, undefined, 'nothing to read on the first request');
  assert.ok((usage[0]?.cache_write_tokens ?? 0) > 0, 'the first request writes its prefix');
  // Each later request reads at least everything the one before sent (its last user turn was marked).
  for (const index of [1, 2]) {
    const previousInput = usage[index - 1]?.input_tokens ?? 0;
    assert.ok(
      (usage[index]?.cached_tokens ?? 0) >= previousInput * 0.9,
      `request ${index + 1} read ${usage[index]?.cached_tokens} of the ${previousInput} sent before`,
    );
  }
});
