// Descriptive statistics of a configuration's runs: mean, largest, the spread a table prints, a box plot's five numbers.
import { quantileOfSorted } from '../../stats/quantile.ts';

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

export interface Spread {
  mean: number;
  p50: number;
  p95: number;
  max: number;
}

export function spread(xs: readonly number[]): Spread {
  // Sorted once for every percentile; no Math.max(...xs), which overflows the stack on large arrays.
  const sorted = Float64Array.from(xs).sort();
  return {
    mean: mean(xs),
    p50: quantileOfSorted(sorted, 0.5),
    p95: quantileOfSorted(sorted, 0.95),
    max: sorted.length ? sorted[sorted.length - 1]! : 0,
  };
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
  const at = (q: number) => quantileOfSorted(sorted, q);
  return { min: at(0), q1: at(0.25), median: at(0.5), q3: at(0.75), max: at(1) };
}
