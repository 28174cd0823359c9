// Evaluates a scenario's budgets over its run records. Pure: records in, verdicts out.
import type { RunFacts } from '../contracts/records.ts';
import { wilson } from '../report/aggregate.ts';
import { spread } from '../report/stats.ts';
import { METRICS, STATS, type AssertionsSpec, type Metric } from './budgets-schema.ts';
import { formatValue } from './format.ts';
import type { Verdict } from './verdict.ts';

const METRIC_OF: Record<Metric, (r: RunFacts) => number> = {
  steps: (r) => r.steps,
  calls: (r) => r.calls,
  input_tokens: (r) => r.input_tokens,
  output_tokens: (r) => r.output_tokens,
  total_tokens: (r) => r.input_tokens + r.output_tokens,
  cost_usd: (r) => r.cost_usd,
};

export function evaluateAssertions(scenario: string, a: AssertionsSpec, runs: readonly RunFacts[]): Verdict[] {
  const out: Verdict[] = [];
  const verdict = (name: string, pass: boolean, measured: string, limit: string, why: string) =>
    out.push({ suite: scenario, name, pass, measured, limit, message: `${scenario}: ${name} ${pass ? 'holds' : 'breached'}: ${why}` });
  const n = runs.length;

  if (a.stop_reason) {
    const name = `stop_reason in [${a.stop_reason.join(', ')}]`;
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
    const lower = wilson(k, checked.length).lo;
    // Three decimals: a bound of 0.896 must not read as the 0.9 it fails.
    const measured = `${k}/${checked.length} (95% lower bound ${lower.toFixed(3)})`;
    const limit = `≥ ${a.success_rate.min}`;
    verdict(`success_rate ${limit}`, checked.length > 0 && lower >= a.success_rate.min, measured, limit, `${measured}, needs ${limit}`);
  }
  for (const metric of METRICS) {
    const bounds = a[metric];
    if (!bounds) continue;
    const s = spread(runs.map(METRIC_OF[metric]));
    for (const stat of STATS) {
      const max = bounds[stat];
      if (max === undefined) continue;
      const name = `${metric} ${stat} ≤ ${formatValue(metric, max)}`;
      const measured = n === 0 ? 'no runs' : formatValue(metric, s[stat]);
      verdict(name, n > 0 && s[stat] <= max, measured, `≤ ${formatValue(metric, max)}`, `measured ${measured} over ${n} run(s)`);
    }
  }
  return out;
}
