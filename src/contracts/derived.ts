// What-if limits (`bench report --what-if`): runs derived from recorded ones under tighter limits.
// The derivation replays the brakes (src/whatif/); reports only read its results, through these types.
import type { RunRecord, StepRecord, SummedStepField } from './records.ts';

/** A run as it would have gone under other limits: the figures a report aggregates, marked derived. */
export interface DerivedRun extends Omit<RunRecord, 'answer' | 'started_at' | 'finished_at'> {
  /** The configuration it was derived from. */
  derived_from: string;
  /** The recorded run it is a prefix of. */
  derived_from_run: string;
}

export interface WhatIfOutcome {
  runs: DerivedRun[];
  /** One line per value the records cannot answer, with the reason. */
  refusals: string[];
}

/** What a what-if replays of a step record: its figures and action, not the run's settings nor the call's free text. */
export type ReplayedStep = Pick<
  StepRecord,
  SummedStepField | 'call' | 'role' | 'latency_ms' | 'action' | 'fingerprint' | 'error'
>;

/** The replayed part of `s`: a million-step import's steps are held for a what-if, and their settings would be most of them. */
export const replayedStep = (s: ReplayedStep): ReplayedStep => ({
  step: s.step,
  round: s.round,
  call: s.call,
  role: s.role,
  input_tokens: s.input_tokens,
  output_tokens: s.output_tokens,
  cached_tokens: s.cached_tokens,
  cache_write_tokens: s.cache_write_tokens,
  cache_write_1h_tokens: s.cache_write_1h_tokens,
  reasoning_tokens: s.reasoning_tokens,
  cost_usd: s.cost_usd,
  elapsed_ms: s.elapsed_ms,
  latency_ms: s.latency_ms,
  action: s.action,
  fingerprint: s.fingerprint,
  error: s.error,
});

/** Derives runs from whole run records and their steps (by run id, in call order). */
export type DeriveRuns = (
  records: readonly RunRecord[],
  stepsOf: (runId: string) => readonly ReplayedStep[],
) => WhatIfOutcome;

export const DERIVED_MARK = ' (derived)';
export const isDerived = (configId: string) => configId.endsWith(DERIVED_MARK);
