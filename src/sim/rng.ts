// Deterministic randomness for simulated models: every draw is a pure function of the run's seed
// and a key (step, purpose), so a sim is stateless and gives the same answer in process and
// behind `bench serve`.

import { hash32 } from '../contracts/hash.ts';

export type Rng = () => number;

/** mulberry32 seeded from the hash of the key parts. */
export function rng(...key: Array<string | number>): Rng {
  let a = hash32(key.join('\u0001'));
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function normal(r: Rng, mean: number, sd: number): number {
  if (sd === 0) return mean;
  const u = 1 - r();
  const v = r();
  return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export { hash32 };
