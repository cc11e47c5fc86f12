/**
 * Waiting for the editor's settings to catch up with a write. `WorkspaceConfiguration.update`
 * can resolve before the extension host's copy of the settings changes (code-server and remote
 * hosts deliver the change as a separate message), so a value read right after a write may be
 * the old one. No `vscode` import here, so the waiting is unit-tested without an editor.
 */
export interface Subscription {
  dispose(): void;
}

/**
 * Resolves `true` once `holds()` is true, checked now and again on every `onChange`, or `false`
 * after `timeoutMs` (the caller then goes on with what it can read rather than hang).
 */
export function whenHolds(holds: () => boolean, onChange: (listener: () => void) => Subscription, timeoutMs: number): Promise<boolean> {
  if (holds()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const finish = (held: boolean): void => {
      clearTimeout(timer);
      subscription.dispose();
      resolve(held);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    const subscription = onChange(() => {
      if (holds()) finish(true);
    });
  });
}

/** Compares settings values as the settings file holds them (JSON), `undefined` meaning unset. */
export function sameSettingValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
