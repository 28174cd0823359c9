// Columns of numbers that grow as they fill (a million steps' byte ranges, per-step sums): typed arrays
// hold them in a fraction of an array of numbers' memory, but do not grow by themselves.

type Column = Float64Array | Int32Array | Uint32Array;

/** A column of `size` of `a`'s type holding `a`'s values first, then `fill` (0 unless given). */
export function grownTo<A extends Column>(a: A, size: number, fill = 0): A {
  const b = new (a.constructor as new (n: number) => A)(size);
  b.set(a);
  if (fill !== 0) b.fill(fill, a.length);
  return b;
}
