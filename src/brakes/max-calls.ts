import { limitStop, type Brake } from './brake.ts';

export function maxCallsBrake(limit: number): Brake {
  return {
    name: 'max_calls',
    beforeCall: (s) =>
      s.calls >= limit
        ? limitStop(
            'max_calls',
            { brake: 'max_calls', value: s.calls, limit },
            s.steps,
            (f) => `model-call limit reached: ${f.value} of ${f.limit} calls made`,
          )
        : null,
  };
}
