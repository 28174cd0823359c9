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

/** Adaptive repeats (`bench check` with `repeats: { min, max, batch }`): batches until decided, or max. */
export interface AdaptiveSampling {
  min: number;
  max: number;
  batch: number;
  confidence: number;
}
