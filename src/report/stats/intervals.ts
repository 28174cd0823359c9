// 95% intervals for what the reports compare: a mean (Student t), a difference of means (Welch) and a
// difference of proportions (Newcombe's hybrid score interval from two Wilson intervals). A proportion's
// (Wilson) is in src/stats/binomial.ts, cost per successful task's in cost-per-success.ts.
import { wilson, Z95 } from '../../stats/binomial.ts';
import { tCritical } from '../../stats/student-t.ts';
import { mean } from './descriptive.ts';

export interface Interval {
  lo: number;
  hi: number;
}

/** The level of every interval the reports print, and of the rules that read them (the recommendation, --repeat auto). */
export const CONFIDENCE = 0.95;

/**
 * The two-sided normal quantile at CONFIDENCE, Φ⁻¹(0.975) (1.96 is its rounding), for the score intervals
 * (Wilson, Newcombe). Tied to CONFIDENCE by a test, not by a second literal.
 */
export const Z = Z95;

/** The sample variance (n − 1 in the denominator). */
export const sampleVariance = (xs: readonly number[], m = mean(xs)) =>
  xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);

/** Mean with its Student t 95% interval; the interval is null below two values (no spread to estimate). */
export function meanInterval(xs: readonly number[]): { mean: number; ci: Interval | null } {
  const m = mean(xs);
  if (xs.length < 2) return { mean: m, ci: null };
  const half = tCritical(xs.length - 1, CONFIDENCE) * Math.sqrt(sampleVariance(xs, m) / xs.length);
  return { mean: m, ci: { lo: m - half, hi: m + half } };
}

/** mean(b) − mean(a) with Welch's 95% interval (unequal variances); null interval below two values a side. */
export function welchDifference(a: readonly number[], b: readonly number[]): { diff: number; ci: Interval | null } {
  const diff = mean(b) - mean(a);
  if (a.length < 2 || b.length < 2) return { diff, ci: null };
  const va = sampleVariance(a) / a.length;
  const vb = sampleVariance(b) / b.length;
  const se = Math.sqrt(va + vb);
  // Both sides constant (a deterministic model): the difference is exact.
  if (se === 0) return { diff, ci: { lo: diff, hi: diff } };
  const df = (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
  const half = tCritical(df, CONFIDENCE) * se;
  return { diff, ci: { lo: diff - half, hi: diff + half } };
}

/** p_b − p_a with Newcombe's hybrid score 95% interval (method 10), built from each side's Wilson interval. */
export function proportionDifference(ka: number, na: number, kb: number, nb: number): { diff: number; ci: Interval } {
  const [pa, pb] = [ka / na, kb / nb];
  const [a, b] = [wilson(ka, na), wilson(kb, nb)];
  const diff = pb - pa;
  return { diff, ci: { lo: diff - Math.hypot(pb - b.lo, a.hi - pa), hi: diff + Math.hypot(b.hi - pb, pa - a.lo) } };
}
