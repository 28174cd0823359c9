// The one definition of a sample quantile: linear interpolation between the closest ranks (Hyndman–Fan
// type 7, R's default, NumPy's "linear"), and the order statistic that picks a middle item.

/** The q-quantile (q in 0..1) of values sorted ascending; 0 for none. */
export function quantileOfSorted(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return 0;
  const rank = q * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  // Equal neighbours (infinite ones included, where the difference would be NaN) need no interpolating.
  if (sorted[lo] === sorted[hi]) return sorted[lo]!;
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

/** The q-quantile (q in 0..1) of a list, in any order; 0 for none. */
export function quantile(xs: readonly number[], q: number): number {
  return quantileOfSorted(Float64Array.from(xs).sort(), q);
}

/** The median of a list, in any order (interpolated between the middle two of an even count); 0 for none. */
export const median = (xs: readonly number[]): number => quantile(xs, 0.5);

/** The item whose key is the median; of an even count, the lower middle one (an item, never an average of two). */
export function medianItem<T>(items: readonly T[], key: (item: T) => number): T {
  if (items.length === 0) throw new RangeError('medianItem: no items');
  const sorted = [...items].sort((a, b) => key(a) - key(b));
  return sorted[Math.ceil(sorted.length / 2) - 1]!;
}
