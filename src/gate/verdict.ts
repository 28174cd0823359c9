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
}
