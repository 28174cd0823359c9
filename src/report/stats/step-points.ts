// The mean figures per configuration and step index, held as columns: a million-step import has a
// million of them, which as objects took ~150 MB of heap at the report's end, where its peak memory is.
// steps_by_index.csv and the fits read them by index; a chart takes objects of the few it draws.

/** Mean tokens at one step index of one configuration, over the runs that reached it. */
export interface StepPoint {
  config_id: string;
  scenario: string;
  max_steps: number | null;
  step: number;
  calls: number;
  /** Runs that reached this step (every mean here is over them, not over all the configuration's runs). */
  runs: number;
  /** Mean input tokens of the call(s) at this step: grows linearly with the history. */
  input_tokens: number;
  /** Mean input tokens consumed by the run up to and including this step: grows quadratically. */
  cum_input_tokens: number;
  /** Mean cost of the run up to and including this step (USD, at the report's prices). */
  cum_cost_usd: number;
}

/** One configuration of the points, and where its points lie: indices `start` up to (not including) `end`. */
export interface StepConfig {
  config_id: string;
  scenario: string;
  max_steps: number | null;
  start: number;
  end: number;
}

/** The points by configuration, then step: a column per figure, indexed by point. */
export class StepPoints {
  readonly step: Int32Array;
  readonly calls: Int32Array;
  readonly runs: Int32Array;
  readonly inputTokens: Float64Array;
  readonly cumInputTokens: Float64Array;
  readonly cumCostUsd: Float64Array;

  /** Columns of `length` points, zeros until their maker (StepIndexAccumulator.points) fills them. */
  constructor(
    readonly configs: readonly StepConfig[],
    readonly length: number,
  ) {
    this.step = new Int32Array(length);
    this.calls = new Int32Array(length);
    this.runs = new Int32Array(length);
    this.inputTokens = new Float64Array(length);
    this.cumInputTokens = new Float64Array(length);
    this.cumCostUsd = new Float64Array(length);
  }

  /** The index in `configs` of point `i`'s configuration: the one whose range holds it. */
  configIndexOf(i: number): number {
    // Ranges in order, end to end: the first whose end is past `i`.
    let lo = 0;
    let hi = this.configs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.configs[mid]!.end > i) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  configOf(i: number): StepConfig {
    return this.configs[this.configIndexOf(i)]!;
  }

  /** Point `i` as an object, for a consumer that takes a few (a chart's thinned line). */
  point(i: number): StepPoint {
    const c = this.configOf(i);
    return {
      config_id: c.config_id,
      scenario: c.scenario,
      max_steps: c.max_steps,
      step: this.step[i]!,
      calls: this.calls[i]!,
      runs: this.runs[i]!,
      input_tokens: this.inputTokens[i]!,
      cum_input_tokens: this.cumInputTokens[i]!,
      cum_cost_usd: this.cumCostUsd[i]!,
    };
  }

  /** One configuration's points as objects, in step order. */
  of(c: StepConfig): StepPoint[] {
    return Array.from({ length: c.end - c.start }, (_, k) => this.point(c.start + k));
  }
}
