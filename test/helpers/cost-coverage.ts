// Coverage of the cost-per-successful-task interval, measured: seeded sweeps drawn from a known truth,
// each summarised as a report does, and the share of intervals that hold the true Σ cost ÷ successes.
// Shared by test/cost-per-success.test.ts (a few hundred sweeps per cell), scripts/cost-coverage.ts
// (the fuller table in docs/adaptive.md) and scripts/cost-methods.ts (the methods weighed against it).
import { clopperPearsonUpper } from '../../src/stats/binomial.ts';
import { quantileOfSorted } from '../../src/stats/quantile.ts';
import { mulberry32, normal, type Rng } from '../../src/stats/random.ts';
import { costPerSuccess, deltaMethod, sumsOf } from '../../src/report/stats/cost-per-success.ts';

export interface Cell {
  name: string;
  runs: number;
  /** One run: its cost and whether it succeeded. */
  draw: (r: Rng) => { cost_usd: number; success: boolean };
  /** E[cost] ÷ P(success), exactly. */
  truth: number;
  /** The per-run budget the runs were braked at (null: none). */
  budget: number | null;
}

const lognormalMean = (median: number, sigma: number) => median * Math.exp((sigma * sigma) / 2);

/** Costs log-normal (median $0.01, log-sd σ) whatever the outcome; success with probability p. No budget. */
export function skewed(sigma: number, p: number, runs: number): Cell {
  return {
    name: `log-normal costs σ = ${sigma}, success ${p}, ${runs} runs`,
    runs,
    draw: (r) => ({ cost_usd: Math.exp(normal(r, Math.log(0.01), sigma)), success: r() < p }),
    truth: lognormalMean(0.01, sigma) / p,
    budget: null,
  };
}

/** Cheap successes (log-normal, median $0.01, log-sd 0.3); 5 % of runs fail by spinning into the $0.50 budget (90–100 % of it spent). */
function rareExpensiveFailures(runs: number): Cell {
  const q = 0.05;
  return {
    name: `cheap successes, 5 % failures spending the $0.50 budget, ${runs} runs`,
    runs,
    draw: (r) =>
      r() < q
        ? { cost_usd: 0.5 * (0.9 + 0.1 * r()), success: false }
        : { cost_usd: Math.exp(normal(r, Math.log(0.01), 0.3)), success: true },
    truth: ((1 - q) * lognormalMean(0.01, 0.3) + q * 0.475) / (1 - q),
    budget: 0.5,
  };
}

/** Costs drawn by `cost` whatever the outcome, success with probability 0.7, 20 runs, no budget; `mean` is E[cost]. */
function shape(name: string, cost: (r: Rng) => number, mean: number): Cell {
  return {
    name: `${name}, success 0.7, 20 runs`,
    runs: 20,
    draw: (r) => ({ cost_usd: cost(r), success: r() < 0.7 }),
    truth: mean / 0.7,
    budget: null,
  };
}

/**
 * The cells the test asserts on: the five (#40), three milder log-normal ones, and three cost shapes
 * that are not log-normal (so a method that assumes the shape is weighed where it is wrong): an exponential, a
 * gamma with many near-free runs (shape 0.5: χ²₁ scaled), and failures costing three times what successes do
 * (log-normal σ = 1 each, medians $0.01 and $0.03).
 */
export const CELLS: Cell[] = [
  skewed(1.5, 0.7, 20),
  skewed(1.5, 0.95, 20),
  rareExpensiveFailures(50),
  rareExpensiveFailures(20),
  rareExpensiveFailures(10),
  skewed(1.5, 0.7, 50),
  skewed(1, 0.7, 20),
  skewed(0.5, 0.7, 20),
  shape('exponential costs, mean $0.02', (r) => -0.02 * Math.log(1 - r()), 0.02),
  shape('gamma costs of shape 0.5, mean $0.02', (r) => 0.02 * normal(r, 0, 1) ** 2, 0.02),
  {
    name: 'failures cost 3× successes (log-normal σ = 1), success 0.7, 20 runs',
    runs: 20,
    draw: (r) => {
      const success = r() < 0.7;
      return { cost_usd: Math.exp(normal(r, Math.log(success ? 0.01 : 0.03), 1)), success };
    },
    truth: (lognormalMean(0.01, 1) * 0.7 + lognormalMean(0.03, 1) * 0.3) / 0.7,
    budget: null,
  },
];

export type Runs = Array<{ cost_usd: number; success: boolean }>;
type Interval = { lo: number; hi: number };
/** An interval for the cost per success of a sweep's runs, given their per-run budget (null: none). */
export type IntervalMethod = (runs: Runs, budget: number | null) => Interval | null;

/** Before: the delta method on the log scale, R·exp(±t(n − 1)·se), as the reports printed it for every run count until this change. */
const beforeInterval = (runs: Runs): Interval | null =>
  runs.some((r) => r.success) ? deltaMethod(sumsOf(runs)) : null;

/**
 * The width reference: the plain percentile bootstrap (2.5 % and 97.5 % quantiles of the resampled
 * ratio), with the same bound for failures nobody saw, so that only the data-driven part is compared.
 * It is the narrowest of the bootstrap intervals — and covers less than any other on skewed costs.
 */
function percentileBootstrap(runs: Runs, budget: number | null, r: Rng): Interval {
  const n = runs.length;
  const ratios = new Float64Array(499);
  for (let b = 0; b < ratios.length; b++) {
    let cost = 0;
    let wins = 0;
    for (let i = 0; i < n; i++) {
      const run = runs[Math.floor(r() * n)]!;
      cost += run.cost_usd;
      wins += run.success ? 1 : 0;
    }
    ratios[b] = wins ? cost / wins : Infinity;
  }
  ratios.sort();
  const q = clopperPearsonUpper(0, n, 0.025);
  const unseen = runs.every((x) => x.success) && budget !== null ? (q / (1 - q)) * budget : 0;
  return { lo: quantileOfSorted(ratios, 0.025), hi: quantileOfSorted(ratios, 0.975) + unseen };
}

export interface CellCoverage {
  cell: Cell;
  sweeps: number;
  /** Share of sweeps whose interval holds the truth: before (delta method), after (this interval). */
  before: number;
  after: number;
  /** Of the misses after, those whose upper end is below the truth (the report understating a success's cost). */
  afterBelow: number;
  beforeBelow: number;
  /** Median width after, and of the percentile bootstrap on the same sweeps. */
  medianWidth: number;
  medianWidthPercentile: number;
}

const holds = (ci: Interval | null, truth: number) => ci !== null && ci.lo <= truth && truth <= ci.hi;
const median = (xs: number[]) => quantileOfSorted(Float64Array.from(xs).sort(), 0.5);

/** The reports' interval (cost-per-success.ts). */
const reported: IntervalMethod = (runs, budget) => costPerSuccess(runs, budget)?.ci ?? null;

/** `sweeps` seeded sweeps of a cell (a sweep without a success has no interval: it counts as a miss); `method` is what "after" measures. */
export function measureCoverage(cell: Cell, sweeps: number, seed = 1, method = reported): CellCoverage {
  const r = mulberry32(seed);
  const ref = mulberry32(seed + 1);
  let [before, after, beforeBelow, afterBelow] = [0, 0, 0, 0];
  const widths: number[] = [];
  const refWidths: number[] = [];
  for (let s = 0; s < sweeps; s++) {
    const runs: Runs = Array.from({ length: cell.runs }, () => cell.draw(r));
    const old = beforeInterval(runs);
    const now = method(runs, cell.budget);
    if (holds(old, cell.truth)) before++;
    else if (old && old.hi < cell.truth) beforeBelow++;
    if (holds(now, cell.truth)) after++;
    else if (now && now.hi < cell.truth) afterBelow++;
    if (now) {
      widths.push(now.hi - now.lo);
      const p = percentileBootstrap(runs, cell.budget, ref);
      refWidths.push(p.hi - p.lo);
    }
  }
  return {
    cell,
    sweeps,
    before: before / sweeps,
    after: after / sweeps,
    beforeBelow,
    afterBelow,
    medianWidth: median(widths),
    medianWidthPercentile: median(refWidths),
  };
}
