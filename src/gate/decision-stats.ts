// The statistics adaptive repeats decide with. Pure functions, numbers in, numbers out:
// two-sided confidence intervals for a success rate (Wilson), a mean (Student t) and a quantile
// (distribution-free, from order statistics), and the Bonferroni split of the error rate over looks.
import { wilson, type Interval } from '../report/aggregate.ts';

/** Standard normal quantile (Acklam's rational approximation, relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile: p must be in (0, 1), got ${p}`);
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tail = (q: number) =>
    (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7). */
function logGamma(x: number): number {
  const g = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let s = g[0]!;
  for (let i = 1; i < 9; i++) s += g[i]! / (x + i);
  const t = x + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(s);
}

/** Regularized incomplete beta I_x(a, b) (continued fraction, modified Lentz). */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  if (x > (a + 1) / (a + b + 2)) return 1 - incompleteBeta(1 - x, b, a);
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x)) / a;
  const tiny = 1e-300;
  let f = 1;
  let c = 1;
  let d = 0;
  for (let i = 0; i <= 400; i++) {
    const m = Math.floor(i / 2);
    const num = i === 0 ? 1 : i % 2 === 0 ? (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m)) : -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + num * d;
    d = Math.abs(d) < tiny ? tiny : d;
    d = 1 / d;
    c = 1 + num / c;
    c = Math.abs(c) < tiny ? tiny : c;
    const cd = c * d;
    f *= cd;
    if (Math.abs(1 - cd) < 1e-14) break;
  }
  return front * (f - 1);
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom. */
export function studentTCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** Student t quantile by bisection on the CDF (60 halvings: far below any difference a budget sees). */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`studentTQuantile: p must be in (0, 1), got ${p}`);
  let lo = -1e4;
  let hi = 1e4;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** P(X ≤ k) for X ~ Binomial(n, p), summed in log space so large n does not underflow. */
export function binomialCdf(k: number, n: number, p: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  if (p <= 0) return 1;
  if (p >= 1) return 0;
  let logPmf = n * Math.log(1 - p);
  let sum = 0;
  for (let i = 0; i <= k; i++) {
    if (i > 0) logPmf += Math.log((n - i + 1) / i) + Math.log(p / (1 - p));
    sum += Math.exp(logPmf);
  }
  return Math.min(1, sum);
}

/** Two-sided Wilson score interval for k successes out of n. */
export function successInterval(k: number, n: number, confidence: number): Interval {
  return wilson(k, n, normalQuantile(1 - (1 - confidence) / 2));
}

/** Two-sided Student t interval for the mean; unbounded below 2 values (no spread to judge by). */
export function meanInterval(xs: readonly number[], confidence: number): Interval {
  const n = xs.length;
  if (n < 2) return { lo: -Infinity, hi: Infinity };
  let m = 0;
  for (const x of xs) m += x / n;
  let ss = 0;
  for (const x of xs) ss += (x - m) ** 2;
  const half = studentTQuantile(1 - (1 - confidence) / 2, n - 1) * Math.sqrt(ss / (n - 1) / n);
  return { lo: m - half, hi: m + half };
}

/**
 * Two-sided distribution-free interval for the q-quantile (0 < q < 1) from order statistics: the
 * number of values below the true quantile is Binomial(n, q), whatever the distribution. A side the
 * sample cannot bound yet is ±Infinity (an upper bound on p95 needs the values of many runs).
 */
export function quantileInterval(xs: readonly number[], q: number, confidence: number): Interval {
  const sorted = [...xs].sort((a, b) => a - b);
  const n = sorted.length;
  const tail = (1 - confidence) / 2;
  // Lower: the l-th smallest value with P(Bin(n, q) < l) ≤ tail, l as large as that allows.
  let l = 0;
  while (l + 1 <= n && binomialCdf(l, n, q) <= tail) l++;
  // Upper: the u-th smallest value with P(Bin(n, q) ≥ u) ≤ tail, u as small as that allows.
  let u = n + 1;
  while (u - 1 >= 1 && 1 - binomialCdf(u - 2, n, q) <= tail) u--;
  return { lo: l === 0 ? -Infinity : sorted[l - 1]!, hi: u > n ? Infinity : sorted[u - 1]! };
}

/** The fewest runs whose largest value can bound the q-quantile from above at this confidence. */
export function runsToBoundQuantile(q: number, confidence: number): number {
  return Math.ceil(Math.log((1 - confidence) / 2) / Math.log(q));
}

export interface SequentialDesign {
  /** Sample sizes at which the decision is looked at: min, min + batch, …, max. */
  looks: number[];
  /** Each look's two-sided confidence: the error rate split evenly over the looks (Bonferroni). */
  perLookConfidence: number;
}

/** Looks at min, min + batch, … up to max: ceil((max − min) / batch) + 1 of them, each at 1 − α / looks. */
export function sequentialDesign(r: { min: number; max: number; batch: number; confidence: number }): SequentialDesign {
  const looks: number[] = [];
  for (let n = r.min; n < r.max; n += r.batch) looks.push(n);
  looks.push(r.max);
  return { looks, perLookConfidence: 1 - (1 - r.confidence) / looks.length };
}
