// The methods weighed for the cost-per-success interval (docs/adaptive.md#cost-per-successful-task-coverage-measured):
// each replaces the runs' part of the reported interval (the bootstrap-t; the brakes' bounds stay) and is measured on
// the coverage cells (test/helpers/cost-coverage.ts) and on cost shapes other than the log-normal, the same seeded
// sweeps for every method. Per cell and method: coverage, misses below the truth, median width ÷ the percentile
// bootstrap's. Deterministic: the same command prints the same table.
//
//   npx tsx scripts/cost-methods.ts [SWEEPS]      (default 2000 a cell; a few minutes)
import { CELLS, measureCoverage, SHAPES, type IntervalMethod } from '../test/helpers/cost-coverage.ts';
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

const methods: Array<[string, DataInterval]> = [
  ['bootstrap-t, log scale (reported)', bootstrapT],
  ['BCa', bca],
  ['smoothed bootstrap-t', smoothedBootstrapT],
  ["Hall's skewness-corrected t", hallT],
  ['log-normal GPQ ÷ Jeffreys p', lognormalGpq(ALPHA)],
  ['the same at 93 %', lognormalGpq(0.035)],
  ['max(bootstrap-t, log-normal GPQ)', hybrid],
];

const sweeps = Number(process.argv[2] ?? 2000);
if (!Number.isInteger(sweeps) || sweeps < 1)
  throw new Error(`cost-methods: SWEEPS must be a positive whole number, got ${process.argv[2]}`);
console.log(
  `| cell (${sweeps.toLocaleString('en')} seeded sweeps each) | ${methods.map(([name]) => name).join(' | ')} |`,
);
console.log(`|---|${methods.map(() => '---|').join('')}`);
for (const cell of [...CELLS, ...SHAPES]) {
  const row = methods.map(([, fromData]) => {
    const method: IntervalMethod = (runs, budget) => costPerSuccess(runs, budget, fromData)?.ci ?? null;
    const m = measureCoverage(cell, sweeps, 1, method);
    const ratio = m.medianWidth / m.medianWidthPercentile;
    return `${(100 * m.after).toFixed(1)} % · ${m.afterBelow} below · ×${ratio.toFixed(2)}`;
  });
  console.log(`| ${cell.name} | ${row.join(' | ')} |`);
}
