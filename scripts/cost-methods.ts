// The methods weighed for the cost-per-success interval (docs/adaptive.md#cost-per-successful-task-coverage-measured):
// each replaces the runs' part of the reported interval (the bootstrap-t; the brakes' bounds stay) and is measured on
// the coverage cells (test/helpers/cost-coverage.ts, cost shapes other than the log-normal among them), the same seeded
// sweeps for every method. Per cell and method: coverage, misses below the truth, median width ÷ the percentile
// bootstrap's. Deterministic: the same command prints the same table (and, on stderr, how often each pretested
// ("gated") method chose the log-normal model).
//
//   npx tsx scripts/cost-methods.ts [SWEEPS] [NAME]   (default 2000 a cell; NAME: only the methods whose name holds it)
//
// At 2,000 sweeps the calibrated bootstrap-t columns take most of an hour each; the rest a few minutes.
import { CELLS, measureCoverage, type IntervalMethod } from '../test/helpers/cost-coverage.ts';
import {
  add,
  bootstrapT,
  BOOTSTRAP_RESAMPLES,
  costPerSuccess,
  ratioAndSe,
  type DataInterval,
  type Sums,
} from '../src/report/stats/cost-per-success.ts';
import { quantileOfSorted } from '../src/stats/quantile.ts';
import { mulberry32, normal, type Rng } from '../src/stats/random.ts';
import { studentTCdf, studentTQuantile } from '../src/stats/student-t.ts';
import { shapiroWilk } from './shapiro-wilk.ts';

const SEED = 20250917;
const ALPHA = 0.025;
const emptySums = (n: number): Sums => ({ n, cost: 0, wins: 0, cost2: 0, costWins: 0 });
// The normal distribution as Student's t with a vast number of degrees of freedom (to about 1e-7).
const phi = (x: number) => studentTCdf(x, 1e9);
const phiInv = (p: number) => studentTQuantile(p, 1e9);

/** BCa (Efron 1987): the resampled ratios' quantiles moved by their median bias and the jackknife's acceleration of ln R. */
const bca: DataInterval = (costs, wins, sums) => {
  const { n } = sums;
  const r = sums.cost / sums.wins;
  const random = mulberry32(SEED);
  const ratios = new Float64Array(BOOTSTRAP_RESAMPLES);
  let below = 0;
  for (let b = 0; b < ratios.length; b++) {
    let [cost, won] = [0, 0];
    for (let i = 0; i < n; i++) {
      const j = Math.floor(random() * n);
      cost += costs[j]!;
      won += wins[j]!;
    }
    ratios[b] = won ? cost / won : Infinity;
    if (ratios[b]! < r) below++;
  }
  ratios.sort();
  const z0 = phiInv(Math.min(Math.max(below / ratios.length, 1e-3), 1 - 1e-3));
  const jack: number[] = [];
  for (let i = 0; i < n; i++)
    if (sums.wins > wins[i]!) jack.push(Math.log((sums.cost - costs[i]!) / (sums.wins - wins[i]!)));
  const mean = jack.reduce((s, x) => s + x, 0) / jack.length;
  const [m2, m3] = jack.reduce(([a, b], x) => [a + (mean - x) ** 2, b + (mean - x) ** 3], [0, 0]);
  const acc = m2 > 0 ? m3 / (6 * m2 ** 1.5) : 0;
  const at = (q: number) => quantileOfSorted(ratios, phi(z0 + (z0 + phiInv(q)) / (1 - acc * (z0 + phiInv(q)))));
  return { lo: at(ALPHA), hi: at(1 - ALPHA) };
};

/**
 * Smoothed bootstrap-t: runs resampled with a Gaussian kernel on ln cost (Silverman's bandwidth 0.9·s·n^(−1/5),
 * shrunk to keep the log-scale variance), so a resample can hold a cost beyond the largest seen; t is centred on
 * the smoothed distribution's own ratio.
 */
const smoothedBootstrapT: DataInterval = (costs, wins, sums) => {
  const { n } = sums;
  const { r, se } = ratioAndSe(sums);
  const logs = Array.from(costs, Math.log);
  const m = logs.reduce((s, x) => s + x, 0) / n;
  const sd = Math.sqrt(logs.reduce((s, x) => s + (x - m) ** 2, 0) / (n - 1));
  if (!(se > 0) || !(sd > 0) || !Number.isFinite(sd)) return bootstrapT(costs, wins, sums);
  const h = 0.9 * sd * n ** -0.2;
  const shrink = Math.sqrt(1 + (h / sd) ** 2);
  const centre = logs.reduce((s, y) => s + Math.exp(m + (y - m) / shrink + h ** 2 / (2 * shrink ** 2)), 0) / sums.wins;
  const random = mulberry32(SEED);
  const t = new Float64Array(BOOTSTRAP_RESAMPLES);
  const s = emptySums(n);
  for (let b = 0; b < t.length; b++) {
    Object.assign(s, emptySums(n));
    for (let i = 0; i < n; i++) {
      const j = Math.floor(random() * n);
      add(s, Math.exp(m + (logs[j]! - m + h * normal(random, 0, 1)) / shrink), wins[j]!);
    }
    const star = s.wins ? ratioAndSe(s) : null;
    t[b] = star ? Math.log(star.r / centre) / (star.se > 0 ? star.se : se) : Infinity;
  }
  t.sort();
  return { lo: r * Math.exp(-quantileOfSorted(t, 1 - ALPHA) * se), hi: r * Math.exp(-quantileOfSorted(t, ALPHA) * se) };
};

/**
 * Hall's (1992) skewness-corrected t on the ratio's linearised values d = (cost − R·success)/p̂: with T the
 * studentized ratio and a = γ̂/(3√n), g(T) = ((1 + aT)³ − 1)/(3a) + γ̂/(6√n) is near normal, so the ends are
 * R − (s/√n)·g⁻¹(±z). Normal quantiles, no resampling.
 */
const hallT: DataInterval = (costs, wins, sums) => {
  const { n } = sums;
  const r = sums.cost / sums.wins;
  const p = sums.wins / n;
  const d = Array.from(costs, (c, i) => (c - r * wins[i]!) / p);
  const mean = d.reduce((s, x) => s + x, 0) / n;
  const sd = Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
  if (!(sd > 0)) return { lo: r, hi: r };
  const skew = d.reduce((s, x) => s + (x - mean) ** 3, 0) / n / sd ** 3;
  const a = skew / (3 * Math.sqrt(n));
  const b = skew / (6 * Math.sqrt(n));
  const gInv = (x: number) => (a === 0 ? x - b : (Math.cbrt(1 + 3 * a * (x - b)) - 1) / a);
  const z = phiInv(1 - ALPHA);
  return { lo: Math.max(0, r - (sd / Math.sqrt(n)) * gInv(z)), hi: r - (sd / Math.sqrt(n)) * gInv(-z) };
};

/** Draws n runs with replacement into `s` (and into `into`, when given, for a resample of them). */
function resample(
  random: Rng,
  costs: ArrayLike<number>,
  wins: ArrayLike<number>,
  s: Sums,
  into?: Float64Array,
  intoWins?: Uint8Array,
) {
  Object.assign(s, emptySums(costs.length));
  for (let i = 0; i < costs.length; i++) {
    const j = Math.floor(random() * costs.length);
    add(s, costs[j]!, wins[j]!);
    if (into) [into[i], intoWins![i]] = [costs[j]!, wins[j]!];
  }
}

/** A resample's t value against the ratio `centre` of the sample it was drawn from; `fallbackSe` where it has no spread. */
function tValue(s: Sums, centre: number, fallbackSe: number): number {
  if (s.wins === 0) return Infinity;
  const star = ratioAndSe(s);
  return Math.log(star.r / centre) / (star.se > 0 ? star.se : fallbackSe);
}

/**
 * The calibrated (double) bootstrap-t (Hall 1986; Beran 1987's prepivoting; Martin 1990): each of `outer` resamples
 * gets `inner` resamples of its own, and u = the share of their t values below its t is where the truth of that
 * resample's world falls in its bootstrap-t distribution. Were the bootstrap-t exact, u would be uniform; the
 * nominal levels used are u's 2.5 % and 97.5 % quantiles (equal-tailed), or, `symmetric`, u's 95 % quantile of
 * |t| (the interval R·exp(±t̂·se) with t̂ that level's quantile of |t*|).
 */
const calibratedBootstrapT =
  (outer: number, inner: number, symmetric: boolean): DataInterval =>
  (costs, wins, sums) => {
    const { n } = sums;
    const { r, se } = ratioAndSe(sums);
    if (!(se > 0)) return { lo: r, hi: r };
    const random = mulberry32(SEED);
    const [t, u] = [new Float64Array(outer), new Float64Array(outer)];
    const [c, w] = [new Float64Array(n), new Uint8Array(n)];
    const [s, s2] = [emptySums(n), emptySums(n)];
    const size = symmetric ? Math.abs : (x: number) => x;
    for (let b = 0; b < outer; b++) {
      resample(random, costs, wins, s, c, w);
      t[b] = tValue(s, r, se);
      if (t[b] === Infinity) {
        u[b] = 1;
        continue;
      }
      const { r: centre, se: seStar } = ratioAndSe(s);
      let below = 0;
      for (let k = 0; k < inner; k++) {
        resample(random, c, w, s2);
        const t2 = size(tValue(s2, centre, seStar > 0 ? seStar : se));
        below += t2 < size(t[b]!) ? 1 : t2 === size(t[b]!) ? 0.5 : 0;
      }
      u[b] = below / inner;
    }
    u.sort();
    if (symmetric) {
      const half = quantileOfSorted(t.map(Math.abs).sort(), quantileOfSorted(u, 1 - 2 * ALPHA)) * se;
      return { lo: r * Math.exp(-half), hi: r * Math.exp(half) };
    }
    t.sort();
    const [levelLo, levelHi] = [quantileOfSorted(u, ALPHA), quantileOfSorted(u, 1 - ALPHA)];
    return {
      lo: r * Math.exp(-quantileOfSorted(t, levelHi) * se),
      hi: r * Math.exp(-quantileOfSorted(t, levelLo) * se),
    };
  };

/**
 * The bootstrap with a variance-stabilising transform estimated by the bootstrap (Tibshirani 1988; Efron &
 * Tibshirani 1993, §12.6): 100 resamples, each with 25 of its own for its ratio's standard error; a power law
 * se ∝ R^k fitted on the log–log scale gives g(R) = R^(1−k)/(1−k) (ln R at k = 1), on which the variance is
 * constant, so 1,000 further resamples give the basic interval g⁻¹(g(R) − q*) without studentizing.
 */
const varianceStabilised: DataInterval = (costs, wins, sums) => {
  const { n } = sums;
  const r = sums.cost / sums.wins;
  const random = mulberry32(SEED);
  const [c, w] = [new Float64Array(n), new Uint8Array(n)];
  const [s, s2] = [emptySums(n), emptySums(n)];
  const ratio = (x: Sums) => (x.wins ? x.cost / x.wins : Infinity);
  const [xs, ys]: [number[], number[]] = [[], []];
  for (let b = 0; b < 100; b++) {
    resample(random, costs, wins, s, c, w);
    const inner = Array.from({ length: 25 }, () => (resample(random, c, w, s2), ratio(s2))).filter(Number.isFinite);
    const mean = inner.reduce((a, x) => a + x, 0) / inner.length;
    const sd = Math.sqrt(inner.reduce((a, x) => a + (x - mean) ** 2, 0) / (inner.length - 1));
    if (ratio(s) > 0 && Number.isFinite(ratio(s)) && inner.length >= 5 && sd > 0) {
      xs.push(Math.log(ratio(s)));
      ys.push(Math.log(sd));
    }
  }
  const [mx, my] = [xs, ys].map((v) => v.reduce((a, x) => a + x, 0) / v.length) as [number, number];
  const sxx = xs.reduce((a, x) => a + (x - mx) ** 2, 0);
  const k = xs.length >= 10 && sxx > 0 ? xs.reduce((a, x, i) => a + (x - mx) * (ys[i]! - my), 0) / sxx : 1;
  const e = 1 - k;
  const log = Math.abs(e) < 1e-3;
  const g = (x: number) => (log ? Math.log(x) : x ** e / e);
  // Beyond the transform's range the end is 0 (below) or unbounded (above).
  const gInv = (y: number) => (log ? Math.exp(y) : e * y > 0 ? (e * y) ** (1 / e) : e > 0 ? 0 : Infinity);
  const z = new Float64Array(BOOTSTRAP_RESAMPLES);
  for (let b = 0; b < z.length; b++) {
    resample(random, costs, wins, s);
    z[b] = g(ratio(s)) - g(r);
  }
  z.sort();
  return {
    lo: Math.min(r, gInv(g(r) - quantileOfSorted(z, 1 - ALPHA))),
    hi: Math.max(r, gInv(g(r) - quantileOfSorted(z, ALPHA))),
  };
};

/** A gamma draw of shape a (Marsaglia & Tsang 2000). */
function gamma(random: Rng, a: number): number {
  if (a < 1) return gamma(random, a + 1) * (1 - random()) ** (1 / a);
  const d = a - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = normal(random, 0, 1);
    const v = (1 + c * x) ** 3;
    if (v > 0 && Math.log(1 - random()) < (x * x) / 2 + d - d * v + d * Math.log(v)) return d * v;
  }
}

/**
 * Costs taken as log-normal: the generalized pivotal quantity of their mean (Krishnamoorthy & Mathew 2003),
 * exp(ȳ − Z·√(v/n) + v/2) with v = (n − 1)s² ÷ χ²(n − 1) drawn afresh each time, divided by the success rate's Jeffreys draw
 * Beta(k + ½, n − k + ½); the ends are the draws' quantiles at `alpha`. A zero cost has no logarithm: the bootstrap-t.
 */
const lognormalGpq =
  (alpha: number): DataInterval =>
  (costs, wins, sums) => {
    const { n } = sums;
    const logs = Array.from(costs, Math.log);
    if (!logs.every(Number.isFinite)) return bootstrapT(costs, wins, sums);
    const m = logs.reduce((s, x) => s + x, 0) / n;
    const v = logs.reduce((s, x) => s + (x - m) ** 2, 0) / (n - 1);
    const random = mulberry32(SEED);
    const g = new Float64Array(BOOTSTRAP_RESAMPLES);
    for (let b = 0; b < g.length; b++) {
      const sigma2 = ((n - 1) * v) / (2 * gamma(random, (n - 1) / 2));
      const mean = Math.exp(m - normal(random, 0, 1) * Math.sqrt(sigma2 / n) + sigma2 / 2);
      const x = gamma(random, sums.wins + 0.5);
      g[b] = mean / (x / (x + gamma(random, n - sums.wins + 0.5)));
    }
    g.sort();
    return { lo: quantileOfSorted(g, alpha), hi: quantileOfSorted(g, 1 - alpha) };
  };

/** The bootstrap-t with its upper end raised to the log-normal GPQ's where that reaches further. */
const hybrid: DataInterval = (costs, wins, sums) => {
  const t = bootstrapT(costs, wins, sums);
  return { lo: t.lo, hi: Math.max(t.hi, lognormalGpq(ALPHA)(costs, wins, sums).hi) };
};

/**
 * The log-normal GPQ at `alpha` where the runs' log costs are consistent with a normal shape (Shapiro–Wilk's p at
 * least `level`, every cost above zero), the bootstrap-t otherwise: a pretest choosing the model (Shapiro & Wilk
 * 1965, p by Royston 1995).
 */
const gated =
  (alpha: number, level: number): DataInterval =>
  (costs, wins, sums) => {
    const logs = Array.from(costs, Math.log);
    const test = logs.every(Number.isFinite) ? shapiroWilk(logs) : null;
    gate.tried++;
    if (test === null || test.p < level) return bootstrapT(costs, wins, sums);
    gate.chosen++;
    return lognormalGpq(alpha)(costs, wins, sums);
  };
const gate = { tried: 0, chosen: 0 };

/**
 * Successes and failures log-normal with their own log-means and one log-variance (a two-group model; generalized
 * pivotal quantities as Krishnamoorthy & Mathew 2003, Tian 2005): R = m_s + (1 − p)/p · m_f, each m = exp(μ + σ²/2),
 * σ² = SS ÷ χ²(n − 2), μ = ȳ − Z·σ/√n_group, p a Jeffreys draw. Chosen where Shapiro–Wilk's p on the log costs less
 * their group's mean is at least `level` (every cost above zero, a failure seen); otherwise as `gated`.
 */
const gatedByOutcome =
  (level: number): DataInterval =>
  (costs, wins, sums) => {
    const { n } = sums;
    const failures = n - sums.wins;
    if (failures === 0 || n < 4) return gated(ALPHA, level)(costs, wins, sums);
    const logs = Array.from(costs, Math.log);
    if (!logs.every(Number.isFinite)) return bootstrapT(costs, wins, sums);
    const group = (won: number) => logs.filter((_, i) => wins[i] === won);
    const [ys, yf] = [group(1), group(0)];
    const [ms, mf] = [ys, yf].map((g) => g.reduce((a, x) => a + x, 0) / g.length) as [number, number];
    const residuals = logs.map((x, i) => x - (wins[i] ? ms : mf));
    const ss = residuals.reduce((a, x) => a + x * x, 0);
    const test = shapiroWilk(residuals);
    gate.tried++;
    if (test === null || test.p < level || !(ss > 0)) return bootstrapT(costs, wins, sums);
    gate.chosen++;
    const random = mulberry32(SEED);
    const g = new Float64Array(BOOTSTRAP_RESAMPLES);
    for (let b = 0; b < g.length; b++) {
      const sigma2 = ss / (2 * gamma(random, (n - 2) / 2));
      const mean = (m: number, k: number) => Math.exp(m - normal(random, 0, 1) * Math.sqrt(sigma2 / k) + sigma2 / 2);
      const [meanS, meanF] = [mean(ms, ys.length), mean(mf, yf.length)];
      const x = gamma(random, sums.wins + 0.5);
      const p = x / (x + gamma(random, failures + 0.5));
      g[b] = meanS + ((1 - p) / p) * meanF;
    }
    g.sort();
    return { lo: quantileOfSorted(g, ALPHA), hi: quantileOfSorted(g, 1 - ALPHA) };
  };

const methods: Array<[string, DataInterval]> = [
  ['bootstrap-t, log scale (reported)', bootstrapT],
  ['BCa', bca],
  ['smoothed bootstrap-t', smoothedBootstrapT],
  ["Hall's skewness-corrected t", hallT],
  ['log-normal GPQ ÷ Jeffreys p', lognormalGpq(ALPHA)],
  ['the same at 93 %', lognormalGpq(0.035)],
  ['max(bootstrap-t, log-normal GPQ)', hybrid],
  ['calibrated bootstrap-t, 999 × 99', calibratedBootstrapT(999, 99, false)],
  ['calibrated symmetric bootstrap-t, 999 × 99', calibratedBootstrapT(999, 99, true)],
  ['variance-stabilised bootstrap', varianceStabilised],
  ['log-normal GPQ where Shapiro–Wilk passes ln cost at 5 %, else bootstrap-t (gated)', gated(ALPHA, 0.05)],
  ['the same, GPQ at 93 % (gated)', gated(0.035, 0.05)],
  ['the same, GPQ at 95 %, Shapiro–Wilk at 20 % (gated)', gated(ALPHA, 0.2)],
  ['successes and failures each log-normal, Shapiro–Wilk at 20 % (gated by outcome)', gatedByOutcome(0.2)],
];

const sweeps = Number(process.argv[2] ?? 2000);
if (!Number.isInteger(sweeps) || sweeps < 1)
  throw new Error(`cost-methods: SWEEPS must be a positive whole number, got ${process.argv[2]}`);
// The calibrated intervals take ~0.1 s each: a word of a method's name measures only the methods that hold it.
const only = process.argv[3];
if (only !== undefined) methods.splice(0, methods.length, ...methods.filter(([name]) => name.includes(only)));
if (methods.length === 0) throw new Error(`cost-methods: no method's name holds "${only}"`);
console.log(
  `| cell (${sweeps.toLocaleString('en')} seeded sweeps each) | ${methods.map(([name]) => name).join(' | ')} |`,
);
console.log(`|---|${methods.map(() => '---|').join('')}`);
for (const cell of CELLS) {
  const row = methods.map(([, fromData]) => {
    const method: IntervalMethod = (runs, budget) => costPerSuccess(runs, budget, fromData)?.ci ?? null;
    Object.assign(gate, { tried: 0, chosen: 0 });
    const m = measureCoverage(cell, sweeps, 1, method);
    if (gate.tried) console.error(`${cell.name}: log-normal model chosen in ${gate.chosen} of ${gate.tried} sweeps`);
    const ratio = m.medianWidth / m.medianWidthPercentile;
    return `${(100 * m.after).toFixed(1)} % · ${m.afterBelow} below · ×${ratio.toFixed(2)}`;
  });
  console.log(`| ${cell.name} | ${row.join(' | ')} |`);
}
