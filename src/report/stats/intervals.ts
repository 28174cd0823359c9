// 95% intervals for what the reports compare: a proportion (Wilson), a mean (Student t), a difference
// of means (Welch), a ratio of means (cost per successful task, delta method on the log scale) and a
// difference of proportions (Newcombe's hybrid score interval from two Wilson intervals).
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

const sampleVariance = (xs: readonly number[], m = mean(xs)) => xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);

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

export interface CostPerSuccess {
  /** Σ cost ÷ successes over the checked runs; Infinity when none succeeded (no task was bought). */
  value: number;
  /** At CONFIDENCE; null below two checked runs or when none succeeded. */
  ci: Interval | null;
}

/**
 * Cost per successful task — the one definition every report, table, chart and CSV uses: Σ cost ÷ successes
 * over the runs whose answer was checked, i.e. R = c̄ / p (mean cost ÷ success rate). Its interval is the
 * delta method for a ratio of means, on the log scale so that it stays above zero and leans the way a
 * ratio with an uncertain denominator does:
 *   Var(ln R) ≈ s_c² / (n·c̄²) + s_p² / (n·p²) − 2·s_cp / (n·c̄·p)
 * with s_c², s_p², s_cp the sample variances and covariance (n − 1) of the runs' cost and success (0/1), so
 * both the spread of cost and the uncertainty of the success rate count; the interval is
 * R·exp(±t(n − 1)·√Var). Null when no run was checked.
 */
export function costPerSuccess(runs: ReadonlyArray<{ cost_usd: number; success: boolean | null }>): CostPerSuccess | null {
  const checked = runs.filter((r) => r.success !== null);
  const n = checked.length;
  if (n === 0) return null;
  let total = 0;
  let wins = 0;
  for (const r of checked) {
    total += r.cost_usd;
    if (r.success) wins++;
  }
  if (wins === 0) return { value: Infinity, ci: null };
  const value = total / wins;
  if (n < 2) return { value, ci: null };
  const c = total / n;
  const p = wins / n;
  // Nothing cost anything (trajectories without costs): the ratio is exactly 0.
  if (c === 0) return { value, ci: { lo: 0, hi: 0 } };
  let sc = 0;
  let sp = 0;
  let scp = 0;
  for (const r of checked) {
    const dc = r.cost_usd - c;
    const dp = (r.success ? 1 : 0) - p;
    sc += dc * dc;
    sp += dp * dp;
    scp += dc * dp;
  }
  const variance = Math.max(0, (sc / (c * c) + sp / (p * p) - (2 * scp) / (c * p)) / (n - 1) / n);
  const half = tCritical(n - 1, CONFIDENCE) * Math.sqrt(variance);
  return { value, ci: { lo: value * Math.exp(-half), hi: value * Math.exp(half) } };
}

/** p_b − p_a with Newcombe's hybrid score 95% interval (method 10), built from each side's Wilson interval. */
export function proportionDifference(ka: number, na: number, kb: number, nb: number): { diff: number; ci: Interval } {
  const [pa, pb] = [ka / na, kb / nb];
  const [a, b] = [wilson(ka, na), wilson(kb, nb)];
  const diff = pb - pa;
  return { diff, ci: { lo: diff - Math.hypot(pb - b.lo, a.hi - pa), hi: diff + Math.hypot(b.hi - pb, pa - a.lo) } };
}
