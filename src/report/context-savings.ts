// How much each context strategy saves: input tokens and cost per run against `full` context
// (same configuration otherwise), the largest prompt a call sent, and the cumulative-input curve
// per strategy — quadratic with full context, flattening toward linear with a window or summaries —
// with its fit a·N + b·N². Step records stream through a CumulativeCurves accumulator.
import type { RunRecord, StepRecord } from '../runner/records.ts';
import { groupByConfig, settingsKey } from './stability.ts';
import { mean } from './stats.ts';

export interface CurvePoint {
  config_id: string;
  context: string;
  step: number;
  /** Mean over runs of the input tokens consumed up to and including this step (summaries included). */
  cum_input_tokens: number;
  runs: number;
}

export interface LinearQuadraticFit {
  a: number;
  b: number;
  r2: number;
}

/** Least squares of y on (N, N²) without intercept. Null when fewer than two distinct N. */
export function fitLinearQuadratic(points: ReadonlyArray<{ n: number; y: number }>): LinearQuadraticFit | null {
  let n2 = 0, n3 = 0, n4 = 0, ny = 0, n2y = 0, sy = 0, sy2 = 0;
  for (const { n, y } of points) {
    n2 += n * n; n3 += n ** 3; n4 += n ** 4; ny += n * y; n2y += n * n * y; sy += y; sy2 += y * y;
  }
  const det = n2 * n4 - n3 * n3;
  if (points.length < 2 || Math.abs(det) < 1e-9 * n2 * n4) return null;
  const a = (ny * n4 - n3 * n2y) / det;
  const b = (n2 * n2y - n3 * ny) / det;
  const ssRes = points.reduce((s, p) => s + (p.y - a * p.n - b * p.n * p.n) ** 2, 0);
  const ssTot = sy2 - (sy * sy) / points.length;
  return { a, b, r2: ssTot > 0 ? 1 - ssRes / ssTot : 1 };
}

/** Per configuration and step, the cumulative input tokens each run had reached; memory ∝ configs × steps. */
export class CumulativeCurves {
  /** config → step → run → cumulative input tokens after that step. */
  private readonly byConfig = new Map<string, { context: string; steps: Map<number, Map<string, number>> }>();

  add(r: StepRecord): void {
    let c = this.byConfig.get(r.config_id);
    if (!c) this.byConfig.set(r.config_id, (c = { context: r.settings.context, steps: new Map() }));
    const step = Math.max(1, r.step); // a call before the first step belongs to step 1
    let runs = c.steps.get(step);
    if (!runs) c.steps.set(step, (runs = new Map()));
    runs.set(r.run_id, Math.max(runs.get(r.run_id) ?? 0, r.cum_input_tokens));
  }

  points(): CurvePoint[] {
    const out: CurvePoint[] = [];
    for (const [config_id, c] of this.byConfig) {
      for (const step of [...c.steps.keys()].sort((a, b) => a - b)) {
        const runs = [...c.steps.get(step)!.values()];
        out.push({ config_id, context: c.context, step, cum_input_tokens: mean(runs), runs: runs.length });
      }
    }
    return out;
  }
}

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
  fit: LinearQuadraticFit | null;
  success_rate: number | null;
}

export function contextRows(runs: readonly RunRecord[], curves: readonly CurvePoint[], maxCallInput: ReadonlyMap<string, number>): ContextRow[] {
  const groups = groupByConfig(runs);
  const full = new Map<string, RunRecord[]>();
  for (const g of groups) if (g[0]!.settings.context === 'full') full.set(settingsKey(g[0]!.settings, 'context', 'full'), g);
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
      summaries_mean: mean(g.map((r) => ((r.extra?.context as { summaries?: number } | undefined)?.summaries ?? 0))),
      max_call_input_tokens: maxCallInput.get(first.config_id) ?? 0,
      baseline_config: compare ? base[0]!.config_id : null,
      input_tokens_saved: compare && baseInput > 0 ? 1 - input / baseInput : null,
      cost_saved: compare && baseCost > 0 ? 1 - cost / baseCost : null,
      fit: fitLinearQuadratic(curves.filter((p) => p.config_id === first.config_id).map((p) => ({ n: p.step, y: p.cum_input_tokens }))),
      success_rate: checked.length ? checked.filter((r) => r.success).length / checked.length : null,
    };
  });
}
