import { isAgentStep, type Brake } from './brake.ts';

export function maxStepsBrake(limit: number): Brake {
  return {
    name: 'max_steps',
    beforeCall: (s, next) =>
      isAgentStep(next.role) && s.steps >= limit
        ? { reason: 'max_steps', detail: `step limit reached: ${s.steps} of ${limit} steps taken`, step: s.steps }
        : null,
  };
}
