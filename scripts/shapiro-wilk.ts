// The Shapiro–Wilk test of normality, W and its p-value by Royston's (1995, AS R94) approximation, for 4 ≤ n ≤ 5000.
import { studentTCdf, studentTQuantile } from '../src/stats/student-t.ts';

// The normal distribution as Student's t with a vast number of degrees of freedom (to about 1e-7).
const phi = (x: number) => studentTCdf(x, 1e9);
const phiInv = (p: number) => studentTQuantile(p, 1e9);
const poly = (c: number[], x: number) => c.reduceRight((acc, k) => acc * x + k, 0);
const C1 = [0, 0.221157, -0.147981, -2.07119, 4.434685, -2.706056];
const C2 = [0, 0.042981, -0.293762, -1.752461, 5.682633, -3.582633];

/** The coefficients a_1 … a_⌊n/2⌋ of the upper half (positive), per n. */
const coefficients = new Map<number, number[]>();
function coefficientsOf(n: number): number[] {
  const known = coefficients.get(n);
  if (known) return known;
  const half = Math.floor(n / 2);
  const m = Array.from({ length: half }, (_, i) => -phiInv((i + 1 - 0.375) / (n + 0.25)));
  const summ2 = 2 * m.reduce((s, x) => s + x * x, 0);
  const rsn = 1 / Math.sqrt(n);
  const a1 = poly(C1, rsn) + m[0]! / Math.sqrt(summ2);
  const a = m.map(() => 0);
  a[0] = a1;
  let fac: number;
  let from: number;
  if (n > 5) {
    const a2 = poly(C2, rsn) + m[1]! / Math.sqrt(summ2);
    a[1] = a2;
    fac = Math.sqrt((summ2 - 2 * m[0]! ** 2 - 2 * m[1]! ** 2) / (1 - 2 * a1 ** 2 - 2 * a2 ** 2));
    from = 2;
  } else {
    fac = Math.sqrt((summ2 - 2 * m[0]! ** 2) / (1 - 2 * a1 ** 2));
    from = 1;
  }
  for (let i = from; i < half; i++) a[i] = m[i]! / fac;
  coefficients.set(n, a);
  return a;
}

/** W and its p-value; null below 4 values or when they do not vary. */
export function shapiroWilk(xs: ArrayLike<number>): { w: number; p: number } | null {
  const n = xs.length;
  if (n < 4 || n > 5000) return null;
  const x = Float64Array.from(xs).sort();
  const mean = x.reduce((s, v) => s + v, 0) / n;
  const ss = x.reduce((s, v) => s + (v - mean) ** 2, 0);
  if (!(ss > 0)) return null;
  const a = coefficientsOf(n);
  let b = 0;
  for (let i = 0; i < a.length; i++) b += a[i]! * (x[n - 1 - i]! - x[i]!);
  const w = Math.min(1, (b * b) / ss);
  const w1 = Math.log(1 - w);
  if (n <= 11) {
    const gamma = -2.273 + 0.459 * n;
    if (w1 >= gamma) return { w, p: 1e-99 };
    const y = -Math.log(gamma - w1);
    const mu = poly([0.544, -0.39978, 0.025054, -6.714e-4], n);
    const s = Math.exp(poly([1.3822, -0.77857, 0.062767, -0.0020322], n));
    return { w, p: 1 - phi((y - mu) / s) };
  }
  const ln = Math.log(n);
  const mu = poly([-1.5861, -0.31082, -0.083751, 0.0038915], ln);
  const s = Math.exp(poly([-0.4803, -0.082676, 0.0030302], ln));
  return { w, p: 1 - phi((w1 - mu) / s) };
}
