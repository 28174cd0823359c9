// A run record read back against its steps: each figure a run record sums (tokens of every kind, cost)
// must equal the sum of its step records where all of them are in steps.jsonl, or the reports would
// say two things at once (runs.csv against steps.csv, a run's cost against its cumulative-cost curve).
// Records written before a run kept its cache-write and reasoning totals take them from the steps.
import { UsageError } from '../../contracts/errors.ts';
import type { StepRecord } from '../../contracts/records.ts';
import { noTotals, type RunTotals } from '../../contracts/run-totals.ts';
import { addStep, stepsDisagree } from '../../meter/ledger.ts';
import type { LoadedRun } from './load-runs.ts';

/** Each run's steps added up, as they are read. */
export class StepSums {
  private readonly byRun = new Map<string, RunTotals>();

  add(s: StepRecord): void {
    let t = this.byRun.get(s.run_id);
    if (!t) this.byRun.set(s.run_id, (t = noTotals()));
    addStep(t, s);
  }

  of(runId: string): RunTotals | undefined {
    return this.byRun.get(runId);
  }
}

/**
 * Checks every run whose steps are all present (as many as its calls) against their sum, naming the
 * file, line and field of the first that disagrees; fills the totals an older record lacks.
 */
export function checkRunsAgainstSteps(file: string, runs: readonly LoadedRun[], sums: StepSums): void {
  for (const r of runs) {
    const t = sums.of(r.run_id);
    if (!t || t.calls !== r.calls) continue;
    const off = stepsDisagree(r, t);
    if (off)
      throw new UsageError(
        `${file} line ${r.line}: ${off.field} is ${off.recorded}, but the run's ${t.calls} step record(s) in steps.jsonl add up to ${off.summed} (a run record is the sum of its steps: one of the two files was edited or damaged)`,
      );
    r.cache_write_tokens ??= t.cacheWriteTokens;
    r.reasoning_tokens ??= t.reasoningTokens;
  }
}
