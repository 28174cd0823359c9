// Adaptive repeats: after each batch, is every budget of a scenario decided? A statistical budget is
// decided by a one-sided test at the stated confidence, its α spent over the planned looks
// (decision-stats.ts): a success rate, p50 or p95 by exact group-sequential boundaries on a count, a
// mean by a one-sided t bound. Once decided it stays decided (the boundaries assume a crossing path
// stops). An every-run budget (stop_reason, max) is decided the moment a run breaks it and otherwise
// does not hold sampling open (no sample proves "every run"). Pure: runs in, decisions out.
import type { RunFacts } from '../contracts/records.ts';
import { expandSweep, repeatOfRunId, type RunPlan, type SweepSpec } from '../runner/sweep.ts';
import type { SweepOptions } from '../runner/sweep-runner.ts';
import type { ScenarioBudget } from './load-budgets.ts';
import { budgetName, METRIC_OF, type Decided } from './assertions.ts';
import { METRICS, STATS, type AdaptiveRepeats, type AssertionsSpec } from './budgets-schema.ts';
import { meanBounds, sequentialDesign, type SequentialDesign } from './decision-stats.ts';

export type Decision = 'pass' | 'fail' | 'open';

export interface BudgetDecision {
  name: string;
  decision: Decision;
  /** Decided by a test at the stated confidence (false: an every-run budget). */
  statistical: boolean;
  /** Why an open budget cannot be decided yet, when no count the sample can reach would decide it. */
  needs?: string;
}

/** The q a quantile budget is a count budget at: p ≤ limit exactly when P(X ≤ limit) ≥ q. */
const QUANTILE = { p50: 0.5, p95: 0.95 } as const;

/** The first look's size at which a count budget of this bar could pass (every run meeting it), if any. */
function firstPassableLook(bar: number, d: SequentialDesign): number | undefined {
  const b = d.boundaries(bar);
  return d.looks.find((n, j) => b.pass[j]! <= n);
}

/**
 * A count budget (successes; runs within a quantile budget's limit) at look k: pass at or above the
 * look's boundary, fail at or below the other. `needs` when too few runs could ever show it holds.
 */
function countDecision(count: number, k: number, bar: number, d: SequentialDesign, name: string): BudgetDecision {
  const b = d.boundaries(bar);
  const decision: Decision = count >= b.pass[k]! ? 'pass' : count <= b.fail[k]! ? 'fail' : 'open';
  const first = firstPassableLook(bar, d);
  const needs =
    decision !== 'open' || (first !== undefined && first <= d.looks[k]!)
      ? {}
      : {
          needs:
            first === undefined
              ? `${name} cannot be shown to hold within ${d.looks.at(-1)} runs`
              : `${name} can first be shown to hold at ${first} runs`,
        };
  return { name, decision, statistical: true, ...needs };
}

/** Every budget's decision on the first looks[k] runs, as look k of design `d` judges it. */
export function decideBudgets(
  a: AssertionsSpec,
  runs: readonly RunFacts[],
  k: number,
  d: SequentialDesign,
): BudgetDecision[] {
  const out: BudgetDecision[] = [];
  const n = runs.length;
  if (a.stop_reason) {
    const broken = runs.some((r) => !a.stop_reason!.includes(r.stop_reason));
    out.push({
      name: budgetName.stopReason(a.stop_reason),
      decision: broken ? 'fail' : n > 0 ? 'pass' : 'open',
      statistical: false,
    });
  }
  if (a.success_rate) {
    const name = budgetName.successRate(a.success_rate.min);
    // The boundaries count trials at the looks' sizes; runs without a success check are no trials.
    if (runs.some((r) => r.success === null))
      out.push({ name, decision: 'open', statistical: true, needs: 'runs without a success check cannot decide it' });
    else out.push(countDecision(runs.filter((r) => r.success).length, k, a.success_rate.min, d, name));
  }
  for (const metric of METRICS) {
    const bounds = a[metric];
    if (!bounds) continue;
    const xs = runs.map(METRIC_OF[metric]);
    for (const stat of STATS) {
      const limit = bounds[stat];
      if (limit === undefined) continue;
      const name = budgetName.bound(metric, stat, limit);
      if (stat === 'max') {
        out.push({ name, decision: xs.some((x) => x > limit) ? 'fail' : n > 0 ? 'pass' : 'open', statistical: false });
        continue;
      }
      if (stat === 'mean') {
        const m = meanBounds(xs, d.lookAlpha[k]!);
        out.push({ name, decision: m.hi <= limit ? 'pass' : m.lo > limit ? 'fail' : 'open', statistical: true });
        continue;
      }
      // A success rate of "within the limit", whatever the distribution.
      out.push(countDecision(xs.filter((x) => x <= limit).length, k, QUANTILE[stat], d, name));
    }
  }
  return out;
}

export interface SamplingOutcome {
  scenario: string;
  /** Runs the decision used. */
  runs: number;
  /** decided: every budget settled (or one failed) before max; max: ran to max; short: fewer runs than the next look (capped or interrupted). */
  stopped: 'decided' | 'max' | 'short';
  /** One sentence: how many runs and why sampling stopped. */
  reason: string;
  /** The statistical budgets decided so far, by name, with the look that decided each: their verdicts (any other is not shown to hold). */
  decided: ReadonlyMap<string, Decided>;
}

const pct = (c: number) => `${Number((c * 100).toFixed(2))} %`;

/**
 * Replays the looks over a scenario's runs in repeat order: the outcome when sampling stopped, or
 * the sample size of the next look still to reach (with what the looks so far decided). The live
 * sweep and `--from` share it, so a seed gives the same answer both ways.
 */
export function sampling(
  scenario: string,
  a: AssertionsSpec,
  runs: readonly RunFacts[],
  r: AdaptiveRepeats,
): { outcome: SamplingOutcome } | { nextLook: number; decided: ReadonlyMap<string, Decided> } {
  const ordered = [...runs].sort((x, y) => repeatOfRunId(x.run_id) - repeatOfRunId(y.run_id));
  const design = sequentialDesign(r);
  const at = pct(r.confidence);
  const decided = new Map<string, Decided>();
  for (const [k, n] of design.looks.entries()) {
    if (ordered.length < n) return { nextLook: n, decided };
    const ds = decideBudgets(a, ordered.slice(0, n), k, design).map((d) => {
      if (!d.statistical) return d;
      const earlier = decided.get(d.name);
      if (earlier) return { name: d.name, decision: earlier.decision, statistical: true };
      if (d.decision !== 'open') decided.set(d.name, { decision: d.decision, at: n });
      return d;
    });
    const done = (stopped: SamplingOutcome['stopped'], reason: string) => ({
      outcome: { scenario, runs: n, stopped, reason, decided },
    });
    const failed = ds.find((d) => d.decision === 'fail');
    const open = ds.filter((d) => d.decision === 'open');
    if (failed)
      return done(
        'decided',
        `decided after ${n} runs: ${failed.name} breached ${failed.statistical ? `at ${at}` : 'by a run'}`,
      );
    if (open.length === 0) {
      const stats = ds.filter((d) => d.statistical).map((d) => d.name);
      return done(
        'decided',
        stats.length
          ? `decided after ${n} runs: ${stats.join(', ')} ${stats.length === 1 ? 'holds' : 'hold'} at ${at}`
          : `decided after ${n} runs: no budget is statistical and no run broke one`,
      );
    }
    if (n === r.max) {
      const needs = open.flatMap((d) => (d.needs ? [d.needs] : []));
      return done(
        'max',
        `ran to max ${n} runs: ${open.map((d) => d.name).join(', ')} undecided at ${at}${needs.length ? ` (${needs.join('; ')})` : ''}`,
      );
    }
  }
  throw new Error('unreachable: the last look is max');
}

/** Each scenario's outcome over finished results; a scenario cut short (spend cap, Ctrl-C) says so. */
export function samplingOutcomes(
  checks: ReadonlyArray<{ scenario: { id: string }; assertions: AssertionsSpec }>,
  runs: readonly RunFacts[],
  r: AdaptiveRepeats,
): SamplingOutcome[] {
  return checks.map((c) => {
    const own = runs.filter((x) => x.scenario === c.scenario.id && x.stop_reason !== 'interrupted');
    const s = sampling(c.scenario.id, c.assertions, own, r);
    if ('outcome' in s) return s.outcome;
    return {
      scenario: c.scenario.id,
      runs: own.length,
      stopped: 'short',
      reason: `stopped short after ${own.length} runs, before the look at ${s.nextLook}: undecided`,
      decided: s.decided,
    };
  });
}

/** The next batch: for each scenario not yet stopped, its repeats up to its next look, in plan order (empty: all stopped). */
export function nextBatch(
  plans: readonly RunPlan[],
  checks: ReadonlyArray<{ scenario: { id: string }; assertions: AssertionsSpec }>,
  runs: readonly RunFacts[],
  r: AdaptiveRepeats,
): RunPlan[] {
  const window = new Map<string, { from: number; to: number }>();
  for (const c of checks) {
    const own = runs.filter((x) => x.scenario === c.scenario.id);
    const s = sampling(c.scenario.id, c.assertions, own, r);
    if ('nextLook' in s) window.set(c.scenario.id, { from: own.length, to: s.nextLook });
  }
  return plans.filter((p) => {
    const w = window.get(p.scenario.id);
    return w !== undefined && p.settings.repeat >= w.from && p.settings.repeat < w.to;
  });
}

/** The sweep options of an adaptive check: every run of `max` repeats planned, batches taken from it until decided. */
export function adaptiveSweep(
  spec: SweepSpec,
  checks: readonly ScenarioBudget[],
  r: AdaptiveRepeats,
): NonNullable<SweepOptions['adaptive']> {
  const all = expandSweep(spec);
  return { sampling: r, next: (finished) => nextBatch(all, checks, finished, r) };
}

/**
 * Count budgets (success rates, p50 and p95 bounds) no sample up to `max` could show to hold: even
 * if every run met them, the last look's boundary is out of reach (a p95 needs 0.95^n ≤ α: 59 runs
 * at 95 %). Such a budget runs to `max` and fails; said before anything is paid for.
 */
export function unreachableBudgets(
  checks: ReadonlyArray<{ scenario: { id: string }; assertions: AssertionsSpec }>,
  r: AdaptiveRepeats,
): string[] {
  const d = sequentialDesign(r);
  const out: string[] = [];
  const reach = (scenario: string, name: string, bar: number) => {
    if (firstPassableLook(bar, d) === undefined)
      out.push(
        `${scenario}: ${name} cannot be shown to hold within ${r.max} runs at ${pct(r.confidence)}, even if every run meets it`,
      );
  };
  for (const { scenario, assertions: a } of checks) {
    if (a.success_rate) reach(scenario.id, budgetName.successRate(a.success_rate.min), a.success_rate.min);
    for (const metric of METRICS) {
      for (const stat of Object.keys(QUANTILE) as Array<keyof typeof QUANTILE>) {
        const limit = a[metric]?.[stat];
        if (limit !== undefined) reach(scenario.id, budgetName.bound(metric, stat, limit), QUANTILE[stat]);
      }
    }
  }
  return out;
}

/** How the decisions are made, for a reader (summary.md): the looks, the confidence, how α is spent and by what test. */
export function describeDesign(r: AdaptiveRepeats): string {
  const { looks, alpha } = sequentialDesign(r);
  return (
    `${r.min}..${r.max} runs by ${r.batch} · ${looks.length} look${looks.length === 1 ? '' : 's'} · each budget a one-sided test at ${pct(r.confidence)}, ` +
    `α = ${pct(alpha)} spent over the looks as α·ln(1 + (e − 1)·n/${r.max}) (Lan–DeMets, Pocock-type): exact binomial boundaries for success rates and quantiles, a Student t bound for means`
  );
}
