import type { Brake } from './brake.ts';

export function maxCallsBrake(limit: number): Brake {
  return {
    name: 'max_calls',
    beforeCall: (s) =>
      s.calls >= limit ? { reason: 'max_calls', detail: `model-call limit reached: ${s.calls} of ${limit} calls made`, step: s.steps } : null,
  };
}
