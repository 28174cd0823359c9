// Per-configuration summary of run records: what a cost review reads first.
import type { StopReason } from '../../contracts/stop-reason.ts';
import type { RunFacts } from '../../contracts/records.ts';
import type { ConfigSettings } from '../../contracts/settings.ts';
import { groupBy } from '../data/group.ts';
import { spread, type Spread } from './descriptive.ts';
import { wilson } from '../../stats/binomial.ts';
import { costPerSuccess, type CostPerSuccess } from './cost-per-success.ts';
import type { Interval } from './intervals.ts';

export interface ConfigSummary {
  config_id: string;
  scenario: string;
  settings: ConfigSettings;
  runs: number;
  /** Runs whose answer was checked (the success rate's denominator). */
  checked: number;
  /** Runs whose answer was checked and passed; null when the scenario has no check. */
  successes: number | null;
  success_rate: number | null;
  /** Wilson 95% interval of the success rate: honest at 10 runs and at 0% or 100%. */
  success_ci: Interval | null;
  /** Σ cost ÷ successes over the checked runs, with its interval (cost-per-success.ts); null when the scenario has no check. */
  cost_per_success: CostPerSuccess | null;
  stop_reasons: Partial<Record<StopReason, number>>;
  /** For each stop reason, the first and last step at which it fired. */
  stop_steps: Partial<Record<StopReason, { min: number; max: number }>>;
  steps: Spread;
  calls: Spread;
  input_tokens: Spread;
  output_tokens: Spread;
  cached_tokens: Spread;
  cost_usd: Spread;
  total_cost_usd: number;
}

/** Runs grouped by configuration, in the order configurations first appear. */
export function groupByConfig<R extends RunFacts>(runs: readonly R[]): R[][] {
  return [...groupBy(runs, (r) => r.config_id).values()];
}

/**
 * One configuration's cost per successful task, braked by its runs' budget unless the costs are `repriced`
 * (at other prices than the budget was spent in): the one call every figure of it goes through.
 */
export const configCostPerSuccess = (runs: readonly RunFacts[], repriced: boolean): CostPerSuccess | null =>
  runs.length ? costPerSuccess(runs, repriced ? null : runs[0]!.settings.limits.max_cost_usd) : null;

/** Names in natural order: `steps=12` before `steps=100`. The one order of configurations in every report. */
export const naturalOrder = new Intl.Collator('en', { numeric: true }).compare;

/**
 * `repriced`: the costs are at other prices than the runs were braked at, so a run's budget (max_cost_usd,
 * in the prices it ran at) no longer caps what it costs here, and cost per success cannot lean on it.
 */
export function summarizeConfigs(
  runs: readonly RunFacts[],
  { repriced = false }: { repriced?: boolean } = {},
): ConfigSummary[] {
  // Scenarios in the order they first appear, configurations in natural order (steps=12 before steps=30).
  const scenarioOrder = [...new Set(runs.map((r) => r.scenario))];
  const ordered = groupByConfig(runs).sort(
    (a, b) =>
      scenarioOrder.indexOf(a[0]!.scenario) - scenarioOrder.indexOf(b[0]!.scenario) ||
      naturalOrder(a[0]!.config_id, b[0]!.config_id),
  );
  return ordered.map((g) => {
    const first = g[0]!;
    const checked = g.filter((r) => r.success !== null);
    const successes = checked.length ? checked.filter((r) => r.success).length : null;
    const stop_reasons: Partial<Record<StopReason, number>> = {};
    const stop_steps: ConfigSummary['stop_steps'] = {};
    for (const r of g) {
      stop_reasons[r.stop_reason] = (stop_reasons[r.stop_reason] ?? 0) + 1;
      const at = stop_steps[r.stop_reason];
      stop_steps[r.stop_reason] = at
        ? { min: Math.min(at.min, r.stop_step), max: Math.max(at.max, r.stop_step) }
        : { min: r.stop_step, max: r.stop_step };
    }
    const pick = (f: (r: RunFacts) => number) => spread(g.map(f));
    return {
      config_id: first.config_id,
      scenario: first.scenario,
      settings: first.settings,
      runs: g.length,
      checked: checked.length,
      successes,
      success_rate: successes === null ? null : successes / checked.length,
      success_ci: successes === null ? null : wilson(successes, checked.length),
      cost_per_success: configCostPerSuccess(checked, repriced),
      stop_reasons,
      stop_steps,
      steps: pick((r) => r.steps),
      calls: pick((r) => r.calls),
      input_tokens: pick((r) => r.input_tokens),
      output_tokens: pick((r) => r.output_tokens),
      cached_tokens: pick((r) => r.cached_tokens),
      cost_usd: pick((r) => r.cost_usd),
      total_cost_usd: g.reduce((s, r) => s + r.cost_usd, 0),
    };
  });
}
