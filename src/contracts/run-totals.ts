// What a run has spent so far: the brakes read it before each call; the run ledger (meter/ledger.ts)
// is the only code that adds to it and makes the run record of it.
export interface RunTotals {
  /** Agent steps taken (act/execute calls). */
  steps: number;
  /** All model calls made, whatever their role. */
  calls: number;
  rounds: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  /** Input tokens written to a prompt cache (within inputTokens). */
  cacheWriteTokens: number;
  /** Of those, the ones written to the 1-hour cache. */
  cacheWrite1hTokens: number;
  /** Output tokens spent on reasoning (within outputTokens). */
  reasoningTokens: number;
  costUsd: number;
  /** Run clock after the last call. */
  elapsedMs: number;
}

export const noTotals = (): RunTotals => ({
  steps: 0,
  calls: 0,
  rounds: 0,
  inputTokens: 0,
  outputTokens: 0,
  cachedTokens: 0,
  cacheWriteTokens: 0,
  cacheWrite1hTokens: 0,
  reasoningTokens: 0,
  costUsd: 0,
  elapsedMs: 0,
});
