// Per-configuration summary of run records: what a cost review reads first.
import type { StopReason } from '../../contracts/stop-reason.ts';
import { isRefused, type RunFacts, type StepRecord } from '../../contracts/records.ts';
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

/** Mean tokens at one step index of one configuration, over the runs that reached it. */
export interface StepPoint {
  config_id: string;
  scenario: string;
  max_steps: number | null;
  step: number;
  calls: number;
  /** Runs that reached this step (every mean here is over them, not over all the configuration's runs). */
  runs: number;
  /** Mean input tokens of the call(s) at this step: grows linearly with the history. */
  input_tokens: number;
  /** Mean input tokens consumed by the run up to and including this step: grows quadratically. */
  cum_input_tokens: number;
  /** Mean cost of the run up to and including this step (USD, at the report's prices). */
  cum_cost_usd: number;
}

/** One configuration's sums, a column per figure indexed by step (a step no call reached has 0 calls). */
class StepColumns {
  calls = new Int32Array(64);
  runs = new Int32Array(64);
  /** The run (its number in the accumulator) a step last counted. */
  lastRun = new Int32Array(64).fill(-1);
  input = new Float64Array(64);
  cum = new Float64Array(64);
  cost = new Float64Array(64);
  /** One past the largest step seen. */
  end = 0;

  constructor(
    readonly scenario: string,
    readonly maxSteps: number | null,
  ) {}

  /** Room for `step`, each column doubled as it fills. */
  reach(step: number): void {
    if (step >= this.end) this.end = step + 1;
    if (step < this.calls.length) return;
    let size = this.calls.length;
    while (size <= step) size *= 2;
    const grow = <A extends Int32Array | Float64Array>(a: A, b: A): A => {
      b.set(a);
      return b;
    };
    this.calls = grow(this.calls, new Int32Array(size));
    this.runs = grow(this.runs, new Int32Array(size));
    this.lastRun = grow(this.lastRun, new Int32Array(size).fill(-1));
    this.input = grow(this.input, new Float64Array(size));
    this.cum = grow(this.cum, new Float64Array(size));
    this.cost = grow(this.cost, new Float64Array(size));
  }
}

/**
 * Per (configuration, step) sums, fed one StepRecord at a time, so a 55,000-call sweep needs O(configs × steps)
 * memory, held as columns (a million-step import's cells as objects took ~1 GB). A run's records come
 * together (build.ts reads them run by run), so a cell counts a run when its run changes.
 */
export class StepIndexAccumulator {
  private readonly configs = new Map<string, StepColumns>();
  /** Run ids by number, so a cell's last run is a number, not a string. */
  private readonly runNumbers = new Map<string, number>();
  private lastRunId = '';
  private lastRunNumber = -1;
  private taken = false;

  add(r: StepRecord): void {
    // A request the gateway refused reached no model: it is in the run's calls, not in a step's figures.
    if (isRefused(r)) return;
    let c = this.configs.get(r.config_id);
    if (!c) this.configs.set(r.config_id, (c = new StepColumns(r.scenario, r.settings.limits.max_steps)));
    if (r.run_id !== this.lastRunId) {
      let n = this.runNumbers.get(r.run_id);
      if (n === undefined) this.runNumbers.set(r.run_id, (n = this.runNumbers.size));
      this.lastRunId = r.run_id;
      this.lastRunNumber = n;
    }
    const i = r.step;
    c.reach(i);
    c.calls[i]!++;
    if (c.lastRun[i] !== this.lastRunNumber) {
      c.runs[i]!++;
      c.lastRun[i] = this.lastRunNumber;
    }
    c.input[i]! += r.input_tokens;
    c.cum[i]! += r.cum_input_tokens;
    c.cost[i]! += r.cum_cost_usd;
  }

  /**
   * The points by configuration (in localeCompare order), then step, taken once: the columns are let go,
   * since a million-step import's (~38 MB) would otherwise stay held through the report's end, where its
   * peak memory is.
   */
  points(): StepPoint[] {
    if (this.taken) throw new Error('StepIndexAccumulator.points() is taken once');
    this.taken = true;
    const out: StepPoint[] = [];
    for (const id of [...this.configs.keys()].sort((a, b) => a.localeCompare(b))) {
      const c = this.configs.get(id)!;
      for (let step = 0; step < c.end; step++) {
        const calls = c.calls[step]!;
        if (calls === 0) continue;
        out.push({
          config_id: id,
          scenario: c.scenario,
          max_steps: c.maxSteps,
          step,
          calls,
          runs: c.runs[step]!,
          input_tokens: c.input[step]! / calls,
          cum_input_tokens: c.cum[step]! / calls,
          cum_cost_usd: c.cost[step]! / calls,
        });
      }
    }
    this.configs.clear();
    return out;
  }
}
