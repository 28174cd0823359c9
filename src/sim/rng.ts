// Deterministic randomness for simulated models: every draw is a pure function of the run's seed
// and a key (step, purpose), so a sim is stateless and gives the same answer in process and
// behind `bench serve`.

import { hash32 } from '../contracts/hash.ts';
import { mulberry32, type Rng } from '../stats/random.ts';

export type { Rng };
export { normal } from '../stats/random.ts';

/** mulberry32 seeded from the hash of the key parts. */
export function rng(...key: Array<string | number>): Rng {
  return mulberry32(hash32(key.join('\u0001')));
}

export { hash32 };
