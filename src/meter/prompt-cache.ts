// Prompt caching as OpenAI bills it: a prompt prefix identical to a recent request is cached
// once it reaches 1,024 tokens, and cache hits grow in 128-token increments.
export const CACHE_MIN_TOKENS = 1024;
export const CACHE_INCREMENT = 128;

export function billableCachedTokens(sharedPrefixTokens: number): number {
  if (sharedPrefixTokens < CACHE_MIN_TOKENS) return 0;
  return CACHE_MIN_TOKENS + Math.floor((sharedPrefixTokens - CACHE_MIN_TOKENS) / CACHE_INCREMENT) * CACHE_INCREMENT;
}
