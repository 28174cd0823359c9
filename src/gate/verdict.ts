/** One checked budget: a JUnit testcase, a line of `bench check` output, a row of summary.md. */
export interface Verdict {
  /** The JUnit suite it belongs to: a scenario id, or `gate` for checks over the whole run. */
  suite: string;
  /** What was asserted, e.g. `cost_usd p95 ≤ 0.02`. */
  name: string;
  pass: boolean;
  measured: string;
  limit: string;
  /** One sentence for a person (the failure message, an annotation). */
  message: string;
  /** Not a breach: nothing was measured (the replayed cassette lacks this scenario's requests, or the spend cap let none of its runs start). */
  miss?: true;
  /** Why it was not measured (default: replay-miss). */
  missKind?: 'replay-miss' | 'spend-cap';
  /** Adaptive repeats: still undecided at the most runs allowed, so not shown to hold (a failure, but no breach was shown either). */
  undecided?: true;
  /** Nothing judged: a figure shown for the reader (a change against the baseline with no max_regression limit); not a budget. */
  reportOnly?: true;
}

export const isBreach = (v: Verdict) => !v.pass && !v.miss;
/** The budgets a check judged: not the report-only lines, not what was not measured. */
export const isJudged = (v: Verdict) => !v.miss && !v.reportOnly;

/** `bench check` exit codes: 1 a budget breached; 3 no breach, but something was not measured (a replay missed, or the spend cap let no run start). */
export const BREACH_EXIT = 1;
export const REPLAY_MISS_EXIT = 3;
