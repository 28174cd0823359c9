import type { Brake } from './brake.ts';

/** BabyAGI's iteration cap: checked when a round would start, so a round is never cut in half. */
export function maxRoundsBrake(limit: number): Brake {
  return {
    name: 'max_rounds',
    beforeRound: (s) =>
      s.rounds >= limit ? { reason: 'max_rounds', detail: `round limit reached: ${s.rounds} of ${limit} rounds done`, step: s.steps } : null,
  };
}
