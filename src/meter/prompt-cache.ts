// Prompt caching as OpenAI bills it: a prompt prefix identical to a recent request is cached
// once it reaches 1,024 tokens, and cache hits grow in 128-token increments. Anthropic's, below.
import type { CacheBilling } from '../contracts/sim-server.ts';
import type { Price } from '../contracts/settings.ts';

export const CACHE_MIN_TOKENS = 1024;
export const CACHE_INCREMENT = 128;

/** A simulated model priced as a model that bills cache writes (Anthropic's) caches as that provider does. */
export const cacheBillingFor = (price: { cache_write_per_1m?: number }): CacheBilling =>
  price.cache_write_per_1m !== undefined ? 'anthropic' : 'openai';

/**
 * The same rule per request, for a server that bills nothing itself (standalone `bench serve`) or prices each
 * run as the model it names (the gateway): by the price `priceOf` finds for the model a request names (the
 * table's, under any of its spellings); a name it prices not, as `fallback` (OpenAI's by default).
 */
export const cacheBillingByModel =
  (priceOf: (model: string) => Price | undefined, fallback: CacheBilling = 'openai') =>
  (model: string): CacheBilling => {
    const price = priceOf(model);
    return price ? cacheBillingFor(price) : fallback;
  };

/**
 * Prompt caching as Anthropic bills it for an agent that marks the end of each prompt for caching (as
 * Claude Code and the SDKs' tool runners do): the prefix an earlier call wrote is read whole once it
 * reaches 1,024 tokens, and the rest of a prompt of at least 1,024 tokens is written to the 5-minute cache.
 */
export function anthropicCacheUsage(
  sharedPrefixTokens: number,
  promptTokens: number,
): { cached: number; written: number } {
  const cached = sharedPrefixTokens >= CACHE_MIN_TOKENS ? Math.min(sharedPrefixTokens, promptTokens) : 0;
  return { cached, written: promptTokens >= CACHE_MIN_TOKENS ? promptTokens - cached : 0 };
}

export function billableCachedTokens(sharedPrefixTokens: number): number {
  if (sharedPrefixTokens < CACHE_MIN_TOKENS) return 0;
  return CACHE_MIN_TOKENS + Math.floor((sharedPrefixTokens - CACHE_MIN_TOKENS) / CACHE_INCREMENT) * CACHE_INCREMENT;
}
