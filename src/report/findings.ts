// The findings in plain sentences: what a cost reviewer reads instead of the tables.
import { formatStopReasons, type ConfigSummary } from './aggregate.ts';
import type { QuadraticFit, StepLimitSaving, StepRatio } from './fit.ts';
import { int, pct, signed, times, usd } from './format.ts';
import type { VolumeProjection } from './volume.ts';

export interface ReportFacts {
  summary: readonly ConfigSummary[];
  fits: readonly QuadraticFit[];
  ratios: readonly StepRatio[];
  savings: readonly StepLimitSaving[];
  volumes: readonly VolumeProjection[];
}

/** `301·N² + 47·N` with the sign of each term shown as it is. */
export function fitFormula(f: Pick<QuadraticFit, 'a' | 'b'>): string {
  const lin = f.a < 0 ? ` − ${int(-f.a)}·N` : ` + ${int(f.a)}·N`;
  return `${signed(f.b)}·N²${lin}`;
}

function savingSentence(s: StepLimitSaving, summary: readonly ConfigSummary[]): string {
  const cut = s.cost_saved >= 0 ? `cuts mean cost by ${pct(s.cost_saved)}` : `raises mean cost by ${pct(-s.cost_saved)}`;
  let success: string;
  if (s.successes_lost === null) success = 'risks no success: this scenario checks no answer';
  else if (s.successes_lost >= 0) success = `loses ${s.successes_lost} of ${s.highest_successes} successes`;
  else success = `gains ${-s.successes_lost} successes (${s.highest_successes} at ${s.highest_steps})`;
  const c = summary.find((x) => x.config_id === s.config_id);
  const braked = c?.stop_reasons.max_steps ?? 0;
  const stopped = braked > 0 ? `; ${braked} of ${s.runs} runs at ${s.max_steps} were stopped by the step limit` : '';
  return `${s.scenario}: lowering MAX_STEPS from ${s.highest_steps} to ${s.max_steps} ${cut} (${usd(s.highest_cost_usd_mean)} → ${usd(s.cost_usd_mean)} per run) and ${success}${stopped}.`;
}

export function findings(f: ReportFacts): string[] {
  const out: string[] = [];
  for (const fit of f.fits) {
    const ratios = f.ratios.filter((r) => r.scenario === fit.scenario);
    // The widest pair is the headline; the full table is in the report.
    const wide = ratios.sort((x, y) => y.steps_ratio - x.steps_ratio)[0];
    const lowDone = wide && f.summary.find((c) => c.config_id === wide.from_config)?.stop_reasons.done;
    const early = wide && lowDone === f.summary.find((c) => c.config_id === wide.from_config)?.runs ? ' (every run finished on its own before the lower limit)' : '';
    const ratio = wide ? ` Steps ${times(wide.steps_ratio)} (${wide.from_steps} → ${wide.to_steps}) → input tokens ${times(wide.tokens_ratio)}${early}.` : '';
    const quadratic = fit.b > 0 && fit.r2 > 0.95;
    out.push(
      `${fit.scenario}: cumulative input tokens after N steps fit ${fitFormula(fit)} (R² = ${fit.r2.toFixed(4)})` +
        (quadratic ? ' — every step re-sends the whole history, so cost grows with the square of the steps.' : '.') +
        ratio,
    );
  }
  for (const s of f.savings) out.push(savingSentence(s, f.summary));
  for (const c of f.summary) {
    // An emptied task queue is the task-queue agent finishing on its own, like `done` for ReAct.
    const unfinished = c.runs - (c.stop_reasons.done ?? 0) - (c.stop_reasons.queue_empty ?? 0);
    if (unfinished > 0 && !f.savings.some((s) => s.config_id === c.config_id))
      out.push(`${c.config_id}: ${unfinished} of ${c.runs} runs did not finish on their own (${formatStopReasons(c)}).`);
  }
  const mid = [...new Set(f.volumes.map((v) => v.runs_per_day))].sort((a, b) => a - b);
  const volume = mid[Math.floor(mid.length / 2)];
  if (volume !== undefined) {
    const at = f.volumes.filter((v) => v.runs_per_day === volume).sort((a, b) => b.cost_usd_per_day - a.cost_usd_per_day);
    const top = at[0]!;
    const low = at[at.length - 1]!;
    out.push(
      `At ${int(volume)} runs a day, the most expensive configuration (${top.config_id}) costs ${usd(top.cost_usd_per_day)} a day, ${usd(top.cost_usd_per_month)} a month` +
        (at.length > 1 ? `; the cheapest (${low.config_id}) costs ${usd(low.cost_usd_per_day)} a day.` : '.'),
    );
  }
  return out;
}
