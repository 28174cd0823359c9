// An answer's usage as sent, taken as counts: the same rule for every protocol and every reader.
import type { Usage } from '../contracts/chat.ts';
import type { SentUsage } from './adapter.ts';

import { isTokenCount as isCount } from '../contracts/counts.ts';

/** A token count as a provider sends one: a non-negative integer up to the ceiling every reader applies (contracts/counts.ts). */
export { isCount };

/**
 * A provider's usage as billed: null unless its prompt and completion are counts (an answer without
 * them is never priced as 0); the cached, cache-write and reasoning parts where they are counts.
 */
export function usageFrom(u: SentUsage | null): Usage | null {
  if (!u || !isCount(u.prompt) || !isCount(u.completion)) return null;
  const n = (v: unknown) => (isCount(v) ? v : 0);
  return {
    prompt_tokens: u.prompt,
    completion_tokens: u.completion,
    cached_tokens: n(u.cached),
    ...(n(u.cacheWrite) ? { cache_write_tokens: n(u.cacheWrite) } : {}),
    ...(n(u.cacheWrite1h) ? { cache_write_1h_tokens: n(u.cacheWrite1h) } : {}),
    ...(n(u.reasoning) ? { reasoning_tokens: n(u.reasoning) } : {}),
  };
}

/** Anthropic-style input: the uncached part and the cache reads and writes, added up when each is a count (else the input as sent, for the check to name). */
export function wholeInput(input: unknown, read: unknown, write: unknown): unknown {
  if (!isCount(input)) return input;
  return input + (isCount(read) ? read : 0) + (isCount(write) ? write : 0);
}
