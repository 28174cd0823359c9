// The task queue's knobs, read from Settings.agent (where sweeps vary them and records keep them).
import type { Settings } from '../../contracts/settings.ts';

export interface TaskqueueOptions {
  /** Keep the top N tasks after prioritization (null: no cap). */
  queue_cap: number | null;
  /** De-duplication threshold in 0..1 (null: off). */
  dedup: number | null;
  /** Goal anchoring: drop created tasks that state no link to the goal. */
  anchor: boolean;
  /** Execution results are cut to this many tokens before they are stored (null: no cap). */
  max_result_tokens: number | null;
  /** Prompt tokens above which the result history is summarised before task creation (null: never). */
  compress_at: number | null;
}

export const TASKQUEUE_DEFAULTS: TaskqueueOptions = {
  queue_cap: null,
  dedup: null,
  anchor: false,
  max_result_tokens: null,
  compress_at: null,
};

const num = (v: unknown, d: number | null) => (typeof v === 'number' ? v : v === null ? null : d);

export function taskqueueOptions(s: Settings): TaskqueueOptions {
  const a = s.agent;
  return {
    queue_cap: num(a.queue_cap, TASKQUEUE_DEFAULTS.queue_cap),
    dedup: num(a.dedup, TASKQUEUE_DEFAULTS.dedup),
    anchor: typeof a.anchor === 'boolean' ? a.anchor : TASKQUEUE_DEFAULTS.anchor,
    max_result_tokens: num(a.max_result_tokens, TASKQUEUE_DEFAULTS.max_result_tokens),
    compress_at: num(a.compress_at, TASKQUEUE_DEFAULTS.compress_at),
  };
}
