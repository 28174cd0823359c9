import { limitStop, type Brake } from './brake.ts';

/** An action already executed `maxRepeat` times is not executed again: the run stops as `spin`. */
export function spinBrake(maxRepeat: number): Brake {
  return {
    name: 'spin',
    beforeAction: (s, a) => {
      const seen = s.repeats.get(a.fingerprint) ?? 0;
      return seen >= maxRepeat
        ? limitStop(
            'spin',
            { brake: 'max_repeat', value: seen, limit: maxRepeat },
            s.steps,
            (f) =>
              `spin: ${a.fingerprint} already ran ${f.value} times (max repeat ${f.limit}); repeat ${f.value + 1} blocked at step ${s.steps}`,
          )
        : null;
    },
  };
}
