// Sweep bookkeeping that meta.json records: which slice of the plan ran, and what the spend cap did.

export interface Shard {
  /** 1-based, as CI matrices count. */
  index: number;
  count: number;
}

/**
 * What a run sees of the sweep's spend cap: a model returning more output than max_tokens breaks
 * every run's worst case, so the first such answer stops every further call of the sweep.
 */
export interface SpendGuard {
  readonly halted: boolean;
  noteOverrun(): void;
}

export interface SpendState {
  cap_usd: number;
  spent_usd: number;
  /** True once a run was refused: the sweep is incomplete. */
  stopped: boolean;
  runs_skipped: number;
  /** Spent beyond runs' own budgets by models that ignored max_tokens; present once it happened. */
  overrun_usd?: number;
}

/**
 * Adaptive repeats: batches of runs until decided, or max. `bench check` with `repeats: { min, max, batch }`
 * records no `rule` (its budgets decide); `bench run --repeat auto` records `rule: 'precision'`.
 */
export interface AdaptiveSampling {
  min: number;
  max: number;
  batch: number;
  confidence: number;
  /** `precision`: each configuration until its mean cost (and success rate, where checked) is estimated to `precision`. */
  rule?: 'precision';
  /** With rule `precision`: the 95 % interval's half-width wanted, relative to the mean cost, and in rate units for the success rate. */
  precision?: number;
}
