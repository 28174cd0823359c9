// Student's t distribution: the CDF from the incomplete beta, quantiles by bisection.
import { bisect, incompleteBeta } from './special.ts';

/** P(T ≤ t) for Student's t with `df` degrees of freedom (df may be fractional, as Welch's is). */
export function studentTCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The t with P(T ≤ t) = p (the CDF is monotone, so bisection finds it). */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`studentTQuantile: p must be in (0, 1), got ${p}`);
  if (p === 0.5) return 0;
  // Symmetric: search the upper half only, where a relative tolerance means something.
  const upper = bisect((t) => studentTCdf(t, df), Math.max(p, 1 - p), 0, 1e7);
  return p > 0.5 ? upper : -upper;
}

/** The t value with P(|T| ≤ t) = level: 2.262 for df 9 at 95 %. */
export const tCritical = (df: number, level: number): number => studentTQuantile(1 - (1 - level) / 2, df);
