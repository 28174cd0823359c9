/** Mean of a list (0 for none). */
export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** Percentile by linear interpolation between closest ranks (p in 0..100). */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

export interface Spread {
  mean: number;
  p50: number;
  p95: number;
  max: number;
}

export function spread(xs: readonly number[]): Spread {
  return { mean: mean(xs), p50: percentile(xs, 50), p95: percentile(xs, 95), max: xs.length ? Math.max(...xs) : 0 };
}
