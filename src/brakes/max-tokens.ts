import type { Brake } from './brake.ts';

/** Total tokens (input + output) over the run; projected like the budget so it is never exceeded. */
export function maxTokensBrake(limit: number): Brake {
  return {
    name: 'max_tokens',
    beforeCall: (s, next) => {
      const used = s.inputTokens + s.outputTokens;
      const worst = used + next.inputTokens + next.maxOutputTokens;
      return worst > limit
        ? { reason: 'max_tokens', detail: `token limit ${limit}: ${used} used, next call could bring it to ${worst}`, step: s.steps }
        : null;
    },
  };
}
