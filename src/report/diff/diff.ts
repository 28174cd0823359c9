// Two sweeps side by side: for every configuration both ran (same scenario, same config id), cost,
// tokens and steps per run and the success rate, A then B, with the change B − A and its 95%
// interval — Welch's for the means (unequal variances), Newcombe's hybrid score interval for the
// difference of success rates. Cost per successful task gets each sweep's own interval (the report's
// definition, cost-per-success.ts) and no interval of B − A: loopbench computes none for a difference of two
// ratios, so the reading says only whether the two intervals are apart. Reads the results store only.
import type { RunFacts } from '../../contracts/records.ts';
import { groupBy } from '../data/group.ts';
import { proportionDifference, welchDifference } from '../stats/intervals.ts';
import { mean } from '../stats/descriptive.ts';
import type { Interval } from '../stats/intervals.ts';
import { configCostPerSuccess } from '../stats/aggregate.ts';
import type { CostPerSuccess } from '../stats/cost-per-success.ts';

export const METRICS = ['cost', 'tokens', 'steps', 'success', 'cost_per_success'] as const;
export type Metric = (typeof METRICS)[number];
export const METRIC_NAMES: Record<Metric, string> = {
  cost: 'cost per run (USD)',
  tokens: 'tokens per run (input + output)',
  steps: 'steps per run',
  success: 'success rate',
  cost_per_success: 'cost per successful task (USD)',
};
export const INTERVAL_METHODS: Record<Metric, string> = {
  cost: 'Welch',
  tokens: 'Welch',
  steps: 'Welch',
  success: 'Newcombe',
  cost_per_success: 'each side',
};

export interface DiffRow {
  scenario: string;
  config_id: string;
  metric: Metric;
  runs_a: number;
  runs_b: number;
  /** Mean per run (a rate for success). */
  a: number;
  b: number;
  /** For success: k of n, each side. */
  successes_a: number | null;
  successes_b: number | null;
  /** b − a (NaN when a side has no success: Infinity less Infinity), and b / a − 1 (null when a is 0 or infinite). */
  change: number;
  relative: number | null;
  /** 95% interval of b − a; null with fewer than two runs a side, and for cost per success (none is computed). */
  ci: Interval | null;
  /** Cost per success only: each side's own figure with its 95% interval. */
  each: { a: CostPerSuccess; b: CostPerSuccess } | null;
}

export interface SweepDiff {
  rows: DiffRow[];
  /** Configurations only one sweep ran. */
  onlyA: string[];
  onlyB: string[];
}

const METRIC_OF: Record<Exclude<Metric, 'success' | 'cost_per_success'>, (r: RunFacts) => number> = {
  cost: (r) => r.cost_usd,
  tokens: (r) => r.input_tokens + r.output_tokens,
  steps: (r) => r.steps,
};

/** Configurations in A's order (each sweep's runs arrive in plan order), then each metric. */
export function diffSweeps(a: readonly RunFacts[], b: readonly RunFacts[]): SweepDiff {
  const [byA, byB] = [groupBy(a, (r) => r.config_id), groupBy(b, (r) => r.config_id)];
  const rows: DiffRow[] = [];
  for (const [id, ra] of byA) {
    const rb = byB.get(id);
    if (!rb) continue;
    const base = {
      scenario: ra[0]!.scenario,
      config_id: id,
      runs_a: ra.length,
      runs_b: rb.length,
      successes_a: null,
      successes_b: null,
      each: null,
    };
    for (const metric of ['cost', 'tokens', 'steps'] as const) {
      const [xa, xb] = [ra.map(METRIC_OF[metric]), rb.map(METRIC_OF[metric])];
      const { diff, ci } = welchDifference(xa, xb);
      const ma = mean(xa);
      rows.push({ ...base, metric, a: ma, b: mean(xb), change: diff, relative: ma === 0 ? null : diff / ma, ci });
    }
    const [ca, cb] = [ra.filter((r) => r.success !== null), rb.filter((r) => r.success !== null)];
    if (ca.length && cb.length) {
      const [ka, kb] = [ca.filter((r) => r.success).length, cb.filter((r) => r.success).length];
      const { diff, ci } = proportionDifference(ka, ca.length, kb, cb.length);
      rows.push({
        ...base,
        metric: 'success',
        a: ka / ca.length,
        b: kb / cb.length,
        successes_a: ka,
        successes_b: kb,
        runs_a: ca.length,
        runs_b: cb.length,
        change: diff,
        relative: null,
        ci,
      });
      // Checked runs on both sides, so neither is null.
      const [pa, pb] = [configCostPerSuccess(ca, false)!, configCostPerSuccess(cb, false)!];
      rows.push({
        ...base,
        metric: 'cost_per_success',
        a: pa.value,
        b: pb.value,
        runs_a: ca.length,
        runs_b: cb.length,
        change: pb.value - pa.value,
        relative: pa.value > 0 && Number.isFinite(pa.value + pb.value) ? pb.value / pa.value - 1 : null,
        ci: null,
        each: { a: pa, b: pb },
      });
    }
  }
  return { rows, onlyA: [...byA.keys()].filter((k) => !byB.has(k)), onlyB: [...byB.keys()].filter((k) => !byA.has(k)) };
}
