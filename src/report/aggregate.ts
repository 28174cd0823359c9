// Per-configuration summary of run records: what a cost review reads first.
import type { StopReason } from '../brakes/stop-reason.ts';
import type { RunRecord } from '../runner/records.ts';
import type { Settings } from '../runner/settings.ts';
import { spread, type Spread } from './stats.ts';

export interface ConfigSummary {
  config_id: string;
  scenario: string;
  settings: Settings;
  runs: number;
  /** Runs whose answer was checked and passed; null when the scenario has no check. */
  successes: number | null;
  success_rate: number | null;
  stop_reasons: Partial<Record<StopReason, number>>;
  /** For each stop reason, the first and last step at which it fired. */
  stop_steps: Partial<Record<StopReason, { min: number; max: number }>>;
  steps: Spread;
  calls: Spread;
  input_tokens: Spread;
  output_tokens: Spread;
  cached_tokens: Spread;
  cost_usd: Spread;
  total_cost_usd: number;
}

export function summarizeConfigs(runs: readonly RunRecord[]): ConfigSummary[] {
  const groups = new Map<string, RunRecord[]>();
  for (const r of runs) {
    const g = groups.get(r.config_id);
    if (g) g.push(r);
    else groups.set(r.config_id, [r]);
  }
  return [...groups.values()].map((g) => {
    const first = g[0]!;
    const checked = g.filter((r) => r.success !== null);
    const successes = checked.length ? checked.filter((r) => r.success).length : null;
    const stop_reasons: Partial<Record<StopReason, number>> = {};
    const stop_steps: ConfigSummary['stop_steps'] = {};
    for (const r of g) {
      stop_reasons[r.stop_reason] = (stop_reasons[r.stop_reason] ?? 0) + 1;
      const at = stop_steps[r.stop_reason];
      stop_steps[r.stop_reason] = at ? { min: Math.min(at.min, r.stop_step), max: Math.max(at.max, r.stop_step) } : { min: r.stop_step, max: r.stop_step };
    }
    const pick = (f: (r: RunRecord) => number) => spread(g.map(f));
    return {
      config_id: first.config_id,
      scenario: first.scenario,
      settings: first.settings,
      runs: g.length,
      successes,
      success_rate: successes === null ? null : successes / checked.length,
      stop_reasons,
      stop_steps,
      steps: pick((r) => r.steps),
      calls: pick((r) => r.calls),
      input_tokens: pick((r) => r.input_tokens),
      output_tokens: pick((r) => r.output_tokens),
      cached_tokens: pick((r) => r.cached_tokens),
      cost_usd: pick((r) => r.cost_usd),
      total_cost_usd: g.reduce((s, r) => s + r.cost_usd, 0),
    };
  });
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
