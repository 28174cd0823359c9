// How a fit and a configuration's stop reasons print, in every report and on the terminal.
import type { StopReason } from '../../contracts/stop-reason.ts';
import type { ConfigSummary } from '../stats/aggregate.ts';
import type { QuadraticFit } from '../stats/fit.ts';
import type { UnseenFailures, WideSpread } from '../stats/cost-per-success.ts';
import type { ConfigEconomics } from '../stats/economics.ts';
import type { Interval } from '../stats/intervals.ts';
import { int, pct, signed, usd } from './numbers.ts';

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

/** Marks a cost per successful task whose interval had no failure to learn from (its note: unseenFailuresNote). */
export const UNSEEN_MARK = '†';
/** Marks a cost per successful task whose interval rests on widely spread, unbounded costs (wideSpreadNote explains it). */
export const SPREAD_MARK = '≈';

/**
 * Cost per successful task with its interval: `$0.52 ($0.41–$0.71)`, `none succeeded`, or `$0.52 (1 run: no interval)`;
 * `$0.52 ($0.41–$0.93†)` when no run failed (unseenFailuresNote), `$0.52 (≈$0.41–$0.71)` when
 * the costs spread widely with no budget (wideSpreadNote).
 */
export function perSuccessText(
  value: number,
  ci: Interval | null,
  money: (x: number) => string,
  unseen: UnseenFailures | null = null,
  wide: WideSpread | null = null,
): string {
  if (!Number.isFinite(value)) return 'none succeeded';
  if (!ci) return `${money(value)} (1 run: no interval)`;
  const hi = Number.isFinite(ci.hi) ? money(ci.hi) : '∞';
  return `${money(value)} (${wide ? SPREAD_MARK : ''}${money(ci.lo)}–${hi}${unseen ? UNSEEN_MARK : ''})`;
}

/** The notes behind the marks of cost per successful task (†, ≈), in that order; none when nothing is marked. */
export function perSuccessNotes(
  economics: ReadonlyArray<Pick<ConfigEconomics, 'config_id' | 'unseen_failures' | 'wide_spread'>>,
): string[] {
  return [unseenFailuresNote(economics), wideSpreadNote(economics)].filter((n): n is string => n !== null);
}

/**
 * The sentence behind ≈: costs spread as widely as those on which the interval was measured to cover 82–92 %
 * (log-normal costs of log-sd 1.25–2, 20–200 runs: scripts/cost-spread.ts, docs/adaptive.md), and no budget bounds
 * them. The spread is printed as the geometric standard deviation, exp(sd of ln cost).
 */
function wideSpreadNote(economics: ReadonlyArray<Pick<ConfigEconomics, 'config_id' | 'wide_spread'>>): string | null {
  const wide = economics.filter((e) => e.wide_spread);
  if (wide.length === 0) return null;
  const which = wide.map((e) => `${e.config_id} (geometric sd ×${Math.exp(e.wide_spread!.log_sd).toFixed(1)})`);
  return `${SPREAD_MARK} Costs vary widely in ${which.join(', ')} and no budget bounds them: on log-normal costs of geometric sd ×3.5–×7.4, such 95% intervals held the truth in only 82–92% of simulated sweeps of 20–200 runs, most misses below it (docs/adaptive.md).`;
}
/**
 * The sentence behind the mark: no failure in n runs leaves a failure rate up to Clopper–Pearson's bound
 * open, and only a budget bounds what such a failure costs. One sentence per (runs, budget), naming its
 * configurations; none when every configuration saw a failure.
 */
function unseenFailuresNote(
  economics: ReadonlyArray<Pick<ConfigEconomics, 'config_id' | 'unseen_failures'>>,
): string | null {
  const groups = new Map<string, { u: UnseenFailures; configs: string[] }>();
  for (const e of economics) {
    const u = e.unseen_failures;
    if (!u) continue;
    const key = `${u.runs} ${u.budget_usd}`;
    const g = groups.get(key) ?? { u, configs: [] };
    g.configs.push(e.config_id);
    groups.set(key, g);
  }
  if (groups.size === 0) return null;
  const sentences = [...groups.values()].map(({ u, configs }) => {
    const seen = `no checked run failed in ${u.runs} (${configs.join(', ')}), yet up to ${pct(u.failure_rate_hi)} of runs failing is not ruled out at 95%`;
    return u.budget_usd === null || u.adds_usd === null
      ? `${seen}, and no budget caps what such a failure costs (no max_cost, or costs re-priced), so the upper end speaks only of the runs seen`
      : `${seen}; each could spend at most its ${usd(u.budget_usd)} budget, so the upper end includes the ${usd(u.adds_usd)} per successful task they could add`;
  });
  return `${UNSEEN_MARK} ${sentences.map((s, i) => (i ? s : s[0]!.toUpperCase() + s.slice(1))).join('. ')}.`;
}
