// How much each context strategy saves: input tokens and cost per run against `full` context
// (same configuration otherwise), the largest prompt a call sent, and the fit a·N + b·N² of the
// cumulative-input curve per configuration — quadratic with full context, flattening toward linear
// with a window or summaries.
import type { RunFacts } from '../../contracts/records.ts';
import { groupByConfig } from './aggregate.ts';
import type { StepPoints } from './step-points.ts';
import { QuadraticFitAccumulator, type QuadraticFit } from './fit.ts';
import { settingsKey } from './reflection.ts';
import { mean } from './descriptive.ts';

export interface ContextRow {
  config_id: string;
  scenario: string;
  context: string;
  runs: number;
  steps_mean: number;
  input_tokens_mean: number;
  cost_usd_mean: number;
  /** Summarize calls per run (summarize:T only). */
  summaries_mean: number;
  /** The largest single-call input of the configuration (what a context window must hold). */
  max_call_input_tokens: number;
  /** Against the same configuration with full context (null when that was not swept, or for full itself). */
  baseline_config: string | null;
  input_tokens_saved: number | null;
  cost_saved: number | null;
  fit: QuadraticFit | null;
  success_rate: number | null;
}

/** One fit per configuration over its per-step means (QuadraticFit.scenario holds the config id). */
export function fitsByConfig(points: StepPoints): Map<string, QuadraticFit> {
  const acc = new QuadraticFitAccumulator();
  for (const c of points.configs)
    for (let i = c.start; i < c.end; i++) acc.add(c.config_id, points.step[i]!, points.cumInputTokens[i]!);
  return new Map(acc.fits().map((f) => [f.scenario, f]));
}

export function contextRows(
  runs: readonly RunFacts[],
  points: StepPoints,
  maxCallInput: ReadonlyMap<string, number>,
): ContextRow[] {
  const groups = groupByConfig(runs);
  const fits = fitsByConfig(points);
  const full = new Map<string, RunFacts[]>();
  for (const g of groups)
    if (g[0]!.settings.context === 'full') full.set(settingsKey(g[0]!.settings, 'context', 'full'), g);
  return groups.map((g) => {
    const first = g[0]!;
    const base = full.get(settingsKey(first.settings, 'context', 'full'));
    const input = mean(g.map((r) => r.input_tokens));
    const cost = mean(g.map((r) => r.cost_usd));
    const baseInput = base ? mean(base.map((r) => r.input_tokens)) : 0;
    const baseCost = base ? mean(base.map((r) => r.cost_usd)) : 0;
    const compare = base && base !== g;
    const checked = g.filter((r) => r.success !== null);
    return {
      config_id: first.config_id,
      scenario: first.scenario,
      context: first.settings.context,
      runs: g.length,
      steps_mean: mean(g.map((r) => r.steps)),
      input_tokens_mean: input,
      cost_usd_mean: cost,
      summaries_mean: mean(g.map((r) => (r.extra?.context as { summaries?: number } | undefined)?.summaries ?? 0)),
      max_call_input_tokens: maxCallInput.get(first.config_id) ?? 0,
      baseline_config: compare ? base[0]!.config_id : null,
      input_tokens_saved: compare && baseInput > 0 ? 1 - input / baseInput : null,
      cost_saved: compare && baseCost > 0 ? 1 - cost / baseCost : null,
      fit: fits.get(first.config_id) ?? null,
      success_rate: checked.length ? checked.filter((r) => r.success).length / checked.length : null,
    };
  });
}
