// The whole verdict of a check: each scenario's budgets, its change against a baseline, and whether
// the spend cap cut the run short. Pure: records and settings in, verdicts out.
import type { RunFacts } from '../contracts/records.ts';
import type { ReplayMiss } from '../contracts/chat.ts';
import type { SpendState } from '../contracts/sweep-state.ts';
import { evaluateAssertions, type Decided } from './assertions.ts';
import { usd } from '../report/format/numbers.ts';
import { baselineOf, compareToBaseline, type Baseline } from './baseline.ts';
import type { ScenarioBudget } from './load-budgets.ts';
import type { Verdict } from './verdict.ts';

const missOf = (r: RunFacts) => r.extra?.replay_miss as ReplayMiss | undefined;

/** One verdict for a scenario whose requests the replayed cassette does not hold; null when it holds them all. */
function replayMiss(scenario: string, runs: readonly RunFacts[]): Verdict | null {
  const missed = runs.filter((r) => missOf(r));
  if (missed.length === 0) return null;
  const first = missOf(missed[0]!)!;
  const measured = `${missed.length} of ${runs.length} run(s) asked for requests not in the cassette`;
  return {
    suite: scenario,
    name: 'replay: requests recorded',
    pass: false,
    miss: true,
    measured,
    limit: 'every request recorded',
    message: `${scenario}: not measured — ${measured} ${first.cassette} (first at step ${first.step}: ${first.explanation}); re-record it against the real model`,
  };
}

/** A scenario the spend cap let no run of start: nothing was measured, which is not a breach either. */
function capped(scenario: string, runs: readonly RunFacts[], spend: SpendState | undefined): Verdict | null {
  if (runs.length > 0 || !spend?.stopped) return null;
  return {
    suite: scenario,
    name: 'spend cap: runs started',
    pass: false,
    miss: true,
    missKind: 'spend-cap',
    measured: 'no run started',
    limit: 'at least one run',
    message: `${scenario}: not measured — the spend cap ${usd(spend.cap_usd)} let none of its runs start (each reserves its worst case, its max_cost, before it starts); raise --ci-max-spend or lower max_cost`,
  };
}

/** `sequential` (adaptive repeats): each scenario's decided statistical budgets, which give their verdicts. */
export function judge(
  checks: readonly ScenarioBudget[],
  runs: readonly RunFacts[],
  o: {
    baseline?: Baseline;
    spend?: SpendState;
    sequential?: { confidence: number; decided: ReadonlyMap<string, ReadonlyMap<string, Decided>> };
  },
): Verdict[] {
  const now = baselineOf(runs, undefined).scenarios;
  const out: Verdict[] = [];
  for (const c of checks) {
    const id = c.scenario.id;
    const mine = runs.filter((r) => r.scenario === id);
    const missed = replayMiss(id, mine) ?? capped(id, mine, o.spend);
    if (missed) {
      // Runs that stopped on a replay miss measured nothing: judging them would report a breach that never happened.
      out.push(missed);
      continue;
    }
    const seq = o.sequential && {
      confidence: o.sequential.confidence,
      decided: o.sequential.decided.get(id) ?? new Map<string, Decided>(),
    };
    out.push(...evaluateAssertions(id, c.assertions, mine, seq));
    if (o.baseline && now[id]) out.push(...compareToBaseline(id, o.baseline.scenarios[id], now[id], c.maxRegression));
  }
  if (o.spend) {
    const s = o.spend;
    // Not one run fitted under the cap (the cap is below one run's worst case): nothing was measured, and nothing spent.
    if (s.stopped && runs.length === 0 && !s.overrun_usd) {
      out.push({
        suite: 'gate',
        name: `ci spend ≤ ${usd(s.cap_usd)}`,
        pass: false,
        miss: true,
        missKind: 'spend-cap',
        measured: `no run started, ${usd(s.spent_usd)} spent`,
        limit: `≤ ${usd(s.cap_usd)}`,
        message: `the spend cap ${usd(s.cap_usd)} is below one run's worst case (its max_cost), so no run started and nothing was measured; raise --ci-max-spend or lower max_cost`,
      });
      return out;
    }
    out.push({
      suite: 'gate',
      name: `ci spend ≤ ${usd(s.cap_usd)}`,
      pass: !s.stopped,
      measured: `${usd(s.spent_usd)} spent${s.stopped ? `, ${s.runs_skipped} run(s) not started` : ''}`,
      limit: `≤ ${usd(s.cap_usd)}`,
      message: s.overrun_usd
        ? `a model returned more output than max_tokens: runs spent ${usd(s.overrun_usd)} beyond their budgets, so no further run was started (${s.runs_skipped} not started; ${usd(s.spent_usd)} spent of the ${usd(s.cap_usd)} cap)`
        : s.stopped
          ? `the spend cap ${usd(s.cap_usd)} stopped the check: ${s.runs_skipped} run(s) were not started, so the budgets were judged on partial results`
          : `spent ${usd(s.spent_usd)} of the ${usd(s.cap_usd)} cap`,
    });
  }
  return out;
}
