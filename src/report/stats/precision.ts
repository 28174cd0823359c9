// `bench run --repeat auto`: a configuration keeps sampling in batches until the figures a cost review
// reads are estimated precisely enough — the mean cost per run, and the success rate where the scenario
// checks its answer — or until max. A sample-size (precision) rule, not a test: it decides how many runs
// to take, not whether anything holds. Pure: runs in, decision out; the runner asks it for the next
// batch and the reports replay it over the records, so both say the same for a seed.
import type { AdaptiveSampling } from '../../contracts/sweep-state.ts';
import type { StopReason } from '../../contracts/stop-reason.ts';
import { wilson } from '../../stats/binomial.ts';
import { CONFIDENCE, meanInterval } from './intervals.ts';

/** The rule judges at the level every interval the reports print has. */
export const PRECISION_CONFIDENCE = CONFIDENCE;
export const DEFAULT_PRECISION = 0.05;

/** What the rule reads of a run: the repeat orders the runs, whatever order they finished in. */
export interface SampledRun {
  config_id: string;
  repeat: number;
  cost_usd: number;
  success: boolean | null;
  stop_reason: StopReason;
}

/** Sample sizes the rule looks at: min, min + batch, …, max. */
export function looksOf(r: Pick<AdaptiveSampling, 'min' | 'max' | 'batch'>): number[] {
  const looks: number[] = [];
  for (let n = r.min; n < r.max; n += r.batch) looks.push(n);
  looks.push(r.max);
  return looks;
}

export interface PrecisionLook {
  runs: number;
  /** Every run the same cost and outcome: the configuration does not vary with the seed. */
  alike: boolean;
  /** Half-width of the mean cost's 95 % interval ÷ the mean (Infinity below two runs). */
  cost: number;
  /** Half-width of the success rate's 95 % Wilson interval, in rate units; null without a check. */
  success: number | null;
  met: boolean;
}

/** The precision of one sample (two or more runs to say anything). */
export function judgePrecision(runs: readonly SampledRun[], precision: number): PrecisionLook {
  const costs = runs.map((r) => r.cost_usd);
  const { mean, ci } = meanInterval(costs);
  const alike =
    runs.length >= 2 && runs.every((r) => r.cost_usd === runs[0]!.cost_usd && r.success === runs[0]!.success);
  const half = ci ? (ci.hi - ci.lo) / 2 : Infinity;
  const cost = half === 0 ? 0 : mean > 0 ? half / mean : Infinity;
  const checked = runs.filter((r) => r.success !== null);
  let success: number | null = null;
  if (checked.length) {
    const w = wilson(checked.filter((r) => r.success).length, checked.length);
    success = (w.hi - w.lo) / 2;
  }
  return {
    runs: runs.length,
    alike,
    cost,
    success,
    met: alike || (cost <= precision && (success === null || success <= precision)),
  };
}

export interface PrecisionOutcome {
  config_id: string;
  runs: number;
  /** decided: precise enough before max; max: ran to max; short: fewer runs than the next look (spend cap, Ctrl-C). */
  stopped: 'decided' | 'max' | 'short';
  /** One sentence: how many runs and why sampling stopped. */
  reason: string;
}

/** Rounded up, so a printed figure never looks better than the one judged: 0.0504 → ±5.1 %. */
const up = (x: number) => (Math.ceil(x * 1000 - 1e-9) / 10).toFixed(1);

function figures(l: PrecisionLook): string {
  const cost = Number.isFinite(l.cost) ? `mean cost ±${up(l.cost)} %` : 'mean cost not yet estimable';
  return `${cost}${l.success === null ? '' : `, success rate ±${up(l.success)} points`} at ${PRECISION_CONFIDENCE * 100} %`;
}

/** The rule, replayed over one configuration's runs in repeat order: where it stopped, or the next look to reach. */
export function precisionSampling(
  configId: string,
  runs: readonly SampledRun[],
  r: AdaptiveSampling,
): { outcome: PrecisionOutcome } | { nextLook: number } {
  const ordered = runs.filter((x) => x.stop_reason !== 'interrupted').sort((a, b) => a.repeat - b.repeat);
  const precision = r.precision ?? DEFAULT_PRECISION;
  for (const n of looksOf(r)) {
    if (ordered.length < n) return { nextLook: n };
    const l = judgePrecision(ordered.slice(0, n), precision);
    if (l.alike)
      return {
        outcome: {
          config_id: configId,
          runs: n,
          stopped: 'decided',
          reason: `decided after ${n} runs: all ${n} alike (same cost and outcome), so more runs would repeat them`,
        },
      };
    if (l.met)
      return {
        outcome: { config_id: configId, runs: n, stopped: 'decided', reason: `decided after ${n} runs: ${figures(l)}` },
      };
    if (n === r.max) {
      const target = `±${up(precision)} %${l.success === null ? '' : ` and ±${up(precision)} points`}`;
      return {
        outcome: {
          config_id: configId,
          runs: n,
          stopped: 'max',
          reason: `ran to max ${n} runs: ${figures(l)} (target ${target})`,
        },
      };
    }
  }
  throw new Error('unreachable: the last look is max');
}

/** Each configuration's outcome over finished records, in the order given; one cut short (spend cap, Ctrl-C) says so. */
export function precisionOutcomes(runs: readonly SampledRun[], r: AdaptiveSampling): PrecisionOutcome[] {
  const byConfig = new Map<string, SampledRun[]>();
  for (const x of runs) {
    const own = byConfig.get(x.config_id);
    if (own) own.push(x);
    else byConfig.set(x.config_id, [x]);
  }
  return [...byConfig].map(([id, own]) => {
    const s = precisionSampling(id, own, r);
    if ('outcome' in s) return s.outcome;
    const taken = own.filter((x) => x.stop_reason !== 'interrupted');
    const so = taken.length >= 2 ? `: ${figures(judgePrecision(taken, r.precision ?? DEFAULT_PRECISION))}` : '';
    return {
      config_id: id,
      runs: taken.length,
      stopped: 'short',
      reason: `stopped short after ${taken.length} runs, before the look at ${s.nextLook}${so}`,
    };
  });
}

/** The design, for a reader: `10..100 runs by 10, each configuration until its mean cost is within ±5 % …`. */
export function describePrecisionDesign(r: AdaptiveSampling): string {
  const p = up(r.precision ?? DEFAULT_PRECISION);
  return `${r.min}..${r.max} runs by ${r.batch}; each configuration stops once its mean cost's ${PRECISION_CONFIDENCE * 100} % interval (Student t) is within ±${p} % of the mean and, where the answer is checked, the success rate's (Wilson) within ±${p} points, or at max`;
}
