import type { Brake } from './brake.ts';

/** An action already executed `maxRepeat` times is not executed again: the run stops as `spin`. */
export function spinBrake(maxRepeat: number): Brake {
  return {
    name: 'spin',
    beforeAction: (s, a) => {
      const seen = s.repeats.get(a.fingerprint) ?? 0;
      return seen >= maxRepeat
        ? {
            reason: 'spin',
            detail: `spin: ${a.fingerprint} already ran ${seen} times (max repeat ${maxRepeat}); repeat ${seen + 1} blocked at step ${s.steps}`,
            step: s.steps,
          }
        : null;
    },
  };
}
