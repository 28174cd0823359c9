// Seeded randomness: the same seed gives the same draws on every machine, so anything built on it
// (simulated models, bootstrap intervals) rebuilds byte-identical.

export type Rng = () => number;

/** mulberry32: a 32-bit state, uniform draws in [0, 1). */
export function mulberry32(seed: number): Rng {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A normal draw (Box–Muller). */
export function normal(r: Rng, mean: number, sd: number): number {
  if (sd === 0) return mean;
  const u = 1 - r();
  const v = r();
  return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
