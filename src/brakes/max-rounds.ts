import { limitStop, type Brake } from './brake.ts';

/** BabyAGI's iteration cap: checked when a round would start, so a round is never cut in half. */
export function maxRoundsBrake(limit: number): Brake {
  return {
    name: 'max_rounds',
    beforeRound: (s) =>
      s.rounds >= limit
        ? limitStop(
            'max_rounds',
            { brake: 'max_rounds', value: s.rounds, limit },
            s.steps,
            (f) => `round limit reached: ${f.value} of ${f.limit} rounds done`,
          )
        : null,
  };
}
