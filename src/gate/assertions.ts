// Evaluates a scenario's budgets over its run records. Pure: records in, verdicts out.
import type { RunFacts } from '../contracts/records.ts';
import { wilson } from '../report/aggregate.ts';
import { spread } from '../report/stats.ts';
import { METRICS, STATS, type AssertionsSpec, type Metric, type Stat } from './budgets-schema.ts';
import { formatValue } from './format.ts';
import { successInterval } from './decision-stats.ts';
import type { Verdict } from './verdict.ts';

export const METRIC_OF: Record<Metric, (r: RunFacts) => number> = {
  steps: (r) => r.steps,
  calls: (r) => r.calls,
  input_tokens: (r) => r.input_tokens,
  output_tokens: (r) => r.output_tokens,
  total_tokens: (r) => r.input_tokens + r.output_tokens,
  cost_usd: (r) => r.cost_usd,
};

/** The names a budget goes by in every output (verdict lines, JUnit, summary.md, sampling reasons). */
export const budgetName = {
  stopReason: (reasons: readonly string[]) => `stop_reason in [${reasons.join(', ')}]`,
  successRate: (min: number) => `success_rate ≥ ${min}`,
  bound: (metric: Metric, stat: Stat, max: number) => `${metric} ${stat} ≤ ${formatValue(metric, max)}`,
};

/**
 * `successConfidence`: the two-sided confidence of the success rate's Wilson bound; by default 95 %,
 * under adaptive repeats each look's Bonferroni share (so the final verdict is the last decision).
 */
export function evaluateAssertions(scenario: string, a: AssertionsSpec, runs: readonly RunFacts[], successConfidence?: number): Verdict[] {
  const out: Verdict[] = [];
  const verdict = (name: string, pass: boolean, measured: string, limit: string, why: string) =>
    out.push({ suite: scenario, name, pass, measured, limit, message: `${scenario}: ${name} ${pass ? 'holds' : 'breached'}: ${why}` });
  const n = runs.length;

  if (a.stop_reason) {
    const name = budgetName.stopReason(a.stop_reason);
    const bad = runs.filter((r) => !a.stop_reason!.includes(r.stop_reason));
    const counts = new Map<string, number>();
    for (const r of bad) counts.set(r.stop_reason, (counts.get(r.stop_reason) ?? 0) + 1);
    const others = [...counts].map(([k, v]) => `${k} ${v}`).join(', ');
    const measured = n === 0 ? 'no runs' : `${n - bad.length}/${n} in the list${others ? ` (${others})` : ''}`;
    verdict(name, n > 0 && bad.length === 0, measured, `every run`, measured);
  }
  if (a.success_rate) {
    const checked = runs.filter((r) => r.success !== null);
    const k = checked.filter((r) => r.success).length;
    const lower = successConfidence === undefined ? wilson(k, checked.length).lo : successInterval(k, checked.length, successConfidence).lo;
    const level = successConfidence === undefined ? '95%' : `${Number((successConfidence * 100).toFixed(2))}%`;
    // Three decimals: a bound of 0.896 must not read as the 0.9 it fails.
    const measured = `${k}/${checked.length} (${level} lower bound ${lower.toFixed(3)})`;
    const limit = `≥ ${a.success_rate.min}`;
    verdict(budgetName.successRate(a.success_rate.min), checked.length > 0 && lower >= a.success_rate.min, measured, limit, `${measured}, needs ${limit}`);
  }
  for (const metric of METRICS) {
    const bounds = a[metric];
    if (!bounds) continue;
    const s = spread(runs.map(METRIC_OF[metric]));
    for (const stat of STATS) {
      const max = bounds[stat];
      if (max === undefined) continue;
      const name = budgetName.bound(metric, stat, max);
      const measured = n === 0 ? 'no runs' : formatValue(metric, s[stat]);
      verdict(name, n > 0 && s[stat] <= max, measured, `≤ ${formatValue(metric, max)}`, `measured ${measured} over ${n} run(s)`);
    }
  }
  return out;
}
