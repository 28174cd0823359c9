// Evaluates a scenario's budgets over its run records. Pure: records in, verdicts out.
import type { RunFacts } from '../contracts/records.ts';
import { wilson } from '../stats/binomial.ts';
import { spread } from '../report/stats/descriptive.ts';
import { METRICS, STATS, type AssertionsSpec, type Metric, type Stat } from './budgets-schema.ts';
import { formatValue } from './format.ts';
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

/** A statistical budget adaptive repeats decided, and after how many runs. */
export interface Decided {
  decision: 'pass' | 'fail';
  at: number;
}

/**
 * `sequential` (adaptive repeats): the success rate, mean, p50 and p95 budgets take their verdict
 * from the sequential decision — a budget passes only when shown to hold at `confidence`, so one
 * still undecided (absent from `decided`) fails. Without it, the fixed-count verdicts.
 */
export function evaluateAssertions(
  scenario: string,
  a: AssertionsSpec,
  runs: readonly RunFacts[],
  sequential?: { confidence: number; decided: ReadonlyMap<string, Decided> },
): Verdict[] {
  const out: Verdict[] = [];
  // `undecided`: adaptive sampling settled it neither way, so it is not shown to hold (a failure, not a breach).
  const verdict = (name: string, pass: boolean, measured: string, limit: string, why: string, undecided = false) => {
    const word = undecided ? 'not shown to hold' : pass ? 'holds' : 'breached';
    out.push({
      suite: scenario,
      name,
      pass,
      measured,
      limit,
      message: `${scenario}: ${name} ${word}: ${why}`,
      ...(undecided ? { undecided: true as const } : {}),
    });
  };
  // A statistical budget under adaptive repeats: its decision, and a note saying which.
  const settled = (name: string) => {
    const d = sequential!.decided.get(name);
    const at = `${Number((sequential!.confidence * 100).toFixed(2))} %`;
    if (!d) return { pass: false, note: `undecided at ${at} after ${n} runs`, undecided: true };
    return {
      pass: d.decision === 'pass',
      note: `${d.decision === 'pass' ? 'held' : 'breached'} at ${at} after ${d.at} runs`,
      undecided: false,
    };
  };
  const n = runs.length;

  if (a.stop_reason) {
    const name = budgetName.stopReason(a.stop_reason);
    const bad = runs.filter((r) => !a.stop_reason!.includes(r.stop_reason));
    const counts = new Map<string, number>();
    for (const r of bad) counts.set(r.stop_reason, (counts.get(r.stop_reason) ?? 0) + 1);
    // Counts of runs, said as runs: "2 ended with max_steps", never "max_steps 2", which reads as a limit.
    const others = [...counts].map(([k, v]) => `${v} ended with ${k}`).join(', ');
    const measured = n === 0 ? 'no runs' : `${n - bad.length}/${n} runs in the list${others ? `; ${others}` : ''}`;
    verdict(name, n > 0 && bad.length === 0, measured, `every run`, measured);
  }
  if (a.success_rate) {
    const checked = runs.filter((r) => r.success !== null);
    const k = checked.filter((r) => r.success).length;
    const name = budgetName.successRate(a.success_rate.min);
    const limit = `≥ ${a.success_rate.min}`;
    if (sequential) {
      const s = settled(name);
      const measured = `${k}/${checked.length} (${s.note})`;
      verdict(name, s.pass, measured, limit, `${measured}, needs ${limit}`, s.undecided);
    } else {
      const lower = wilson(k, checked.length).lo;
      // Three decimals, rounded down: a bound of 0.896 must not read as the 0.9 it fails, nor 0.8996 as 0.900.
      const measured = `${k}/${checked.length} (95% lower bound ${(Math.floor(lower * 1000) / 1000).toFixed(3)})`;
      verdict(name, checked.length > 0 && lower >= a.success_rate.min, measured, limit, `${measured}, needs ${limit}`);
    }
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
      const limit = `≤ ${formatValue(metric, max)}`;
      if (sequential && stat !== 'max') {
        const d = settled(name);
        verdict(
          name,
          d.pass,
          `${measured} (${d.note})`,
          limit,
          `measured ${measured} over ${n} run(s), ${d.note}`,
          d.undecided,
        );
      } else verdict(name, n > 0 && s[stat] <= max, measured, limit, `measured ${measured} over ${n} run(s)`);
    }
  }
  return out;
}
