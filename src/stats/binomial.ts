// A binomial count: its probabilities, and intervals for its rate (Wilson's score, Clopper–Pearson's exact bound).
import { bisect, incompleteBeta, logGamma } from './special.ts';

/** Φ⁻¹(0.975) to double precision (1.96 is its rounding): the normal quantile of a two-sided 95 % interval. */
export const Z95 = 1.959963984540054;

/** ln P(X = j), j = 0..n, for X ~ Binomial(n, p); point masses at p = 0 and p = 1. */
export function binomialLogPmf(n: number, p: number): Float64Array {
  const out = new Float64Array(n + 1);
  if (p <= 0 || p >= 1) {
    out.fill(-Infinity);
    out[p <= 0 ? 0 : n] = 0;
    return out;
  }
  const c = logGamma(n + 1);
  for (let j = 0; j <= n; j++)
    out[j] = c - logGamma(j + 1) - logGamma(n - j + 1) + j * Math.log(p) + (n - j) * Math.log(1 - p);
  return out;
}

/** P(X = j), j = 0..n, for X ~ Binomial(n, p), from log space so large n does not underflow the middle. */
export function binomialPmf(n: number, p: number): Float64Array {
  return binomialLogPmf(n, p).map(Math.exp);
}

/** Wilson score interval for k successes in n trials (z = Z95: 95 %). */
export function wilson(k: number, n: number, z = Z95): { lo: number; hi: number } {
  if (n === 0) return { lo: 0, hi: 1 };
  const p = k / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // All or none succeeded: that bound is exactly 1 (or 0), not 1 − 1e-16.
  return { lo: k === 0 ? 0 : Math.max(0, centre - half), hi: k === n ? 1 : Math.min(1, centre + half) };
}

/**
 * Clopper–Pearson's exact upper bound on a rate after k events in n trials, one-sided at 1 − alpha: the
 * p at which seeing k or fewer has probability alpha, i.e. 1 − I_p(k + 1, n − k) = alpha. For k = 0 it is
 * 1 − alpha^(1/n) (the "rule of three" is its approximation 3/n at 95 %).
 */
export function clopperPearsonUpper(k: number, n: number, alpha: number): number {
  if (k >= n) return 1;
  if (k === 0) return 1 - alpha ** (1 / n);
  return bisect((p) => incompleteBeta(p, k + 1, n - k), 1 - alpha, 0, 1);
}
