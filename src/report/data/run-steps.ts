// A run record read back against its steps: each figure a run record sums (tokens of every kind, cost)
// must equal the sum of its step records where all of them are in steps.jsonl, or the reports would
// say two things at once (runs.csv against steps.csv, a run's cost against its cumulative-cost curve).
// Records written before a run kept its cache-write and reasoning totals take them from the steps.
import { UsageError } from '../../contracts/errors.ts';
import type { RunRecord, StepRecord } from '../../contracts/records.ts';
import type { ShardCheck } from '../../results/merge.ts';
import { noTotals, type RunTotals } from '../../contracts/run-totals.ts';
import { addStep, stepsDisagree, type SummedField } from '../../meter/ledger.ts';

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

/** What the check reads of a run record: its id, calls, summed figures, and its line (for the message). */
type CheckedRun = Pick<RunRecord, 'run_id' | 'calls' | SummedField> & { line: number };

/**
 * Checks every run whose steps are all present (as many as its calls) against their sum, naming the
 * file, line and field of the first that disagrees; fills the totals an older record lacks.
 */
export function checkRunsAgainstSteps(file: string, runs: readonly CheckedRun[], sums: StepSums): void {
  for (const r of runs) {
    const t = sums.of(r.run_id);
    if (!t || t.calls !== r.calls) continue;
    const off = stepsDisagree(r, t);
    if (off)
      throw new UsageError(
        `${file} line ${r.line}: ${off.field} is ${off.recorded}, but the run's ${t.calls} step record(s) in steps.jsonl add up to ${off.summed} (a run record is the sum of its steps: one of the two files was edited or damaged)`,
      );
    r.cache_write_tokens ??= t.cacheWriteTokens;
    if (t.cacheWrite1hTokens) r.cache_write_1h_tokens ??= t.cacheWrite1hTokens;
    r.reasoning_tokens ??= t.reasoningTokens;
  }
}

/**
 * `bench merge`'s check of one shard: each run record against the sum of its steps, as a report checks
 * them (checkRunsAgainstSteps), so a run that fails it fails the merge, named by its shard's file and line.
 */
export function runsAgainstSteps(): ShardCheck {
  const sums = new StepSums();
  const runs: CheckedRun[] = [];
  return {
    step: (s) => sums.add(s),
    // Only what the check reads: a shard's runs are held until its records are all read.
    run: (r, line) =>
      void runs.push({
        run_id: r.run_id,
        calls: r.calls,
        line,
        input_tokens: r.input_tokens,
        output_tokens: r.output_tokens,
        cached_tokens: r.cached_tokens,
        cache_write_tokens: r.cache_write_tokens,
        cache_write_1h_tokens: r.cache_write_1h_tokens,
        reasoning_tokens: r.reasoning_tokens,
        cost_usd: r.cost_usd,
      }),
    done: (file) => checkRunsAgainstSteps(file, runs, sums),
  };
}
