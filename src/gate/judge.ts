// The whole verdict of a check: each scenario's budgets, its change against a baseline, and whether
// the spend cap cut the run short. Pure: records and settings in, verdicts out.
import type { RunFacts } from '../contracts/records.ts';
import type { SpendState } from '../contracts/sweep-state.ts';
import { evaluateAssertions } from './assertions.ts';
import { usd } from '../report/format.ts';
import { baselineOf, compareToBaseline, type Baseline } from './baseline.ts';
import type { ScenarioBudget } from './load-budgets.ts';
import type { Verdict } from './verdict.ts';

export function judge(checks: readonly ScenarioBudget[], runs: readonly RunFacts[], o: { baseline?: Baseline; spend?: SpendState; successConfidence?: number }): Verdict[] {
  const now = baselineOf(runs).scenarios;
  const out: Verdict[] = [];
  for (const c of checks) {
    const id = c.scenario.id;
    out.push(...evaluateAssertions(id, c.assertions, runs.filter((r) => r.scenario === id), o.successConfidence));
    if (o.baseline && now[id]) out.push(...compareToBaseline(id, o.baseline.scenarios[id], now[id], c.maxRegression));
  }
  if (o.spend) {
    const s = o.spend;
    out.push({
      suite: 'gate',
      name: `ci spend ≤ ${usd(s.cap_usd)}`,
      pass: !s.stopped,
      measured: `${usd(s.spent_usd)} spent${s.stopped ? `, ${s.runs_skipped} run(s) not started` : ''}`,
      limit: `≤ ${usd(s.cap_usd)}`,
      message: s.stopped
        ? `the spend cap ${usd(s.cap_usd)} stopped the check: ${s.runs_skipped} run(s) were not started, so the budgets were judged on partial results`
        : `spent ${usd(s.spent_usd)} of the ${usd(s.cap_usd)} cap`,
    });
  }
  return out;
}
