import type { Brake } from './brake.ts';

/** Checked before each model call, on the run's clock (virtual for simulated models). */
export function timeoutBrake(limitS: number): Brake {
  return {
    name: 'timeout',
    beforeCall: (s) =>
      s.elapsedMs >= limitS * 1000
        ? { reason: 'timeout', detail: `timeout ${limitS} s: ${(s.elapsedMs / 1000).toFixed(1)} s elapsed`, step: s.steps }
        : null,
  };
}
