// Every run ends with exactly one StopReason from this closed set, with a detail a person can read.

export const STOP_REASONS = [
  'done',
  'max_steps',
  'max_cost',
  'timeout',
  'spin',
  'max_tokens',
  'max_calls',
  'max_rounds',
  'queue_empty',
  'error',
  'interrupted',
  /** A run imported from a trajectory that does not say why it ended (`bench import`). */
  'imported',
] as const;

export type StopReason = (typeof STOP_REASONS)[number];

/** What a brake saw when it fired: its row of the table of brakes, the value it measured, its limit. */
export interface Fired {
  /** The limit's key (`max_steps`, `max_cycle`, …). */
  brake: string;
  value: number;
  limit: number;
}

export interface Stop {
  reason: StopReason;
  /** Human-readable: which limit at which value, which tool spun and how often. Built from `fired` when a brake fired. */
  detail: string;
  /** Steps taken when the run stopped (the step at which the brake fired). */
  step: number;
  /** Set when a brake ended the run. */
  fired?: Fired;
}
