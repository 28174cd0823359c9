// The findings in plain sentences: what a cost reviewer reads instead of the tables. Every comparison of
// step limits says what actually stopped the runs and uses the steps actually taken, so a limit that
// another brake pre-empted is never credited with the difference.
import type { ConfigSummary } from '../stats/aggregate.ts';
import { fitFormula, formatStopReasons } from '../format/figures.ts';
import { preemption, whatStopped } from './stops.ts';
import { stepLimitFamilies, type StepLimitSaving, type StepRatio } from '../stats/step-limits.ts';
import { type QuadraticFit } from '../stats/fit.ts';
import { pct, times, usdDistinct } from '../format/numbers.ts';
import { differingSettings } from './settings-diff.ts';
import { isDerived } from '../../contracts/derived.ts';
import { DAYS_PER_MONTH, type VolumeProjection } from '../stats/volume.ts';

export interface ReportFacts {
  summary: readonly ConfigSummary[];
  fits: readonly QuadraticFit[];
  ratios: readonly StepRatio[];
  savings: readonly StepLimitSaving[];
  volumes: readonly VolumeProjection[];
}

/** The settings that set this family apart from the scenario's other step-limit families ('' with one family). */
function familyLabel(c: ConfigSummary, summary: readonly ConfigSummary[]): string {
  const others = stepLimitFamilies(summary)
    .filter((f) => f[0]!.scenario === c.scenario)
    .map((f) => f[0]!.settings)
    .filter((s) => differingSettings(c.settings, [s]) !== '');
  return others.length ? differingSettings(c.settings, others) : '';
}

/** The scenario, and what sets this family apart: `s (repeat=3)`. */
function familyName(c: ConfigSummary, summary: readonly ConfigSummary[]): string {
  const label = familyLabel(c, summary);
  return label ? `${c.scenario} (${label})` : c.scenario;
}

function successClause(c: ConfigSummary, top: ConfigSummary): string {
  if (c.successes === null || top.successes === null) return 'success not measured (no check)';
  const at = `${c.successes}/${c.runs} against ${top.successes}/${top.runs}`;
  // Different run counts (--repeat auto) make counts incomparable: the rates are compared instead.
  if (c.runs !== top.runs) {
    const points = Math.round((top.success_rate! - c.success_rate!) * 100);
    return points === 0
      ? `it succeeds as often (${at})`
      : `its success rate is ${Math.abs(points)} points ${points > 0 ? 'lower' : 'higher'} (${at})`;
  }
  const lost = top.successes - c.successes;
  if (lost > 0) return `it loses ${lost} of ${top.successes} successes (${at})`;
  if (lost < 0) return `it gains ${-lost} successes (${at})`;
  return `it succeeds as often (${at})`;
}

const mark = (c: ConfigSummary) => (isDerived(c.config_id) ? ' (derived)' : '');

/** The highest-limit configuration a saving is measured against. */
const topOf = (s: StepLimitSaving, summary: readonly ConfigSummary[]) =>
  summary.find((x) => x.config_id === s.highest_config)!;

function savingSentence(s: StepLimitSaving, summary: readonly ConfigSummary[]): string {
  const c = summary.find((x) => x.config_id === s.config_id)!;
  const top = topOf(s, summary);
  const usd = usdDistinct([s.cost_usd_mean, s.highest_cost_usd_mean]);
  const cut =
    s.cost_saved === 0
      ? 'costs the same'
      : s.cost_saved > 0
        ? `cuts mean cost by ${pct(s.cost_saved)}`
        : `raises mean cost by ${pct(-s.cost_saved)}`;
  const taken = `steps taken ${top.steps.mean.toFixed(1)} → ${c.steps.mean.toFixed(1)}`;
  const braked = c.stop_reasons.max_steps ?? 0;
  const cutOff =
    preemption(c) !== ''
      ? `; at steps=${s.max_steps}, ${whatStopped(c)}`
      : braked > 0
        ? `; ${braked} of ${c.runs} runs at ${s.max_steps} were cut off by the step limit`
        : `; no run at ${s.max_steps} reached the step limit`;
  return (
    `${familyName(c, summary)}: lowering MAX_STEPS from ${s.highest_steps}${mark(top)} to ${s.max_steps}${mark(c)} ${cut} (${usd(s.highest_cost_usd_mean)} → ${usd(s.cost_usd_mean)} per run; ${taken}); ${successClause(c, top)}` +
    `${cutOff}${preemption(top)}.`
  );
}

/** The fit, and the widest pair of limits compared by the steps the runs actually took. */
function fitSentence(fit: QuadraticFit, f: ReportFacts): string {
  const quadratic = fit.b > 0 && fit.r2 > 0.95;
  let out =
    `${fit.scenario}: cumulative input tokens after N steps fit ${fitFormula(fit)} (R² = ${fit.r2.toFixed(4)})` +
    (quadratic ? ' — every step re-sends the whole history, so cost grows with the square of the steps.' : '.');
  const wide = f.ratios
    .filter((r) => r.scenario === fit.scenario)
    .sort((x, y) => y.to_max_steps / y.from_max_steps - x.to_max_steps / x.from_max_steps)[0];
  if (!wide) return out;
  const lo = f.summary.find((c) => c.config_id === wide.from_config)!;
  const hi = f.summary.find((c) => c.config_id === wide.to_config)!;
  const early = lo.stop_reasons.done === lo.runs ? ' (every run finished on its own before the lower limit)' : '';
  const label = familyLabel(lo, f.summary);
  out += ` MAX_STEPS ${wide.from_max_steps} → ${wide.to_max_steps}${label ? ` (${label})` : ''}: steps taken ${times(wide.steps_ratio)} (${lo.steps.mean.toFixed(1)} → ${hi.steps.mean.toFixed(1)}) → input tokens ${times(wide.tokens_ratio)}${early}`;
  return `${out}${preemption(hi)}.`;
}

/** The volume the findings and the recommendation price at: the middle one given. */
export function chosenVolume<V extends { runs_per_day: number }>(volumes: readonly V[]): V | undefined {
  const sorted = [...new Map(volumes.map((v) => [v.runs_per_day, v])).values()].sort(
    (a, b) => a.runs_per_day - b.runs_per_day,
  );
  return sorted[Math.floor(sorted.length / 2)];
}

export function findings(f: ReportFacts): string[] {
  const out: string[] = [];
  for (const fit of f.fits) out.push(fitSentence(fit, f));
  for (const s of f.savings) out.push(savingSentence(s, f.summary));
  // The highest limits whose other brakes the saving sentences already name.
  const told = new Set(
    f.savings
      .map((s) => topOf(s, f.summary))
      .filter((c) => preemption(c) !== '')
      .map((c) => c.config_id),
  );
  for (const c of f.summary) {
    // An emptied task queue is the task-queue agent finishing on its own, like `done` for ReAct.
    const unfinished = c.runs - (c.stop_reasons.done ?? 0) - (c.stop_reasons.queue_empty ?? 0);
    if (unfinished > 0 && !f.savings.some((s) => s.config_id === c.config_id) && !told.has(c.config_id))
      out.push(
        `${c.config_id}: ${unfinished} of ${c.runs} runs did not finish on their own (${formatStopReasons(c)}).`,
      );
  }
  const volume = chosenVolume(f.volumes);
  if (volume !== undefined) {
    const at = f.volumes.filter((v) => v.runs_per_day === volume.runs_per_day);
    const usd = usdDistinct(at.map((v) => v.cost_usd_per_day));
    // Configurations that cost the same are named together: neither is "the" most expensive.
    const costing = (x: number) => at.filter((v) => v.cost_usd_per_day === x).map((v) => v.config_id);
    const hi = Math.max(...at.map((v) => v.cost_usd_per_day));
    const lo = Math.min(...at.map((v) => v.cost_usd_per_day));
    const name = (ids: string[], one: string, many: string) =>
      ids.length === 1 ? `${one} (${ids[0]})` : `${many} (${ids.join(', ')})`;
    const month = usdDistinct([hi * DAYS_PER_MONTH])(hi * DAYS_PER_MONTH);
    // One configuration, or all costing the same: there is no "most expensive" to name.
    const top =
      at.length === 1
        ? `${at[0]!.config_id} costs`
        : hi === lo
          ? `every configuration (${costing(hi).join(', ')}) costs`
          : `${name(costing(hi), 'the most expensive configuration', 'the most expensive configurations')} ${costing(hi).length === 1 ? 'costs' : 'each cost'}`;
    out.push(
      `At ${volume.as_written}, ${top} ${usd(hi)} a day, ${month} a month` +
        (hi !== lo
          ? `; ${name(costing(lo), 'the cheapest', 'the cheapest configurations')} ${costing(lo).length === 1 ? 'costs' : 'each cost'} ${usd(lo)} a day.`
          : '.'),
    );
  }
  return out;
}
