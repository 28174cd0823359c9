import { z } from 'zod';

/**
 * Upper bounds for numbers a data file may draw from. Beyond them a simulation would only write
 * ever longer text until memory runs out; no real model answers or waits longer.
 */
export const MAX_DRAWN_TOKENS = 100_000;
export const MAX_DRAWN_MS = 600_000;

/** A number, or a normal distribution drawn per use (clamped at `min`), each part within [0, max]. */
export function boundedDist(max: number) {
  const n = z.number().nonnegative().max(max);
  return z.union([n, z.object({ mean: n, sd: n, min: n.optional() }).strict()]);
}

/** A length in tokens. */
export const Dist = boundedDist(MAX_DRAWN_TOKENS);
export type Dist = z.infer<typeof Dist>;
/** A latency in milliseconds. */
export const LatencyDist = boundedDist(MAX_DRAWN_MS);
