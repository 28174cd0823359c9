// The per-step-index means of a report (steps_by_index.csv, the cumulative curves), summed from the
// step records as they stream past, then taken once as StepPoints.
import { isRefused, type StepRecord } from '../../contracts/records.ts';
import { grownTo } from '../../contracts/typed-arrays.ts';
import { StepPoints, type StepConfig } from './step-points.ts';

/** One configuration's sums, a column per figure indexed by step (a step no call reached has 0 calls). */
class StepColumns {
  calls = new Int32Array(64);
  runs = new Int32Array(64);
  /** The run (its number in the accumulator) a step last counted. */
  lastRun = new Int32Array(64).fill(-1);
  input = new Float64Array(64);
  cum = new Float64Array(64);
  cost = new Float64Array(64);
  /** One past the largest step seen. */
  end = 0;

  constructor(
    readonly scenario: string,
    readonly maxSteps: number | null,
  ) {}

  /** Room for `step`, each column doubled as it fills. */
  reach(step: number): void {
    if (step >= this.end) this.end = step + 1;
    if (step < this.calls.length) return;
    let size = this.calls.length;
    while (size <= step) size *= 2;
    this.calls = grownTo(this.calls, size);
    this.runs = grownTo(this.runs, size);
    this.lastRun = grownTo(this.lastRun, size, -1);
    this.input = grownTo(this.input, size);
    this.cum = grownTo(this.cum, size);
    this.cost = grownTo(this.cost, size);
  }

  /** Steps some call reached: the configuration's points. */
  reached(): number {
    let n = 0;
    for (let step = 0; step < this.end; step++) if (this.calls[step]! > 0) n++;
    return n;
  }
}

/**
 * Per (configuration, step) sums, fed one StepRecord at a time, so a 55,000-call sweep needs O(configs × steps)
 * memory, held as columns (a million-step import's cells as objects took ~1 GB). A run's records come
 * together (build.ts reads them run by run), so a cell counts a run when its run changes.
 */
export class StepIndexAccumulator {
  private readonly configs = new Map<string, StepColumns>();
  /** Run ids by number, so a cell's last run is a number, not a string. */
  private readonly runNumbers = new Map<string, number>();
  private lastRunId = '';
  private lastRunNumber = -1;
  private taken = false;

  add(r: StepRecord): void {
    // A request the gateway refused reached no model: it is in the run's calls, not in a step's figures.
    if (isRefused(r)) return;
    let c = this.configs.get(r.config_id);
    if (!c) this.configs.set(r.config_id, (c = new StepColumns(r.scenario, r.settings.limits.max_steps)));
    if (r.run_id !== this.lastRunId) {
      let n = this.runNumbers.get(r.run_id);
      if (n === undefined) this.runNumbers.set(r.run_id, (n = this.runNumbers.size));
      this.lastRunId = r.run_id;
      this.lastRunNumber = n;
    }
    const i = r.step;
    c.reach(i);
    c.calls[i]!++;
    if (c.lastRun[i] !== this.lastRunNumber) {
      c.runs[i]!++;
      c.lastRun[i] = this.lastRunNumber;
    }
    c.input[i]! += r.input_tokens;
    c.cum[i]! += r.cum_input_tokens;
    c.cost[i]! += r.cum_cost_usd;
  }

  /**
   * The points by configuration (in localeCompare order), then step, taken once: each configuration's sums
   * are let go as its means are taken, since a million-step import's (~38 MB) would otherwise stay held
   * through the report's end, where its peak memory is.
   */
  points(): StepPoints {
    if (this.taken) throw new Error('StepIndexAccumulator.points() is taken once');
    this.taken = true;
    const ids = [...this.configs.keys()].sort((a, b) => a.localeCompare(b));
    const configs: StepConfig[] = [];
    let start = 0;
    for (const id of ids) {
      const c = this.configs.get(id)!;
      const end = start + c.reached();
      configs.push({ config_id: id, scenario: c.scenario, max_steps: c.maxSteps, start, end });
      start = end;
    }
    const out = new StepPoints(configs, start);
    let i = 0;
    for (const id of ids) {
      const c = this.configs.get(id)!;
      for (let step = 0; step < c.end; step++) {
        const calls = c.calls[step]!;
        if (calls === 0) continue;
        out.step[i] = step;
        out.calls[i] = calls;
        out.runs[i] = c.runs[step]!;
        out.inputTokens[i] = c.input[step]! / calls;
        out.cumInputTokens[i] = c.cum[step]! / calls;
        out.cumCostUsd[i] = c.cost[step]! / calls;
        i++;
      }
      this.configs.delete(id);
    }
    return out;
  }
}
