import { limitStop, type Brake } from './brake.ts';

/** Blocks a tool whose last `maxSame` calls all failed the same way (the same error line), whatever the arguments. */
export function sameErrorBrake(maxSame: number): Brake {
  return {
    name: 'same_error',
    beforeAction: (s, a) => {
      const last = s.history.filter((h) => h.tool === a.tool).slice(-maxSame);
      const failure = last[0]?.failure;
      if (last.length < maxSame || !failure || last.some((h) => h.failure !== failure)) return null;
      return limitStop(
        'spin',
        { brake: 'max_same_error', value: last.length, limit: maxSame },
        s.steps,
        (f) =>
          `same error: ${a.tool} failed ${f.value} times in a row with "${failure}" (max same error ${f.limit}); blocked at step ${s.steps}`,
      );
    },
  };
}
