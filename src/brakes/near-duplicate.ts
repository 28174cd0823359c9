import { distance } from 'fastest-levenshtein';
import { limitStop, type ActionOutcome, type Brake } from './brake.ts';

/** 1 − Levenshtein distance / the longer length: 1 is identical, 0 shares nothing. */
export function argsSimilarity(a: string, b: string): number {
  const longer = Math.max(a.length, b.length);
  return longer === 0 ? 1 : 1 - distance(a, b) / longer;
}

const short = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}…` : s);

/** Blocks an action whose canonical arguments are at least `threshold` similar to an earlier call of the
 *  same tool — but not identical: exact repeats are the spin brake's (`--max-repeat`). */
export function nearDuplicateBrake(threshold: number): Brake {
  return {
    name: 'near_duplicate',
    beforeAction: (s, a) => {
      let twin: ActionOutcome | null = null;
      let best = 0;
      for (const h of s.history) {
        if (h.tool !== a.tool || h.argsJson === a.argsJson) continue;
        const sim = argsSimilarity(a.argsJson, h.argsJson);
        if (sim > best) [best, twin] = [sim, h];
      }
      if (!twin || best < threshold) return null;
      const earlier = twin;
      return limitStop(
        'spin',
        { brake: 'near_duplicate', value: Number(best.toFixed(3)), limit: threshold },
        s.steps,
        (f) =>
          `near-duplicate: ${short(a.fingerprint)} is ${f.value} similar to step ${earlier.step}'s ${short(earlier.fingerprint)} (threshold ${f.limit}); blocked at step ${s.steps}`,
      );
    },
  };
}
