// Cost per successful task — Σ cost ÷ successes over the runs whose answer was checked, R = c̄ / p —
// and its 95 % interval, the one definition every table, chart, CSV, the recommendation and `bench check`'s
// reports read (through the configuration summary, aggregate.ts).
//
// Agent costs are skewed (cheap successes, a few runs that spin to a limit), and the denominator is a
// binomial count. The interval is a studentized ("percentile-t") bootstrap over runs on the log scale
// (Efron & Tibshirani 1993, ch. 12; recommended for skewed cost data by Barber & Thompson 2000): resample
// the runs B times, studentize each resample's ln R by its own delta-method standard error, and read the
// interval off the quantiles of those t values, so the skew of the data sets how far each side reaches
// (the log keeps the lower end above zero and held coverage better than the raw scale where costs vary
// little). It is seeded, so the same runs give the same interval byte for byte. Where the data cannot
// speak, the brakes do:
//
// - No checked run failed: a failure rate up to Clopper–Pearson's 97.5 % bound, 1 − 0.025^(1/n), is not
//   ruled out, and what such unseen failures cost is not in the data. The per-run budget caps it (the
//   max_cost brake never lets a run cross it): R = m_s + q/(1 − q)·m_f ≤ m_s + q/(1 − q)·budget, so the
//   upper end grows by q/(1 − q)·budget. Without a budget the data's interval stands and the report says
//   that an unseen failure is not bounded.
// - Failures seen, but few: a resample that happens to draw none of them has a tiny standard error, so the
//   t values explode and the bootstrap's upper end can land far beyond anything possible; the same bound,
//   from the failures seen (Clopper–Pearson's bound on their rate, each failure at most the budget), caps it.
//
// Measured (docs/adaptive.md#cost-per-successful-task-coverage-measured, 2,000 seeded sweeps a cell; asserted by
// test/cost-per-success.test.ts): ≥ 98 % where rare failures spend the budget, 92.8–94.5 % on log-normal costs of
// σ ≤ 1 and on exponential, gamma and "failures cost 3×" costs at 20 runs, but 89.0 % and 87.1 % for σ = 1.5 at 20 runs
// (91.3 % at 50), most misses below the truth. Weighed in its place on the same sweeps (scripts/cost-methods.ts): BCa,
// Hall's skewness-corrected t and a variance-stabilised bootstrap (Tibshirani 1988) cover less; a smoothed bootstrap-t
// gains up to 2.7 points at up to 2.25× the percentile bootstrap's width (the suite allows 2×); the calibrated (double)
// bootstrap-t (Hall 1986, Beran 1987) reaches 90.4 % and 89.8 % at 3.2–3.8× that width and ~100× the time; a
// log-normal model's interval (Krishnamoorthy & Mathew's generalized pivotal quantity) reaches 92.8–97 % for σ = 1.5
// at 20 runs only at 2.4–4.9× that width, and fails costs that are not log-normal (over 27× on gamma costs with many
// near-free runs; 52 % coverage alone with rare budget-spending failures). No interval of bounded width holds for every
// distribution with a finite mean (Bahadur & Savage 1956): where the budget bounds costs, the bound above speaks;
// elsewhere this one stays, its shortfall measured. Nor does a Shapiro–Wilk pretest choosing the log-normal interval
// where ln cost looks normal reach 93 % everywhere (it trades σ = 1.5 against gamma costs and cost that depends on the
// outcome). So where costs spread as widely as those it undercovered and no budget bounds them, the result says so
// (wide_spread, the report's ≈).
import { clopperPearsonUpper } from '../../stats/binomial.ts';
import { quantileOfSorted } from '../../stats/quantile.ts';
import { mulberry32 } from '../../stats/random.ts';
import { tCritical } from '../../stats/student-t.ts';
import { CONFIDENCE, sampleVariance, type Interval } from './intervals.ts';

/** What no failure in n runs leaves open, when nothing failed. */
export interface UnseenFailures {
  /** Checked runs, none of which failed. */
  runs: number;
  /** Clopper–Pearson's one-sided upper bound on the failure rate at 1 − (1 − CONFIDENCE)/2: 1 − 0.025^(1/n). */
  failure_rate_hi: number;
  /** The per-run budget that caps what a failure can cost (USD); null when the runs had none, or the report is re-priced. */
  budget_usd: number | null;
  /** What such failures could add to the cost per success at most, q/(1 − q)·budget (in the interval's upper end); null without a budget. */
  adds_usd: number | null;
  /** The upper end from the runs seen alone (the interval's, less adds_usd): where a chart ends its line, the rest said in words. */
  seen_hi: number;
}

/** Costs spread as widely as those the interval was measured to cover less than 93 % of the time, with no budget to bound them. */
export interface WideSpread {
  /** The sample standard deviation of ln cost over the checked runs that cost anything (at least WIDE_LOG_SD). */
  log_sd: number;
}

export interface CostPerSuccess {
  /** Σ cost ÷ successes over the checked runs; Infinity when none succeeded (no task was bought). */
  value: number;
  /** At CONFIDENCE; null below two checked runs or when none succeeded. */
  ci: Interval | null;
  /** Set when every checked run succeeded (two or more): the failures the data cannot show. */
  unseen_failures: UnseenFailures | null;
  /** Set when the interval rests on costs this spread with no budget bound: it likely holds the truth less than 95 % of the time. */
  wide_spread: WideSpread | null;
}

/** Resamples per interval: the 1,000 Efron and Tibshirani advise for a percentile-t interval's ends. */
export const BOOTSTRAP_RESAMPLES = 1000;
/**
 * Below this many checked runs the resamples are too few and too lumpy for their t values to mean much (3 runs
 * give 10 distinct resamples): the interval is the delta method's on the log scale, R·exp(±t(n − 1)·se).
 */
export const MIN_BOOTSTRAP_RUNS = 10;
/**
 * Where ln cost's sample sd reaches this and no budget bounds the costs, the interval is marked: on log-normal costs of
 * log-sd 1.25–2 it covered 82–92 % (20–200 runs), most misses below the truth; it marks 55–100 % of those sweeps,
 * 0–9 % of those of log-sd ≤ 1, and needlessly most sweeps of gamma(0.5) costs, whose near-free runs spread ln cost
 * (scripts/cost-spread.ts, docs/adaptive.md#cost-per-successful-task-coverage-measured).
 */
export const WIDE_LOG_SD = 1.2;
/** The resampling seed: fixed, so a report rebuilds byte-identical. */
const SEED = 20250917;

export interface Sums {
  n: number;
  cost: number;
  wins: number;
  cost2: number;
  costWins: number;
}

/** The ratio and the delta-method standard error of its logarithm, from the sums of a sample (success is 0/1, so Σs² = Σs). */
export function ratioAndSe(s: Sums): { r: number; se: number } {
  const { n } = s;
  const r = s.cost / s.wins;
  const c = s.cost / n;
  const p = s.wins / n;
  // Var(c̄ − R·p̂)/p² with the sample (n − 1) moments of d = cost − R·success: the linearised ratio.
  const ssd = s.cost2 - 2 * r * s.costWins + r * r * s.wins - n * (c - r * p) ** 2;
  // Runs all alike leave only rounding here (the sums cancel): that is no spread, not a tiny one.
  const spread = ssd > 1e-12 * (s.cost2 + r * r * s.wins) ? ssd : 0;
  return { r, se: Math.sqrt(spread / (n - 1) / n) / (p * r) };
}

/** What the runs alone say, before the brakes: the bootstrap-t here; scripts/cost-methods.ts weighs others in its place. */
export type DataInterval = (costs: Float64Array, wins: Uint8Array, sums: Sums) => Interval;

/** Σ cost ÷ successes with its interval; `budgetUsd` is the runs' per-run budget (null: none known). Null when no run was checked. */
export function costPerSuccess(
  runs: ReadonlyArray<{ cost_usd: number; success: boolean | null }>,
  budgetUsd: number | null = null,
  fromData: DataInterval = bootstrapT,
): CostPerSuccess | null {
  const checked = runs.filter((r): r is { cost_usd: number; success: boolean } => r.success !== null);
  const n = checked.length;
  if (n === 0) return null;
  const costs = Float64Array.from(checked, (r) => r.cost_usd);
  const wins = Uint8Array.from(checked, (r) => (r.success ? 1 : 0));
  const sums = sumsOf(checked);
  if (sums.wins === 0) return { value: Infinity, ci: null, unseen_failures: null, wide_spread: null };
  const value = sums.cost / sums.wins;
  if (n < 2) return { value, ci: null, unseen_failures: null, wide_spread: null };
  const alpha = (1 - CONFIDENCE) / 2;
  const failures = n - sums.wins;
  const rateHi = clopperPearsonUpper(failures, n, alpha);
  const successMean = (sums.cost - failuresCost(costs, wins)) / sums.wins;
  // The most the ratio can be if failures run at their bound rate and each spends the whole budget.
  const braked = budgetUsd === null || rateHi >= 1 ? Infinity : successMean + (rateHi / (1 - rateHi)) * budgetUsd;
  const data = n < MIN_BOOTSTRAP_RUNS ? deltaMethod(sums) : fromData(costs, wins, sums);
  const wide_spread = budgetUsd === null ? wideSpread(costs) : null;
  // A run recorded above its budget (one not braked by it) cannot pull the cap below the estimate itself.
  if (failures > 0)
    return {
      value,
      ci: { lo: data.lo, hi: Math.max(value, Math.min(data.hi, braked)) },
      unseen_failures: null,
      wide_spread,
    };
  const adds = budgetUsd === null ? null : (rateHi / (1 - rateHi)) * budgetUsd;
  return {
    value,
    ci: { lo: data.lo, hi: data.hi + (adds ?? 0) },
    unseen_failures: { runs: n, failure_rate_hi: rateHi, budget_usd: budgetUsd, adds_usd: adds, seen_hi: data.hi },
    wide_spread,
  };
}

/** ln cost's spread when it reaches WIDE_LOG_SD (runs that cost nothing have no logarithm and are left out); else null. */
export function wideSpread(costs: ArrayLike<number>): WideSpread | null {
  const logs = Array.from(costs)
    .filter((c) => c > 0)
    .map(Math.log);
  if (logs.length < 2) return null;
  const sd = Math.sqrt(sampleVariance(logs));
  return sd >= WIDE_LOG_SD ? { log_sd: sd } : null;
}

export function add(s: Sums, cost: number, win: number): void {
  s.cost += cost;
  s.wins += win;
  s.cost2 += cost * cost;
  s.costWins += cost * win;
}

function failuresCost(costs: Float64Array, wins: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < costs.length; i++) if (!wins[i]) sum += costs[i]!;
  return sum;
}

/** The delta method on the log scale: R·exp(±t(n − 1)·se), se the standard error of ln R. */
export function deltaMethod(sums: Sums): Interval {
  const { r, se } = ratioAndSe(sums);
  const half = tCritical(sums.n - 1, CONFIDENCE) * se;
  return se > 0 ? { lo: r * Math.exp(-half), hi: r * Math.exp(half) } : { lo: r, hi: r };
}

/** The sums a sample's ratio and standard error are read from. */
export function sumsOf(runs: ReadonlyArray<{ cost_usd: number; success: boolean }>): Sums {
  const s: Sums = { n: runs.length, cost: 0, wins: 0, cost2: 0, costWins: 0 };
  for (const r of runs) add(s, r.cost_usd, r.success ? 1 : 0);
  return s;
}

/** The percentile-t interval on the log scale: R·exp(−t*(97.5 %)·se) … R·exp(−t*(2.5 %)·se), t* = (ln R* − ln R)/se* over the resamples. */
export function bootstrapT(costs: Float64Array, wins: Uint8Array, sums: Sums): Interval {
  const { r, se } = ratioAndSe(sums);
  // Every run alike, or nothing cost anything: nothing varies, the ratio is exact.
  if (!(se > 0)) return { lo: r, hi: r };
  const n = costs.length;
  const random = mulberry32(SEED);
  const t = new Float64Array(BOOTSTRAP_RESAMPLES);
  const s: Sums = { n, cost: 0, wins: 0, cost2: 0, costWins: 0 };
  for (let b = 0; b < BOOTSTRAP_RESAMPLES; b++) {
    s.cost = s.wins = s.cost2 = s.costWins = 0;
    for (let i = 0; i < n; i++) {
      const j = Math.floor(random() * n);
      add(s, costs[j]!, wins[j]!);
    }
    if (s.wins === 0) {
      // No success drawn: the ratio is unbounded, as far above R as a t value can be.
      t[b] = Infinity;
      continue;
    }
    const star = ratioAndSe(s);
    const d = Math.log(star.r / r);
    // A resample whose runs are all alike (one run drawn n times, or one cost repeated) has no spread of its own
    // to studentize by: it is scaled by the sample's, as the basic bootstrap would, rather than sent to ±∞.
    t[b] = d / (star.se > 0 ? star.se : se);
  }
  t.sort();
  const alpha = (1 - CONFIDENCE) / 2;
  return { lo: r * Math.exp(-quantileOfSorted(t, 1 - alpha) * se), hi: r * Math.exp(-quantileOfSorted(t, alpha) * se) };
}
