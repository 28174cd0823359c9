import { limitStop, type Brake } from './brake.ts';

/** Total tokens (input + output) over the run; projected like the budget so it is never exceeded.
 *  The value it reports is the worst case after the next call. */
export function maxTokensBrake(limit: number): Brake {
  return {
    name: 'max_tokens',
    beforeCall: (s, next) => {
      const used = s.inputTokens + s.outputTokens;
      const worst = used + next.inputTokens + next.maxOutputTokens;
      return worst > limit
        ? limitStop(
            'max_tokens',
            { brake: 'max_tokens', value: worst, limit },
            s.steps,
            (f) => `token limit ${f.limit}: ${used} used, next call could bring it to ${f.value}`,
          )
        : null;
    },
  };
}
