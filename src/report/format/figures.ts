// How a fit and a configuration's stop reasons print, in every report and on the terminal.
import type { StopReason } from '../../contracts/stop-reason.ts';
import type { ConfigSummary } from '../stats/aggregate.ts';
import type { QuadraticFit } from '../stats/fit.ts';
import type { Interval } from '../stats/intervals.ts';
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

/** Cost per successful task with its interval: `$0.52 ($0.41–$0.71)`, `none succeeded`, or `$0.52 (1 run: no interval)`. */
export function perSuccessText(value: number, ci: Interval | null, money: (x: number) => string): string {
  if (!Number.isFinite(value)) return 'none succeeded';
  if (!ci) return `${money(value)} (1 run: no interval)`;
  return `${money(value)} (${money(ci.lo)}–${Number.isFinite(ci.hi) ? money(ci.hi) : '∞'})`;
}
