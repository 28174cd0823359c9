import { limitStop, type Brake } from './brake.ts';

/** Checked before each model call, on the run's clock (virtual for simulated models). Value and limit in seconds. */
export function timeoutBrake(limitS: number): Brake {
  return {
    name: 'timeout',
    beforeCall: (s) =>
      s.elapsedMs >= limitS * 1000
        ? limitStop(
            'timeout',
            { brake: 'timeout_s', value: s.elapsedMs / 1000, limit: limitS },
            s.steps,
            (f) => `timeout ${f.limit} s: ${f.value.toFixed(1)} s elapsed`,
          )
        : null,
  };
}
