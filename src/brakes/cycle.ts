import { limitStop, type ActionOutcome, type Brake } from './brake.ts';

const same = (a: ActionOutcome, b: ActionOutcome) => a.fingerprint === b.fingerprint && a.observation === b.observation;

/** The shortest period p ≤ maxPeriod whose last two windows of p actions are equal, actions and results
 *  alike (a poll whose status changes is no cycle), and that the next action would start a third time. */
function cyclePeriod(history: readonly ActionOutcome[], next: string, maxPeriod: number): number | null {
  for (let p = 1; p <= maxPeriod && 2 * p <= history.length; p++) {
    const n = history.length;
    if (history[n - p]!.fingerprint !== next) continue;
    let repeated = true;
    for (let i = n - p; i < n && repeated; i++) repeated = same(history[i]!, history[i - p]!);
    if (repeated) return p;
  }
  return null;
}

/** Blocks the second full repetition of a cycle of actions of period ≤ maxPeriod: A B C A B C, then A is not run. */
export function cycleBrake(maxPeriod: number): Brake {
  return {
    name: 'cycle',
    beforeAction: (s, a) => {
      const period = cyclePeriod(s.history, a.fingerprint, maxPeriod);
      if (period === null) return null;
      const cycle = s.history.slice(-period).map((h) => h.fingerprint);
      return limitStop(
        'spin',
        { brake: 'max_cycle', value: period, limit: maxPeriod },
        s.steps,
        (f) =>
          `cycle: ${cycle.join(' → ')} repeated (period ${f.value}, max cycle ${f.limit}); blocked at step ${s.steps}`,
      );
    },
  };
}
