// How a fit and a configuration's stop reasons print, in every report and on the terminal.
import type { StopReason } from '../../contracts/stop-reason.ts';
import type { ConfigSummary } from '../stats/aggregate.ts';
import type { QuadraticFit } from '../stats/fit.ts';
import { int, signed } from './numbers.ts';

/** `301·N² + 47·N` with the sign of each term shown as it is. */
export function fitFormula(f: Pick<QuadraticFit, 'a' | 'b'>): string {
  const lin = f.a < 0 ? ` − ${int(-f.a)}·N` : ` + ${int(f.a)}·N`;
  return `${signed(f.b)}·N²${lin}`;
}

/** `done 8 @3-4, spin 2 @8`: how many runs stopped for each reason, and at which step. */
export function formatStopReasons(c: Pick<ConfigSummary, 'stop_reasons' | 'stop_steps'>): string {
  return (Object.entries(c.stop_reasons) as Array<[StopReason, number]>)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => {
      const at = c.stop_steps[k];
      return `${k} ${v}${at ? ` @${at.min === at.max ? at.min : `${at.min}-${at.max}`}` : ''}`;
    })
    .join(', ');
}
