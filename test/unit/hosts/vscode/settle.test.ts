import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sameSettingValue, whenHolds, type Subscription } from '../../../../src/hosts/vscode/settle';

/** A settings store whose change event fires later than the write, as a remote extension host's does. */
function laggingSettings(): { value: unknown; fire(): void; listeners: number; subscribe: (listener: () => void) => Subscription } {
  const listeners = new Set<() => void>();
  return {
    value: undefined,
    fire: () => {
      for (const listener of [...listeners]) listener();
    },
    get listeners() {
      return listeners.size;
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return { dispose: () => listeners.delete(listener) };
    },
  };
}

// A1 (issue 4, "Commands"): a command that writes a setting waits until the extension host reads it
// back (E2E-7 reopened Toggle Tools with the old value still checked).
test('A1: waiting for a settings write resolves at once when the value already reads back', async () => {
  const settings = laggingSettings();
  settings.value = { webfetch: false };
  assert.equal(await whenHolds(() => sameSettingValue(settings.value, { webfetch: false }), settings.subscribe, 1000), true);
  assert.equal(settings.listeners, 0, 'nothing left subscribed');
});

test('A1: waiting for a settings write goes on past unrelated changes for the change that carries the value, then stops listening', async () => {
  const settings = laggingSettings();
  const waiting = whenHolds(() => sameSettingValue(settings.value, { webfetch: false }), settings.subscribe, 10_000);
  let done = false;
  void waiting.then(() => (done = true));
  settings.value = { other: true };
  settings.fire();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(done, false, 'a change that does not carry the written value does not end the wait');
  settings.value = { webfetch: false };
  settings.fire();
  assert.equal(await waiting, true);
  assert.equal(settings.listeners, 0);
});

test('A1: waiting for a settings write gives up after the timeout with false rather than hang a command', async () => {
  const settings = laggingSettings();
  assert.equal(await whenHolds(() => settings.value === 'never', settings.subscribe, 20), false);
  assert.equal(settings.listeners, 0);
});

test('A1: settings values compare as JSON: unset equals unset, nested objects by content', () => {
  assert.equal(sameSettingValue(undefined, undefined), true);
  assert.equal(sameSettingValue({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), true);
  assert.equal(sameSettingValue({ a: 1 }, undefined), false);
  assert.equal(sameSettingValue('strict', 'auto'), false);
});
