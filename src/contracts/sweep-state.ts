// Sweep bookkeeping that meta.json records: which slice of the plan ran, and what the spend cap did.

export interface Shard {
  /** 1-based, as CI matrices count. */
  index: number;
  count: number;
}

export interface SpendState {
  cap_usd: number;
  spent_usd: number;
  /** True once a run was refused: the sweep is incomplete. */
  stopped: boolean;
  runs_skipped: number;
}

/** Adaptive repeats (`bench check` with `repeats: { min, max, batch }`): batches until decided, or max. */
export interface AdaptiveSampling {
  min: number;
  max: number;
  batch: number;
  confidence: number;
}
