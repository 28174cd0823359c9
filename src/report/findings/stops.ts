// What stopped a configuration's runs, in words: the clauses findings and the decision's lead line share.
import type { ConfigSummary } from '../stats/aggregate.ts';
import type { StopReason } from '../../contracts/stop-reason.ts';

/** What each stop means to a reader: "stopped by the budget", "finished on their own". */
const STOPPED_BY: Record<StopReason, string> = {
  done: 'finished on their own',
  queue_empty: 'emptied their task queue',
  max_steps: 'were stopped by the step limit',
  max_cost: 'were stopped by the budget',
  timeout: 'were stopped by the timeout',
  spin: 'were stopped by spin detection',
  max_tokens: 'were stopped by the token limit',
  max_calls: 'were stopped by the call limit',
  max_rounds: 'were stopped by the round limit',
  error: 'ended in an error',
  interrupted: 'were interrupted',
  imported: 'were imported from trajectories that do not say why they ended',
};

const atSteps = (at: { min: number; max: number } | undefined) =>
  !at ? '' : at.min === at.max ? ` at step ${at.min}` : ` at steps ${at.min}–${at.max}`;

/** "10 of 10 runs were stopped by the budget at step 24" — one clause per stop reason, most runs first. */
export function whatStopped(c: ConfigSummary): string {
  return (Object.entries(c.stop_reasons) as Array<[StopReason, number]>)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n], i) => `${n}${i === 0 ? ` of ${c.runs} runs` : ''} ${STOPPED_BY[k]}${atSteps(c.stop_steps[k])}`)
    .join(', ');
}

/** "steps=30: 10 of 10 runs were stopped by the budget at step 24, so 30 was never reached" when another brake decided. */
export function preemption(c: ConfigSummary): string {
  const limit = c.settings.limits.max_steps!;
  const other = (Object.keys(c.stop_reasons) as StopReason[]).filter(
    (k) => k !== 'max_steps' && k !== 'done' && k !== 'queue_empty',
  );
  if (other.length === 0) return '';
  const never = c.steps.max < limit ? `, so ${limit} was never reached` : '';
  return `; at steps=${limit}, ${whatStopped(c)}${never}`;
}
