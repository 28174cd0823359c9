/** Mean of a list (0 for none). */
export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** Largest of a list (−Infinity for none), without spreading it into arguments: that overflows the stack past ~100,000 values. */
export function max(xs: readonly number[]): number {
  let m = -Infinity;
  for (const x of xs) if (x > m) m = x;
  return m;
}

/** Percentile by linear interpolation between closest ranks (p in 0..100). */
export function percentile(xs: readonly number[], p: number): number {
  return percentileOfSorted([...xs].sort((a, b) => a - b), p);
}

function percentileOfSorted(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
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
  // Sorted once for every percentile; no Math.max(...xs), which overflows the stack on large arrays.
  const sorted = Float64Array.from(xs).sort();
  return { mean: mean(xs), p50: percentileOfSorted(sorted, 50), p95: percentileOfSorted(sorted, 95), max: sorted.length ? sorted[sorted.length - 1]! : 0 };
}

export interface Box {
  min: number;
  q1: number;
  median: number;
  q3: number;
  max: number;
}

/** The five numbers a min-max box plot draws (quartiles as Vega-Lite computes them). */
export function box(xs: readonly number[]): Box {
  const sorted = Float64Array.from(xs).sort();
  const at = (p: number) => percentileOfSorted(sorted, p);
  return { min: at(0), q1: at(25), median: at(50), q3: at(75), max: at(100) };
}
