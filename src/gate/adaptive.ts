// Adaptive repeats: after each batch, is every budget of a scenario decided? A statistical budget is
// decided when its confidence interval (at the look's Bonferroni-split confidence) lies wholly on one
// side of its limit; an every-run budget (stop_reason, max) is decided the moment a run breaks it and
// otherwise does not hold sampling open (no sample proves "every run"). Pure: runs in, decisions out.
import type { RunFacts } from '../contracts/records.ts';
import { expandSweep, repeatOfRunId, type RunPlan, type SweepSpec } from '../runner/sweep.ts';
import type { SweepOptions } from '../runner/sweep-runner.ts';
import type { ScenarioBudget } from './load-budgets.ts';
import { budgetName, METRIC_OF } from './assertions.ts';
import { METRICS, STATS, type AdaptiveRepeats, type AssertionsSpec } from './budgets-schema.ts';
import { meanInterval, quantileInterval, runsToBoundQuantile, sequentialDesign, successInterval } from './decision-stats.ts';
import type { Interval } from '../report/aggregate.ts';

export type Decision = 'pass' | 'fail' | 'open';

export interface BudgetDecision {
  name: string;
  decision: Decision;
  /** Decided by a confidence interval (false: an every-run budget). */
  statistical: boolean;
  /** Why an open budget cannot be decided yet, when the sample is too small to bound it at all. */
  needs?: string;
}

/** Upper-bound budgets: pass when the interval lies wholly at or below the limit, fail when wholly above. */
const against = (ci: Interval, limit: number): Decision => (ci.hi <= limit ? 'pass' : ci.lo > limit ? 'fail' : 'open');

export function decideBudgets(a: AssertionsSpec, runs: readonly RunFacts[], confidence: number): BudgetDecision[] {
  const out: BudgetDecision[] = [];
  const n = runs.length;
  if (a.stop_reason) {
    const broken = runs.some((r) => !a.stop_reason!.includes(r.stop_reason));
    out.push({ name: budgetName.stopReason(a.stop_reason), decision: broken ? 'fail' : n > 0 ? 'pass' : 'open', statistical: false });
  }
  if (a.success_rate) {
    const checked = runs.filter((r) => r.success !== null);
    const k = checked.filter((r) => r.success).length;
    const ci = checked.length ? successInterval(k, checked.length, confidence) : { lo: 0, hi: 1 };
    const min = a.success_rate.min;
    out.push({ name: budgetName.successRate(min), decision: ci.lo >= min ? 'pass' : ci.hi < min ? 'fail' : 'open', statistical: true });
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
        out.push({ name, decision: against(meanInterval(xs, confidence), limit), statistical: true });
        continue;
      }
      const q = stat === 'p50' ? 0.5 : 0.95;
      const decision = against(quantileInterval(xs, q, confidence), limit);
      const least = runsToBoundQuantile(q, confidence);
      out.push({ name, decision, statistical: true, ...(decision === 'open' && n < least ? { needs: `an upper bound on ${stat} needs ≥ ${least} runs` } : {}) });
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
}

const pct = (c: number) => `${Number((c * 100).toFixed(2))} %`;

/**
 * Replays the looks over a scenario's runs in repeat order: the outcome when sampling stopped, or
 * the sample size of the next look still to reach. The live sweep and `--from` share it, so a
 * seed gives the same answer both ways.
 */
export function sampling(scenario: string, a: AssertionsSpec, runs: readonly RunFacts[], r: AdaptiveRepeats): { outcome: SamplingOutcome } | { nextLook: number } {
  const ordered = [...runs].sort((x, y) => repeatOfRunId(x.run_id) - repeatOfRunId(y.run_id));
  const { looks, perLookConfidence } = sequentialDesign(r);
  const at = pct(r.confidence);
  for (const n of looks) {
    if (ordered.length < n) return { nextLook: n };
    const ds = decideBudgets(a, ordered.slice(0, n), perLookConfidence);
    const failed = ds.find((d) => d.decision === 'fail');
    const open = ds.filter((d) => d.decision === 'open');
    if (failed) {
      const how = failed.statistical ? `at ${at}` : 'by a run';
      return { outcome: { scenario, runs: n, stopped: 'decided', reason: `decided after ${n} runs: ${failed.name} breached ${how}` } };
    }
    if (open.length === 0) {
      const stats = ds.filter((d) => d.statistical).map((d) => d.name);
      const reason = stats.length
        ? `decided after ${n} runs: ${stats.join(', ')} ${stats.length === 1 ? 'holds' : 'hold'} at ${at}`
        : `decided after ${n} runs: no budget is statistical and no run broke one`;
      return { outcome: { scenario, runs: n, stopped: 'decided', reason } };
    }
    if (n === r.max) {
      const needs = open.flatMap((d) => (d.needs ? [d.needs] : []));
      const reason = `ran to max ${n} runs: ${open.map((d) => d.name).join(', ')} undecided at ${at}${needs.length ? ` (${needs.join('; ')})` : ''}`;
      return { outcome: { scenario, runs: n, stopped: 'max', reason } };
    }
  }
  throw new Error('unreachable: the last look is max');
}

/** Each scenario's outcome over finished results; a scenario cut short (spend cap, Ctrl-C) says so. */
export function samplingOutcomes(checks: ReadonlyArray<{ scenario: { id: string }; assertions: AssertionsSpec }>, runs: readonly RunFacts[], r: AdaptiveRepeats): SamplingOutcome[] {
  return checks.map((c) => {
    const own = runs.filter((x) => x.scenario === c.scenario.id && x.stop_reason !== 'interrupted');
    const s = sampling(c.scenario.id, c.assertions, own, r);
    if ('outcome' in s) return s.outcome;
    return { scenario: c.scenario.id, runs: own.length, stopped: 'short', reason: `stopped short after ${own.length} runs, before the look at ${s.nextLook}: undecided` };
  });
}

/** The next batch: for each scenario not yet stopped, its repeats up to its next look, in plan order (empty: all stopped). */
export function nextBatch(plans: readonly RunPlan[], checks: ReadonlyArray<{ scenario: { id: string }; assertions: AssertionsSpec }>, runs: readonly RunFacts[], r: AdaptiveRepeats): RunPlan[] {
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
export function adaptiveSweep(spec: SweepSpec, checks: readonly ScenarioBudget[], r: AdaptiveRepeats): NonNullable<SweepOptions['adaptive']> {
  const all = expandSweep(spec);
  return { sampling: r, next: (finished) => nextBatch(all, checks, finished, r) };
}

/** How the looks are planned, for a reader: `10..100 runs by 10 · 10 looks at 99.5 % each, 95 % overall (Bonferroni)`. */
export function describeDesign(r: AdaptiveRepeats): string {
  const { looks, perLookConfidence } = sequentialDesign(r);
  return `${r.min}..${r.max} runs by ${r.batch} · ${looks.length} look${looks.length === 1 ? '' : 's'} at ${pct(perLookConfidence)} each, ${pct(r.confidence)} overall (Bonferroni)`;
}
