// The statistics adaptive repeats decide with. Pure functions, numbers in, numbers out.
// Every decision is a one-sided test at the stated confidence c = 1 − α, with α spent over the
// planned looks by a Lan–DeMets spending function: a count (successes, or runs within a quantile
// budget's limit) against exact group-sequential binomial boundaries, a mean against a one-sided
// Student t bound at each look's share of α.
import { looksOf } from '../report/stats/precision.ts';
import { binomialPmf } from '../stats/binomial.ts';
import { studentTQuantile } from '../stats/student-t.ts';

/**
 * Lan–DeMets spending of Pocock type: the α spent once a fraction t of `max` runs is in,
 * α·ln(1 + (e − 1)·t) — 0 at t = 0, all of α at t = 1. Chosen over an O'Brien–Fleming-like and a
 * front-loaded function by the expected runs each takes (docs/adaptive.md).
 */
export const pocockSpending = (alpha: number, t: number): number => alpha * Math.log(1 + (Math.E - 1) * t);

/** Per look: pass when the count ≥ pass[k], fail when it ≤ fail[k] (pass[k] > n_k: cannot pass there; fail[k] < 0: cannot fail). */
export interface CountBoundaries {
  pass: number[];
  fail: number[];
}

/**
 * Carries the distribution of the count (successes so far, under success probability p) over the
 * looks, among the paths no boundary has stopped yet: convolve each batch in, let `bounds` set the
 * look's thresholds, take the mass at or beyond them out. Only the window between the last
 * thresholds is kept (O(√n) wide), so long designs stay cheap. Returns the probability of crossing
 * each side at each look.
 */
function walkLooks(
  looks: readonly number[],
  p: number,
  bounds: (k: number, lo: number, probs: Float64Array) => { pass: number; fail: number },
): { pass: number[]; fail: number[] } {
  let lo = 0;
  let probs = Float64Array.of(1);
  let n = 0;
  const pass: number[] = [];
  const fail: number[] = [];
  for (let k = 0; k < looks.length; k++) {
    const step = binomialPmf(looks[k]! - n, p);
    n = looks[k]!;
    const next = new Float64Array(probs.length ? probs.length + step.length - 1 : 0);
    for (let i = 0; i < probs.length; i++)
      if (probs[i]) for (let j = 0; j < step.length; j++) next[i + j]! += probs[i]! * step[j]!;
    const b = bounds(k, lo, next);
    let up = 0;
    let down = 0;
    for (let i = 0; i < next.length; i++) {
      if (lo + i >= b.pass) up += next[i]!;
      else if (lo + i <= b.fail) down += next[i]!;
    }
    pass.push(up);
    fail.push(down);
    const from = Math.max(lo, b.fail + 1);
    probs = next.slice(from - lo, Math.max(from - lo, Math.min(next.length, b.pass - lo)));
    lo = from;
  }
  return { pass, fail };
}

/**
 * Exact group-sequential boundaries for a binomial count against `bar`, both sides spending the
 * same cumulative α (`spent[k]` by look k): at each look the pass threshold is the smallest count
 * whose exact crossing probability under p = bar, added to what earlier looks crossed, stays within
 * spent[k]; the fail threshold likewise from below. So a scenario exactly at its bar passes with
 * probability ≤ α and fails with probability ≤ α; further from the bar on the wrong side, less
 * (the count grows with p path by path). Depends on the design only, never on the data.
 */
export function countBoundaries(bar: number, looks: readonly number[], spent: readonly number[]): CountBoundaries {
  const out: CountBoundaries = { pass: [], fail: [] };
  let passed = 0;
  let failed = 0;
  walkLooks(looks, bar, (k, lo, probs) => {
    let hi = lo + probs.length;
    let tail = passed;
    while (hi > lo && tail + probs[hi - 1 - lo]! <= spent[k]!) tail += probs[--hi - lo]!;
    let f = lo - 1;
    let head = failed;
    while (f + 1 < hi && head + probs[f + 1 - lo]! <= spent[k]!) head += probs[++f - lo]!;
    passed = tail;
    failed = head;
    // Counts below the window (or above it) only a stopped path reaches: no threshold to set there.
    out.pass.push(probs.length ? hi : looks[k]! + 1);
    out.fail.push(probs.length && f >= lo ? f : -1);
    return { pass: out.pass[k]!, fail: out.fail[k]! };
  });
  return out;
}

/** The exact probability of passing and of failing at each look, under success probability p, for given boundaries. */
export function crossingProbabilities(
  p: number,
  looks: readonly number[],
  b: CountBoundaries,
): { pass: number[]; fail: number[] } {
  return walkLooks(looks, p, (k) => ({ pass: b.pass[k]!, fail: b.fail[k]! }));
}

/** One-sided Student t bounds on the mean, each at 1 − α; unbounded below 2 values (no spread to judge by). */
export function meanBounds(xs: readonly number[], alpha: number): { lo: number; hi: number } {
  const n = xs.length;
  if (n < 2) return { lo: -Infinity, hi: Infinity };
  let m = 0;
  for (const x of xs) m += x / n;
  let ss = 0;
  for (const x of xs) ss += (x - m) ** 2;
  const half = studentTQuantile(1 - alpha, n - 1) * Math.sqrt(ss / (n - 1) / n);
  return { lo: m - half, hi: m + half };
}

export interface SequentialDesign {
  /** Sample sizes at which the decisions are looked at: min, min + batch, …, max. */
  looks: number[];
  /** The error each side of a decision may make over all looks: 1 − confidence. */
  alpha: number;
  /** α spent by each look, cumulative (Pocock-type spending at t = n / max); the last is α. */
  spent: number[];
  /** Look k's own share, spent[k] − spent[k − 1]: the level of a per-look bound (the union bound keeps their sum at α). */
  lookAlpha: number[];
  /** The count boundaries against a bar, computed once per bar. */
  boundaries(bar: number): CountBoundaries;
}

const designs = new Map<string, SequentialDesign>();

/** Looks at min, min + batch, … up to max, and α spent over them; one object per (min, max, batch, confidence). */
export function sequentialDesign(r: { min: number; max: number; batch: number; confidence: number }): SequentialDesign {
  const key = `${r.min} ${r.max} ${r.batch} ${r.confidence}`;
  const known = designs.get(key);
  if (known) return known;
  const looks = looksOf(r);
  const alpha = 1 - r.confidence;
  // The last look spends exactly α, whatever rounding the logarithm leaves.
  const spent = looks.map((n, k) => (k === looks.length - 1 ? alpha : pocockSpending(alpha, n / r.max)));
  const bars = new Map<number, CountBoundaries>();
  const design: SequentialDesign = {
    looks,
    alpha,
    spent,
    lookAlpha: spent.map((s, k) => s - (k ? spent[k - 1]! : 0)),
    boundaries(bar) {
      if (!bars.has(bar)) bars.set(bar, countBoundaries(bar, looks, spent));
      return bars.get(bar)!;
    },
  };
  designs.set(key, design);
  return design;
}
