// What-if limits (`bench report --what-if`): runs derived from recorded ones under tighter limits.
// The derivation replays the brakes (src/whatif/); reports only read its results, through these types.
import type { RunRecord, StepRecord } from './records.ts';

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

/** Derives runs from whole run records and their steps (by run id, in call order). */
export type DeriveRuns = (
  records: readonly RunRecord[],
  stepsOf: (runId: string) => readonly StepRecord[],
) => WhatIfOutcome;

export const DERIVED_MARK = ' (derived)';
export const isDerived = (configId: string) => configId.endsWith(DERIVED_MARK);
