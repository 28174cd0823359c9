import type { Brake } from './brake.ts';

const usd = (x: number) => `$${x.toFixed(4)}`;

/** Never lets a run exceed its budget: stops when the next call, at its worst case, would cross it. */
export function maxCostBrake(limitUsd: number): Brake {
  return {
    name: 'max_cost',
    beforeCall: (s, next) =>
      s.costUsd + next.projectedCostUsd > limitUsd
        ? {
            reason: 'max_cost',
            detail: `budget ${usd(limitUsd)}: spent ${usd(s.costUsd)}, next call could cost up to ${usd(next.projectedCostUsd)} (${next.inputTokens} input + ${next.maxOutputTokens} max output tokens)`,
            step: s.steps,
          }
        : null,
  };
}
