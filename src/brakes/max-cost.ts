import { limitStop, type Brake } from './brake.ts';

const usd = (x: number) => `$${x.toFixed(4)}`;

/** Never lets a run exceed its budget: stops when the next call, at its worst case, would cross it.
 *  The value it reports is what the run would have spent after that call. */
export function maxCostBrake(limitUsd: number): Brake {
  return {
    name: 'max_cost',
    beforeCall: (s, next) =>
      s.costUsd + next.projectedCostUsd > limitUsd
        ? limitStop(
            'max_cost',
            { brake: 'max_cost_usd', value: s.costUsd + next.projectedCostUsd, limit: limitUsd },
            s.steps,
            (f) =>
              `budget ${usd(f.limit)}: spent ${usd(s.costUsd)}, next call could cost up to ${usd(next.projectedCostUsd)} (${next.inputTokens} input + ${next.maxOutputTokens} max output tokens)`,
          )
        : null,
  };
}
