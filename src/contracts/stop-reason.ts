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

export interface Stop {
  reason: StopReason;
  /** Human-readable: which limit at which value, which tool spun and how often. */
  detail: string;
  /** Steps taken when the run stopped (the step at which the brake fired). */
  step: number;
}
