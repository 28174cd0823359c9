import { isAgentStep, limitStop, type Brake } from './brake.ts';

export function maxStepsBrake(limit: number): Brake {
  return {
    name: 'max_steps',
    beforeCall: (s, next) =>
      isAgentStep(next.role) && s.steps >= limit
        ? limitStop(
            'max_steps',
            { brake: 'max_steps', value: s.steps, limit },
            s.steps,
            (f) => `step limit reached: ${f.value} of ${f.limit} steps taken`,
          )
        : null,
  };
}
