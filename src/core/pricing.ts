/**
 * What a model request cost (issue 10 item 7), from the user's price table (`model.prices`,
 * US dollars per million tokens). Prices change and differ per vendor, so Zuno ships none:
 * a model without an entry has no cost, and the UI shows tokens only.
 */
export interface ModelPrice {
  /** Per million uncached input tokens. */
  readonly input: number;
  readonly output: number;
  /** Per million input tokens read from the cache; the input price when absent. */
  readonly cached_input?: number | undefined;
  /** Per million input tokens written to the cache (Anthropic); the input price when absent. */
  readonly cache_write?: number | undefined;
}

export interface PricedUsage {
  /** Every prompt token, cached ones included. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedTokens?: number | undefined;
  readonly cacheWriteTokens?: number | undefined;
}

/** The price for a model: its exact name, else the entry after a `vendor/` prefix (OpenRouter ids). */
export function priceFor(prices: Readonly<Record<string, ModelPrice>>, model: string | undefined): ModelPrice | undefined {
  if (model === undefined) return undefined;
  return prices[model] ?? prices[model.slice(model.lastIndexOf('/') + 1)];
}

/** US dollars for one request. */
export function costUsd(usage: PricedUsage, price: ModelPrice): number {
  const cached = usage.cachedTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, usage.inputTokens - cached - written);
  const dollars =
    uncached * price.input +
    cached * (price.cached_input ?? price.input) +
    written * (price.cache_write ?? price.input) +
    usage.outputTokens * price.output;
  return dollars / 1_000_000;
}

/** Dollars with enough digits to tell small requests apart: $0.0042, $1.23. */
export function formatUsd(dollars: number): string {
  return `$${dollars < 1 ? dollars.toFixed(4) : dollars.toFixed(2)}`;
}
