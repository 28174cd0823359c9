// Runs and their steps put back together from a results directory, holding only the runs still open:
// steps.jsonl interleaves the steps of concurrent runs, and a run's record comes once its last step is
// written. A run is handed on when its record and all of its calls' steps are in.
import type { RunRecord, StepRecord } from '../contracts/records.ts';

export class RunAssembler {
  private readonly steps = new Map<string, StepRecord[]>();
  private readonly runs = new Map<string, RunRecord>();

  constructor(private readonly done: (run: RunRecord, steps: StepRecord[]) => void) {}

  step(s: StepRecord): void {
    let list = this.steps.get(s.run_id);
    if (!list) this.steps.set(s.run_id, (list = []));
    list.push(s);
    this.tryFinish(s.run_id);
  }

  run(r: RunRecord): void {
    this.runs.set(r.run_id, r);
    this.tryFinish(r.run_id);
  }

  private tryFinish(id: string): void {
    const run = this.runs.get(id);
    if (!run || (this.steps.get(id)?.length ?? 0) < run.calls) return;
    this.finish(id, run);
  }

  private finish(id: string, run: RunRecord): void {
    const steps = (this.steps.get(id) ?? []).sort((a, b) => a.call - b.call);
    this.steps.delete(id);
    this.runs.delete(id);
    this.done(run, steps);
  }

  /** Runs whose steps never all came (a crash lost some): handed on with what there is. Returns how many. */
  flush(): number {
    const left = [...this.runs.entries()];
    for (const [id, run] of left) this.finish(id, run);
    this.steps.clear();
    return left.length;
  }
}
