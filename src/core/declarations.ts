/**
 * The three independent declarations every tool carries (SPEC T1). They are kept apart on
 * purpose: whether a call may overlap others says nothing about whether it may be retried.
 */

export const EFFECTS = ['ReadOnly', 'UserMediated', 'Delegating', 'SideEffecting'] as const;
export type Effect = (typeof EFFECTS)[number];

export const REPLAYS = ['Never', 'Safe'] as const;
export type Replay = (typeof REPLAYS)[number];

export const CONCURRENCIES = ['Exclusive', 'ParallelSafe', 'IsolatedBackground'] as const;
export type Concurrency = (typeof CONCURRENCIES)[number];

export interface Declarations {
  readonly effect: Effect;
  readonly replay: Replay;
  readonly concurrency: Concurrency;
}

/** SPEC T2: a tool that declares nothing gets the strictest value of each. */
export const STRICTEST_DECLARATIONS: Declarations = Object.freeze({
  effect: 'SideEffecting',
  replay: 'Never',
  concurrency: 'Exclusive',
});

/** Fills whatever a tool left undeclared with the strictest value (T2). */
export function completeDeclarations(partial: Partial<Declarations> | undefined): Declarations {
  return {
    effect: partial?.effect ?? STRICTEST_DECLARATIONS.effect,
    replay: partial?.replay ?? STRICTEST_DECLARATIONS.replay,
    concurrency: partial?.concurrency ?? STRICTEST_DECLARATIONS.concurrency,
  };
}
